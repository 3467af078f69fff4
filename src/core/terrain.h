// Terrain kinds: what every ray of a scene is traced through before the scene's instances
// (instances.h). A scene has one kind, chosen when it is made and read per render (never per
// ray); a render's feature set (render_features.h) names it as a type, so that each kind is a
// type through the same trace, never a second trace beside it.
//
// A kind is a tag type naming where its device reads it (View) and an overload of trace_terrain,
// listed once (WR_TERRAIN_KINDS, below), so a new kind adds a type, an overload and a line, and
// changes no caller:
//   BvhTerrain       the triangle BVH of any mesh (below);
//   GridTerrain      a height field traced through its grid (grid_terrain.h);
//   GridMeshTerrain  a grid-topology mesh (legged_gym's, IsaacLab's) through its grid
//                    (grid_mesh_terrain.h).
// Every kind gives the hits the BVH gives over the same triangles, bit for bit (t, triangle id).
#pragma once

#include "bvh_traverse.h"
#include "grid_mesh_terrain.h"
#include "grid_terrain.h"

namespace wr {

// The triangle BVH of any mesh (bvh_layout.h, built by scene/bvh_builder.cpp), traced by the one
// traversal (bvh_traverse.h) in the caller's variant.
struct BvhTerrain {
  using View = BvhView;
};

// The hit triangle's corners (triangle `id`, the trace's leaf), in the terrain's frame: each kind
// has its overload beside its trace (hit_surface.h's scene_hit_normal calls it).
WR_HD bool hit_corners(BvhTerrain, const BvhView& bvh, uint32_t id, NodeLink leaf, TriangleCorners* out) {
  return bvh_hit_corners(bvh, leaf, id, out);
}

// The local memory one ray's trace works in, for whichever kind its terrain is and the BVHs traced
// after it (the instances', instances.h; a height field's base, grid_terrain.h): the BVH's stack,
// or a grid's walk and then the BVH's stack. The traces it serves run one after the other, so they
// share it: on the GPU a kernel's frame then holds one traversal's memory, not one per structure,
// and stays within CUDA's default stack per thread (bvh_traverse.h, kTraversalStackSize), where
// the driver would otherwise reserve the larger frame for every thread the device can hold.
template <int kStackSize>
union TraceScratch {
  TraversalStack<kStackSize> bvh;
  GridWalkStack grid;
};

// Nearest hit of org + t dir, t in [tmin, tmax], through the terrain, of the kind named by the
// tag (BvhTerrain, GridTerrain, GridMeshTerrain), working in *scratch (its contents on entry do
// not matter); the hits of the BVH over the same triangles, bit for bit, for every kind. `probe`:
// as trace_closest_hit's (every kind takes one; NoTraversalProbe compiles away).
template <class Variant, int kStackSize, class Probe = NoTraversalProbe>
WR_HD TraceResult trace_terrain(TraceScratch<kStackSize>* scratch, BvhTerrain, const BvhView& terrain, Vec3 org,
                                Vec3 dir, float tmin, float tmax, const Probe& probe = Probe()) {
  return trace_closest_hit<Variant>(&scratch->bvh, terrain, org, dir, tmin, tmax, probe);
}

template <class Variant, int kStackSize, class Probe = NoTraversalProbe>
WR_HD TraceResult trace_terrain(TraceScratch<kStackSize>* scratch, GridTerrain, const GridView& terrain, Vec3 org,
                                Vec3 dir, float tmin, float tmax, const Probe& probe = Probe()) {
  return trace_grid<Variant>(&scratch->grid, &scratch->bvh, terrain, org, dir, tmin, tmax, probe);
}

template <class Variant, int kStackSize, class Probe = NoTraversalProbe>
WR_HD TraceResult trace_terrain(TraceScratch<kStackSize>* scratch, GridMeshTerrain, const GridMeshView& terrain,
                                Vec3 org, Vec3 dir, float tmin, float tmax, const Probe& probe = Probe()) {
  return trace_grid_mesh<Variant>(&scratch->grid, terrain, org, dir, tmin, tmax, probe);
}

// The same with scratch memory of its own (a caller that traces nothing else for the ray).
template <class Variant, int kStackSize = kTraversalStackSize, class Kind, class Probe = NoTraversalProbe>
WR_HD TraceResult trace_terrain(Kind kind, const typename Kind::View& terrain, Vec3 org, Vec3 dir, float tmin,
                                float tmax, const Probe& probe = Probe()) {
  TraceScratch<kStackSize> scratch;
  return trace_terrain<Variant>(&scratch, kind, terrain, org, dir, tmin, tmax, probe);
}

// The kinds, one line each: X(its TerrainKind enumerator, its tag type, its member of TerrainView).
// This list makes the enum, TerrainView, view_of, with_terrain_kind and kind_of below, the CPU's
// per-kind instantiations (cpu/cpu_render.cpp) and the CUDA upload's view (kernels/cuda_device.cpp
// uploads a kind's arrays through its host data's for_each_array, scene/scene_terrain.h). A new kind
// is a line here, its tag type and trace_terrain overload, its hit_corners (beside its trace), its host
// data, and its packets if it has any (cpu/cpu_simd.cpp). Kernel budget: each kind adds six feature
// sets to every kernel (render_features.h, with_features: a camera's four, a pattern's two), each a
// camera kernel (with the pipeline), a sample and an output kernel, shared or not.
#define WR_TERRAIN_KINDS(X)   \
  X(kBvh, BvhTerrain, bvh)    \
  X(kGrid, GridTerrain, grid) \
  X(kGridMesh, GridMeshTerrain, grid_mesh)

// Which kind a scene's terrain is (the value a render's feature set carries).
#define WR_TERRAIN_ENUMERATOR(e, Kind, member) e,
enum class TerrainKind : uint8_t { WR_TERRAIN_KINDS(WR_TERRAIN_ENUMERATOR) };
#undef WR_TERRAIN_ENUMERATOR
#define WR_TERRAIN_COUNT(e, Kind, member) +1
constexpr int kNumTerrainKinds = 0 WR_TERRAIN_KINDS(WR_TERRAIN_COUNT);
#undef WR_TERRAIN_COUNT

// A scene's terrain where a device reads it (host or device pointers), of whichever kind: the
// member `kind` names is set, the others are empty. A render passes its kernels only that member
// (view_of), so a kernel's parameters hold one kind's view.
struct TerrainView {
  TerrainKind kind = TerrainKind{};  // the list's first: the BVH
#define WR_TERRAIN_MEMBER(e, Kind, member) typename Kind::View member{};
  WR_TERRAIN_KINDS(WR_TERRAIN_MEMBER)
#undef WR_TERRAIN_MEMBER
};

// A BVH's terrain view.
WR_HD TerrainView bvh_terrain(const BvhView& bvh) {
  TerrainView t;
  t.bvh = bvh;
  return t;
}

// Each kind's member of a TerrainView, and its TerrainKind.
#define WR_TERRAIN_VIEW_OF(e, Kind, member)                                        \
  WR_HD const Kind::View& view_of(Kind, const TerrainView& t) { return t.member; } \
  WR_HD Kind::View& view_of(Kind, TerrainView& t) { return t.member; }             \
  WR_HD constexpr TerrainKind kind_of(Kind) { return TerrainKind::e; }
WR_TERRAIN_KINDS(WR_TERRAIN_VIEW_OF)
#undef WR_TERRAIN_VIEW_OF

// Calls f(Kind{}) with the tag type of `kind`: where a value becomes a type (render_features.h's
// with_features, the explicit rays, the CUDA upload).
template <class F>
auto with_terrain_kind(TerrainKind kind, F&& f) {
  switch (kind) {
#define WR_TERRAIN_CASE(e, Kind, member) \
  case TerrainKind::e: return f(Kind{});
    WR_TERRAIN_KINDS(WR_TERRAIN_CASE)
#undef WR_TERRAIN_CASE
  }
  return f(BvhTerrain{});  // (not reached: every kind has its case)
}

}  // namespace wr
