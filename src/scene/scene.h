// A mesh scene on the host (named apart from wr.hpp's wr::Scene): the validated triangle mesh's
// BVH, built once and shared by every sensor and env. Immutable after construction.
#pragma once

#include <cstdint>

#include "scene/bvh_builder.h"

namespace wr {

class MeshScene {
 public:
  // Validates the arrays (see mesh_validation.h; `function` prefixes error messages) and
  // builds the BVH with `options` (the device's: DeviceBackend::bvh_build_options; their ledger
  // is replaced by this scene's).
  MeshScene(const char* function, const float* vertices, uint64_t num_vertices, const uint32_t* indices,
            uint64_t num_triangles, BvhBuildOptions options = BvhBuildOptions{});

  const Bvh& bvh() const { return bvh_; }
  BvhView view() const { return bvh_.view(); }
  uint64_t num_triangles() const { return num_triangles_; }  // as given, zero-area ones included
  // Bounds of every triangle's corners, zero-area triangles included.
  const float* bounds_min() const { return bvh_.corners_min; }
  const float* bounds_max() const { return bvh_.corners_max; }
  double build_seconds() const { return build_seconds_; }
  MemoryLedger& ledger() { return ledger_; }
  const MemoryLedger& ledger() const { return ledger_; }

 private:
  MemoryLedger ledger_;  // declared first: outlives bvh_, whose memory it records
  Bvh bvh_;
  double build_seconds_ = 0.0;
  uint64_t num_triangles_ = 0;
};

}  // namespace wr
