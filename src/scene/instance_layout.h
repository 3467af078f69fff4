// An instanced scene's table on the host (wr_scene_create_instanced): the prototype and group of
// every instance (num_slots per env, then num_globals shared), and each prototype's BVH as the
// scene's device reads it. The prototypes' meshes and BVHs are their own scenes'; this holds only
// the table (core/instances.h reads it through an InstanceView).
#pragma once

#include <cstdint>

#include <wr/wr.h>

#include "core/instances.h"
#include "memory/tracked_allocator.h"

namespace wr {

// At most this many instances (slots + globals) per scene: far more than a robot's links, and
// the bound that keeps (num_envs x num_slots x 7) pose indices and the loop over them in range.
constexpr uint32_t kMaxInstances = 1u << 16;

class InstanceTable {
 public:
  // Checks desc's tables (slot_prototypes etc., against num_prototypes; groups < 32; counts;
  // messages "<function>: desc->slot_prototypes[3] ...") and copies them. Each prototype's BVH
  // view is set after (set_prototype), before the table is used.
  InstanceTable(const char* function, const wr_instanced_scene_desc& desc);
  // Prototype i's BVH where the scene's device reads it.
  void set_prototype(uint32_t i, const BvhView& view) { prototypes_[i] = view; }

  // The table with host pointers (the CPU reads it as it is; CUDA uploads it).
  InstanceView host_view() const;
  uint32_t num_slots() const { return num_slots_; }
  uint32_t num_globals() const { return num_globals_; }
  uint32_t num_prototypes() const { return static_cast<uint32_t>(prototypes_.size()); }
  MemoryLedger& ledger() { return ledger_; }
  const MemoryLedger& ledger() const { return ledger_; }

 private:
  MemoryLedger ledger_;  // declared first: outlives the arrays it records
  TrackedVector<BvhView> prototypes_;
  TrackedVector<uint32_t> prototype_, group_;  // (num_slots + num_globals)
  uint32_t num_slots_ = 0, num_globals_ = 0;
};

}  // namespace wr
