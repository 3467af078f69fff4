// Memory accounting: every byte the library holds, host or device, is recorded in the
// ledger of the object that owns it (a scene, a sensor), under a tag saying what it is.
// Host containers get their memory through TrackedAllocator (tracked_allocator.h), device
// buffers are recorded by the CUDA backend right after cudaMalloc / before cudaFree.
// wr_scene_memory and wr_sensor_memory report these figures, and the tests check them
// against what operator new and the CUDA driver actually handed out.
#pragma once

#include <atomic>
#include <cstdint>

namespace wr {

// Same values as wr.h's wr_memory_tag.
enum class MemoryTag : int {
  kObjects = 0,    // the handle and object structs themselves
  kBvhNodes,       // BvhNode array
  kBvhTriangles,   // leaf blocks: corners, corner indices and ids (bvh_layout.h)
  kBvhParents,     // parent index per node (stackless fallback)
  kRayTemplate,    // TemplateRay per pixel, shared by every env
  kCounters,       // small device counters (stack overflows)
  kBuildScratch,   // transient: BVH build working arrays, 0 once a scene exists
  kHistory,        // per env: the RL pipeline's history rings and frame counts
  kCameraImages,   // per env (CUDA): the crop's samples and clean window a resampled output is made from
  kRenderScratch,  // shared: the same per thread on the CPU
  kInstanceTable,  // shared: an instanced scene's table (prototype BVH views, prototype and group per instance)
  kGridSamples,    // a grid terrain's vertices (a height field's sample coordinates; a grid mesh's vertices, reach,
                   // zero-area bits)
  kGridPyramid,    // a grid terrain's min-max pyramid above its cells
  kCount
};

enum class MemorySpace : int { kHost = 0, kDevice = 1 };

class MemoryLedger {
 public:
  void add(MemorySpace space, MemoryTag tag, uint64_t bytes) noexcept {
    slot(space, tag).fetch_add(bytes, std::memory_order_relaxed);
  }
  void remove(MemorySpace space, MemoryTag tag, uint64_t bytes) noexcept {
    slot(space, tag).fetch_sub(bytes, std::memory_order_relaxed);
  }
  uint64_t bytes(MemorySpace space, MemoryTag tag) const noexcept {
    return bytes_[static_cast<int>(space)][static_cast<int>(tag)].load(std::memory_order_relaxed);
  }
  // Every count of `other` added to this one's.
  void add_all(const MemoryLedger& other) noexcept {
    for (int s = 0; s < 2; ++s)
      for (int t = 0; t < static_cast<int>(MemoryTag::kCount); ++t)
        add(static_cast<MemorySpace>(s), static_cast<MemoryTag>(t),
            other.bytes(static_cast<MemorySpace>(s), static_cast<MemoryTag>(t)));
  }
  uint64_t total(MemorySpace space) const noexcept {
    uint64_t sum = 0;
    for (int t = 0; t < static_cast<int>(MemoryTag::kCount); ++t) sum += bytes(space, static_cast<MemoryTag>(t));
    return sum;
  }

 private:
  std::atomic<uint64_t>& slot(MemorySpace space, MemoryTag tag) noexcept {
    return bytes_[static_cast<int>(space)][static_cast<int>(tag)];
  }
  std::atomic<uint64_t> bytes_[2][static_cast<int>(MemoryTag::kCount)] = {};
};

// Bytes recorded in a ledger for as long as this lives: an object's own size, held as a member of
// the object (sizeof of the enclosing class is known in a default member initializer).
class LedgerRecord {
 public:
  LedgerRecord(MemoryLedger* ledger, MemorySpace space, MemoryTag tag, uint64_t bytes) noexcept
      : ledger_(ledger), space_(space), tag_(tag), bytes_(bytes) {
    ledger_->add(space_, tag_, bytes_);
  }
  ~LedgerRecord() { ledger_->remove(space_, tag_, bytes_); }
  LedgerRecord(const LedgerRecord&) = delete;
  LedgerRecord& operator=(const LedgerRecord&) = delete;

 private:
  MemoryLedger* ledger_;
  MemorySpace space_;
  MemoryTag tag_;
  uint64_t bytes_;
};

}  // namespace wr
