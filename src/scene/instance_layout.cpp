#include "scene/instance_layout.h"

#include <string>

#include "common/field_checks.h"
#include "common/status_error.h"

namespace wr {
namespace {

// One of the desc's per-instance tables: `count` prototypes (each < num_prototypes) and groups
// (each < 32, or all 0 where `groups` is null) appended to the table's.
void append(const char* function, const char* prototypes_name, const char* groups_name, const uint32_t* prototypes,
            const uint32_t* groups, uint32_t count, uint32_t num_prototypes, TrackedVector<uint32_t>* prototype,
            TrackedVector<uint32_t>* group) {
  if (count == 0) return;
  if (!prototypes) bad_field(function, std::string("desc->") + prototypes_name, "is NULL: it needs one entry per instance");
  require_element_aligned(function, prototypes, prototypes_name);
  if (groups) require_element_aligned(function, groups, groups_name);
  for (uint32_t i = 0; i < count; ++i) {
    if (prototypes[i] >= num_prototypes)
      bad_field(function, std::string("desc->") + prototypes_name + "[" + std::to_string(i) + "]",
                "= " + std::to_string(prototypes[i]) + ": must be below num_prototypes (" +
                    std::to_string(num_prototypes) + ")");
    if (groups && groups[i] >= 32)
      bad_field(function, std::string("desc->") + groups_name + "[" + std::to_string(i) + "]",
                "= " + std::to_string(groups[i]) + ": groups are 0 to 31 (bits of an exclusion mask)");
    prototype->push_back(prototypes[i]);
    group->push_back(groups ? groups[i] : 0u);
  }
}

std::string floats7(const float* v) {
  std::string s = "(";
  for (int i = 0; i < 7; ++i) s += (i ? ", " : "") + num(v[i]);
  return s + ")";
}

}  // namespace

InstanceTable::InstanceTable(const char* function, const wr_instanced_scene_desc& d)
    : prototypes_(TrackedAllocator<BvhView>(&ledger_, MemoryTag::kInstanceTable)),
      prototype_(TrackedAllocator<uint32_t>(&ledger_, MemoryTag::kInstanceTable)),
      group_(TrackedAllocator<uint32_t>(&ledger_, MemoryTag::kInstanceTable)) {
  if (uint64_t(d.num_slots) + d.num_globals > kMaxInstances)
    bad_field(function, "desc->num_slots + desc->num_globals",
              "= " + std::to_string(uint64_t(d.num_slots) + d.num_globals) + ": at most " +
                  std::to_string(kMaxInstances) + " instances");
  if ((d.num_slots || d.num_globals) && d.num_prototypes == 0)
    bad_field(function, "desc->num_prototypes", "is 0: the instances need a prototype to name");
  prototypes_.assign(d.num_prototypes, BvhView{nullptr, nullptr, nullptr});
  prototype_.reserve(uint64_t(d.num_slots) + d.num_globals);
  group_.reserve(uint64_t(d.num_slots) + d.num_globals);
  append(function, "slot_prototypes", "slot_groups", d.slot_prototypes, d.slot_groups, d.num_slots, d.num_prototypes,
         &prototype_, &group_);
  append(function, "global_prototypes", "global_groups", d.global_prototypes, d.global_groups, d.num_globals,
         d.num_prototypes, &prototype_, &group_);
  num_slots_ = d.num_slots;
  num_globals_ = d.num_globals;
}

InstanceView InstanceTable::host_view() const {
  return InstanceView{prototypes_.data(), prototype_.data(), group_.data(), num_slots_, num_globals_};
}

void validate_instance_poses(const char* function, const InstanceView& table, const float* slot_poses,
                             const float* global_poses, uint64_t num_envs, const uint8_t* update_mask, int quat_order,
                             const char* consequence) {
  RigidTransform t;
  for (uint32_t g = 0; g < table.num_globals; ++g)
    if (!pose_to_transform(global_poses + 7ull * g, quat_order, &t))
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": args->global_poses of global instance " +
                                          std::to_string(g) + " (instance " + std::to_string(table.num_slots + g) +
                                          ") = " + floats7(global_poses + 7ull * g) +
                                          ": not finite, or a zero quaternion; " + consequence);
  for (uint64_t env = 0; env < num_envs; ++env)
    for (uint32_t s = 0; s < table.num_slots && (!update_mask || update_mask[env]); ++s) {
      const uint64_t at = 7ull * (env * table.num_slots + s);
      if (!pose_to_transform(slot_poses + at, quat_order, &t))
        fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": args->instance_poses of env " + std::to_string(env) +
                                            ", slot " + std::to_string(s) + " (floats " + std::to_string(at) +
                                            "...) = " + floats7(slot_poses + at) +
                                            ": not finite, or a zero quaternion; " + consequence);
    }
}

}  // namespace wr
