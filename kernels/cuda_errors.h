// What a failed CUDA runtime call means for the C API: its wr_status, and the messages for a
// machine whose driver cannot run this library. Header-only and free of kernels, so that the
// mapping is unit-tested on any machine (tests/kernels/test_cuda_error_status.cpp); the CUDA
// backend (cuda_device.cpp) reports every failure through it.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include <wr/wr.h>

namespace wr {
namespace cuda {

// A failed operation (allocation, copy, launch, synchronisation): out of memory, or a device
// error (WR_ERROR_DEVICE; a fault in an earlier kernel, a lost context, ...).
inline wr_status status_of_error(cudaError_t err) {
  return err == cudaErrorMemoryAllocation ? WR_ERROR_OUT_OF_MEMORY : WR_ERROR_DEVICE;
}

// A failed cudaPointerGetAttributes on a caller's pointer: only cudaErrorInvalidValue says that
// the pointer is not one CUDA knows (the caller's mistake, WR_ERROR_INVALID_ARGUMENT); any other
// error is the device's (after a kernel fault every call fails that way), not the pointer's.
inline wr_status status_of_pointer_query(cudaError_t err) {
  return err == cudaErrorInvalidValue ? WR_ERROR_INVALID_ARGUMENT : status_of_error(err);
}

// The oldest driver branch that runs code of CUDA `runtime_version` (e.g. 13000 for 13.0),
// by NVIDIA's minor-version compatibility rule: a driver of a major version's first branch runs
// every minor release of it (CUDA 11.x: R450, 12.x: R525, 13.x: R580).
inline std::string minimum_driver(int runtime_version) {
  const int major = runtime_version / 1000;
  if (major <= 11) return "R450";
  if (major == 12) return "R525";
  if (major == 13) return "R580";
  return "the first driver branch of CUDA " + std::to_string(major);
}

// "13.0" from 13000.
inline std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// Why no CUDA device can be used, when cudaGetDeviceCount failed with `err`. driver_version:
// cudaDriverGetVersion's (0 where no driver is installed at all); runtime_version: the CUDA this
// library was built with (CUDART_VERSION). Where a driver exists, the CUDA error is quoted too.
inline std::string no_device_reason(cudaError_t err, int driver_version, int runtime_version) {
  const std::string needs = "this libwr was built with CUDA " + cuda_version_string(runtime_version) +
                            " and needs an NVIDIA driver of branch " + minimum_driver(runtime_version) + " or newer";
  if (driver_version == 0)
    return "no NVIDIA driver was found (libcuda.so.1 is not installed or cannot be loaded); " + needs;
  const std::string cuda_says = std::string(" (") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")";
  if (err == cudaErrorInsufficientDriver || driver_version < runtime_version)
    return "the NVIDIA driver supports CUDA " + cuda_version_string(driver_version) + " only; " + needs + cuda_says;
  if (err == cudaErrorNoDevice) return "the NVIDIA driver finds no CUDA device" + cuda_says;
  return "no usable CUDA driver or device" + cuda_says;
}

}  // namespace cuda
}  // namespace wr
