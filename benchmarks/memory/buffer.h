// A strategy's own buffers: host memory on a CPU context, device memory on a CUDA one,
// each counted to the byte. The only file besides ray_buffers_kernels.cu that talks to the
// CUDA runtime (behind WR_BUILT_WITH_CUDA).
#pragma once

#include <cstdint>

namespace wrbench {

enum class Space { kHost, kDevice };

/// Bytes in one space, as a strategy or the library reports them.
struct ByteCount {
  uint64_t host = 0, device = 0;
  uint64_t in(Space space) const { return space == Space::kHost ? host : device; }
  void add(Space space, uint64_t bytes) { (space == Space::kHost ? host : device) += bytes; }
};

/// One allocation of `bytes` in `space`, zero-filled at creation so that every page is
/// touched (resident for RSS, committed for the driver) before anything is measured.
/// Host blocks come from malloc: blocks of 128 KiB and more are their own mmap (see
/// pin_malloc_thresholds), smaller ones share heap pages as they would in any program.
class Buffer {
 public:
  Buffer() = default;
  Buffer(Space space, uint64_t bytes);  // exits the program when the allocation fails
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  Space space() const { return space_; }
  uint64_t bytes() const { return bytes_; }
  void* data() const { return data_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

  /// Copies `bytes` from host memory into this buffer at byte `offset` (synchronous).
  void upload(const void* host, uint64_t bytes, uint64_t offset = 0);
  /// Copies `bytes` at byte `offset` of this buffer into host memory (synchronous).
  void download(void* host, uint64_t bytes, uint64_t offset = 0) const;

 private:
  void release() noexcept;
  Space space_ = Space::kHost;
  uint64_t bytes_ = 0;
  void* data_ = nullptr;
};

/// dst[dst_offset ..] = src[src_offset ..], `bytes` bytes, both in the same space. On the
/// device: enqueued on `stream` (a cudaStream_t). On the host: memcpy, stream ignored.
void copy_bytes(Buffer& dst, uint64_t dst_offset, const Buffer& src, uint64_t src_offset, uint64_t bytes, void* stream);

/// Waits for the work enqueued on `stream` (nothing to wait for on the host).
void synchronize(Space space, void* stream);

/// True when this build can use CUDA (WR_BUILT_WITH_CUDA).
bool built_with_cuda();

/// Makes `ordinal` current and its primary context exist (cudaSetDevice + cudaFree(0)), so
/// that later driver figures no longer include the context itself. Exits on failure.
void open_cuda_device(int ordinal);

/// Device memory in use on the current device: total - free from cudaMemGetInfo, after a
/// device-wide synchronisation. 0 without CUDA.
uint64_t device_used_bytes();

/// A new CUDA stream (a cudaStream_t), or nullptr on the host.
void* create_stream(Space space);
void destroy_stream(Space space, void* stream);

}  // namespace wrbench
