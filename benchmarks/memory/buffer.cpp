#include "buffer.h"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "child_process.h"

#if WR_BUILT_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace wrbench {

namespace {

// memset through a volatile pointer: a compiler may otherwise fold malloc + memset(0) into
// calloc, which for a fresh mmap'd block skips the writes, and leaves the pages untouched
// (not resident) until the first frame: exactly what the measurement must not miss.
void* (*const volatile memset_touching)(void*, int, size_t) = std::memset;

}  // namespace

#if WR_BUILT_WITH_CUDA
namespace {
void cuda_ok(cudaError_t err, const char* call) {
  if (err != cudaSuccess) die("%s failed: %s (%s)", call, cudaGetErrorName(err), cudaGetErrorString(err));
}
}  // namespace
#define CUDA_OK(call) cuda_ok((call), #call)
#endif

Buffer::Buffer(Space space, uint64_t bytes) : space_(space), bytes_(bytes) {
  if (bytes == 0) return;
  if (space == Space::kHost) {
    data_ = std::malloc(bytes);
    if (!data_) die("malloc of %llu bytes failed", static_cast<unsigned long long>(bytes));
    memset_touching(data_, 0, bytes);
    return;
  }
#if WR_BUILT_WITH_CUDA
  CUDA_OK(cudaMalloc(&data_, bytes));
  CUDA_OK(cudaMemset(data_, 0, bytes));
#else
  die("a device buffer was asked for in a build without CUDA");
#endif
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : space_(other.space_), bytes_(std::exchange(other.bytes_, 0)), data_(std::exchange(other.data_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    space_ = other.space_;
    bytes_ = std::exchange(other.bytes_, 0);
    data_ = std::exchange(other.data_, nullptr);
  }
  return *this;
}

void Buffer::release() noexcept {
  if (!data_) return;
  if (space_ == Space::kHost) {
    std::free(data_);
  } else {
#if WR_BUILT_WITH_CUDA
    cudaFree(data_);
#endif
  }
  data_ = nullptr;
}

void Buffer::upload(const void* host, uint64_t bytes, uint64_t offset) {
  if (offset + bytes > bytes_)
    die("upload of %llu bytes at %llu overruns a buffer of %llu", static_cast<unsigned long long>(bytes),
        static_cast<unsigned long long>(offset), static_cast<unsigned long long>(bytes_));
  char* dst = static_cast<char*>(data_) + offset;
  if (space_ == Space::kHost) {
    std::memcpy(dst, host, bytes);
    return;
  }
#if WR_BUILT_WITH_CUDA
  CUDA_OK(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice));
#endif
}

void Buffer::download(void* host, uint64_t bytes, uint64_t offset) const {
  if (offset + bytes > bytes_)
    die("download of %llu bytes at %llu overruns a buffer of %llu", static_cast<unsigned long long>(bytes),
        static_cast<unsigned long long>(offset), static_cast<unsigned long long>(bytes_));
  const char* src = static_cast<const char*>(data_) + offset;
  if (space_ == Space::kHost) {
    std::memcpy(host, src, bytes);
    return;
  }
#if WR_BUILT_WITH_CUDA
  CUDA_OK(cudaMemcpy(host, src, bytes, cudaMemcpyDeviceToHost));
#endif
}

void copy_bytes(Buffer& dst, uint64_t dst_offset, const Buffer& src, uint64_t src_offset, uint64_t bytes,
                void* stream) {
  char* d = dst.as<char>() + dst_offset;
  const char* s = src.as<const char>() + src_offset;
  if (dst.space() == Space::kHost) {
    (void)stream;
    std::memcpy(d, s, bytes);
    return;
  }
#if WR_BUILT_WITH_CUDA
  CUDA_OK(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)));
#endif
}

void synchronize(Space space, void* stream) {
  if (space == Space::kHost) return;
#if WR_BUILT_WITH_CUDA
  CUDA_OK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
#else
  (void)stream;
#endif
}

bool built_with_cuda() { return WR_BUILT_WITH_CUDA != 0; }

void open_cuda_device(int ordinal) {
#if WR_BUILT_WITH_CUDA
  CUDA_OK(cudaSetDevice(ordinal));
  CUDA_OK(cudaFree(nullptr));
#else
  die("CUDA device %d asked for in a build without CUDA", ordinal);
#endif
}

uint64_t device_used_bytes() {
#if WR_BUILT_WITH_CUDA
  CUDA_OK(cudaDeviceSynchronize());
  size_t free_bytes = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_bytes, &total));
  return static_cast<uint64_t>(total - free_bytes);
#else
  return 0;
#endif
}

void* create_stream(Space space) {
  if (space == Space::kHost) return nullptr;
#if WR_BUILT_WITH_CUDA
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreate(&stream));
  return stream;
#else
  return nullptr;
#endif
}

void destroy_stream(Space space, void* stream) {
  if (space == Space::kHost || !stream) return;
#if WR_BUILT_WITH_CUDA
  cudaStreamDestroy(static_cast<cudaStream_t>(stream));
#endif
}

}  // namespace wrbench
