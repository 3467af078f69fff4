// Terrain kinds: what every ray of a scene is traced through before the scene's instances
// (instances.h). A scene has one kind, chosen when it is made and read per render (never per
// ray); a render's feature set (render_features.h) names it as a type, so that a new kind (a
// grid over a height field) is a new type through the same trace, never a second trace beside it.
#pragma once

#include "bvh_traverse.h"

namespace wr {

// A kind is a tag type naming where its device reads it (View) and an overload of trace_terrain,
// so a new kind adds a type and an overload and changes no caller.

// The triangle BVH of any mesh (bvh_layout.h, built by scene/bvh_builder.cpp), traced by the one
// traversal (bvh_traverse.h) in the caller's variant.
struct BvhTerrain {
  using View = BvhView;
};

template <class Variant, int kStackSize = kTraversalStackSize>
WR_HD TraceResult trace_terrain(BvhTerrain, const BvhView& terrain, Vec3 org, Vec3 dir, float tmin, float tmax) {
  return trace_closest_hit<Variant, kStackSize>(terrain, org, dir, tmin, tmax);
}

}  // namespace wr
