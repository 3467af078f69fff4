// Terrain kinds: what every ray of a scene is traced through before the scene's instances
// (instances.h). A scene has one kind, chosen when it is made and read per render (never per
// ray); a render's feature set (render_features.h) names it as a type, so that each kind is a
// type through the same trace, never a second trace beside it.
//
// A kind is a tag type naming where its device reads it (View) and an overload of trace_terrain,
// so a new kind adds a type, an overload and a member of TerrainView, and changes no caller:
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

// Which kind a scene's terrain is (the value a render's feature set carries).
enum class TerrainKind : uint8_t { kBvh = 0, kGrid = 1, kGridMesh = 2 };

// A scene's terrain where a device reads it (host or device pointers), of whichever kind: the
// member `kind` names is set, the others are empty. A render passes its kernels only that member
// (view_of), so a kernel's parameters hold one kind's view.
struct TerrainView {
  TerrainKind kind = TerrainKind::kBvh;
  BvhView bvh{};
  GridView grid{};
  GridMeshView grid_mesh{};
};

// A BVH's terrain view.
WR_HD TerrainView bvh_terrain(const BvhView& bvh) {
  TerrainView t;
  t.bvh = bvh;
  return t;
}

WR_HD const BvhView& view_of(BvhTerrain, const TerrainView& t) { return t.bvh; }
WR_HD const GridView& view_of(GridTerrain, const TerrainView& t) { return t.grid; }
WR_HD const GridMeshView& view_of(GridMeshTerrain, const TerrainView& t) { return t.grid_mesh; }

// Calls f(Kind{}) with the tag type of `kind`: where a value becomes a type (render_features.h's
// with_features, the explicit rays).
template <class F>
auto with_terrain_kind(TerrainKind kind, F&& f) {
  if (kind == TerrainKind::kGrid) return f(GridTerrain{});
  if (kind == TerrainKind::kGridMesh) return f(GridMeshTerrain{});
  return f(BvhTerrain{});
}

}  // namespace wr
