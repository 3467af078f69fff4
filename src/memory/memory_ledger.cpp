#include "memory/memory_ledger.h"

namespace wr {

const char* memory_tag_name(MemoryTag tag) {
  switch (tag) {
    case MemoryTag::kObjects: return "objects";
    case MemoryTag::kBvhNodes: return "bvh_nodes";
    case MemoryTag::kBvhTriangles: return "bvh_triangles";
    case MemoryTag::kBvhParents: return "bvh_parents";
    case MemoryTag::kRayTemplate: return "ray_template";
    case MemoryTag::kCounters: return "counters";
    case MemoryTag::kBuildScratch: return "build_scratch";
    case MemoryTag::kCount: break;
  }
  return "unknown";
}

}  // namespace wr
