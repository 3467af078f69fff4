#include "scene/instance_layout.h"

#include <string>

#include "errors/field_checks.h"
#include "errors/status_error.h"

namespace wr {
namespace {

// One of the desc's per-instance tables: `count` prototypes (each < num_prototypes) and groups
// (each < 32, or all 0 where `groups` is null) appended to the table's.
void append(const char* function, const char* prototypes_name, const char* groups_name, const uint32_t* prototypes,
            const uint32_t* groups, uint32_t count, uint32_t num_prototypes, TrackedVector<uint32_t>* prototype,
            TrackedVector<uint32_t>* group) {
  if (count == 0) return;
  if (!prototypes)
    bad_field(function, std::string("desc->") + prototypes_name, "is NULL: it needs one entry per instance");
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

}  // namespace wr
