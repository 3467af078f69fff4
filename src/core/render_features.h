// Which parts of the one per-pixel pipeline a render uses, as a type: every backend compiles the
// one render (the CPU job, cpu/cpu_render.cpp; the CUDA kernels, kernels/kernel_threads.h) for the
// feature set in use, with `if constexpr`, so that a render that needs a part carries its code and
// one that does not carries none (no instance loop in a terrain-only kernel: its registers are
// those of the plain depth kernel). The set is derived once per render, from the sensor and the
// call (sensor/render_call.cpp, render_features), and turned into the type here (with_features);
// nothing else decides it.
//
// Two kinds sit beside the flags, each a type, so that a new kind is a new type through this same
// path:
//   RaySource  how a pixel's ray comes from the sensor's shared template and the env's pose
//              (core/ray_source.h: CameraTemplateRays, a depth camera's; PatternRays, a height
//              scanner's or a LiDAR's, core/pattern_rays.h);
//   Terrain    what the rays are traced through before the instances (core/terrain.h:
//              BvhTerrain, the triangle BVH; GridTerrain, a height field's grid; GridMeshTerrain,
//              a grid-topology mesh's), the scene's.
#pragma once

#include "ray_source.h"
#include "terrain.h"

namespace wr {

template <bool kPipeline, bool kInstances, class RaySourceT = CameraTemplateRays, class TerrainT = BvhTerrain>
struct RenderFeatures {
  // The pipeline's stages and per-env inputs (depth_pipeline.h): the output stage (crop, noise,
  // resampling, normalisation, dtype, history, isolation) and the call's per-env arrays
  // (PerEnvInputs). Without them a pixel's value is the plain depth of wr_sensor_render: the
  // desc's clip and miss value, float32, a bad env NaN.
  static constexpr bool pipeline = kPipeline;
  // The scene's instance table is not empty: rays go on through the env's instances
  // (instances.h) after the terrain.
  static constexpr bool instances = kInstances;
  using RaySource = RaySourceT;
  using Terrain = TerrainT;
};

// The same set as values, where it is derived (sensor/render_call.cpp) and carried to a backend.
struct RenderFeatureSet {
  bool pipeline;
  bool instances;
  TerrainKind terrain = TerrainKind::kBvh;
  bool pattern = false;  // the sensor's rays are a pattern's (always with the pipeline's stages)
};

// Calls f(RenderFeatures<...>{}) with the type of `set`: the one place a set becomes an
// instantiation. Every instantiation a backend can launch is made here, so the CPU tests that run
// every set through the emulated launch run every kernel body the GPU has.
template <class F>
auto with_features(const RenderFeatureSet& set, F&& f) {
  return with_terrain_kind(set.terrain, [&](auto kind) {
    using T = decltype(kind);
    // A pattern sensor always runs the pipeline's stages (its value stage is the pattern's), so
    // its sets are two per terrain kind, not four.
    if (set.pattern)
      return set.instances ? f(RenderFeatures<true, true, PatternRays, T>{})
                           : f(RenderFeatures<true, false, PatternRays, T>{});
    if (set.instances)
      return set.pipeline ? f(RenderFeatures<true, true, CameraTemplateRays, T>{})
                          : f(RenderFeatures<false, true, CameraTemplateRays, T>{});
    return set.pipeline ? f(RenderFeatures<true, false, CameraTemplateRays, T>{})
                        : f(RenderFeatures<false, false, CameraTemplateRays, T>{});
  });
}

}  // namespace wr
