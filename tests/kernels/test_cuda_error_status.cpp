// What the CUDA backend makes of a failed CUDA call (kernels/cuda_errors.h), on any machine: the
// mapping from CUDA error codes to statuses, and the message for a machine whose driver cannot
// run this library. Then the message itself, end to end, where this machine has no driver.
#include <catch2/catch.hpp>

#include <string>

#include <cuda_runtime_api.h>

#include <wr/wr.h>

#include "cuda_errors.h"

using Catch::Matchers::Contains;

TEST_CASE("CUDA errors: only cudaErrorInvalidValue makes a pointer the caller's mistake") {
  using wr::cuda::status_of_pointer_query;
  CHECK(status_of_pointer_query(cudaErrorInvalidValue) == WR_ERROR_INVALID_ARGUMENT);
  // After a kernel fault every call fails so: the device's error, not the pointer's.
  for (cudaError_t err : {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorMisalignedAddress,
                          cudaErrorInitializationError, cudaErrorDeviceUninitialized, cudaErrorUnknown})
    CHECK(status_of_pointer_query(err) == WR_ERROR_DEVICE);
  CHECK(status_of_pointer_query(cudaErrorMemoryAllocation) == WR_ERROR_OUT_OF_MEMORY);
}

TEST_CASE("CUDA errors: failed operations are device errors, but for memory") {
  using wr::cuda::status_of_error;
  CHECK(status_of_error(cudaErrorMemoryAllocation) == WR_ERROR_OUT_OF_MEMORY);
  for (cudaError_t err : {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorInvalidValue,
                          cudaErrorStreamCaptureUnsupported, cudaErrorNoKernelImageForDevice})
    CHECK(status_of_error(err) == WR_ERROR_DEVICE);
}

TEST_CASE("CUDA errors: no driver, an old driver and no device are told apart") {
  using wr::cuda::no_device_reason;
  // No driver at all: the runtime says "insufficient driver", which would send users to update a
  // driver they do not have.
  const std::string none = no_device_reason(cudaErrorInsufficientDriver, 0, 13000);
  CHECK_THAT(none, Contains("no NVIDIA driver was found"));
  CHECK_THAT(none, Contains("built with CUDA 13.0"));
  CHECK_THAT(none, Contains("R580 or newer"));
  CHECK_THAT(none, !Contains("insufficient"));
  const std::string old = no_device_reason(cudaErrorInsufficientDriver, 12080, 13000);
  CHECK_THAT(old, Contains("supports CUDA 12.8 only"));
  CHECK_THAT(old, Contains("R580"));
  CHECK_THAT(no_device_reason(cudaErrorNoDevice, 13000, 13000), Contains("finds no CUDA device"));
  CHECK(wr::cuda::minimum_driver(12040) == "R525");
  CHECK(wr::cuda::minimum_driver(13010) == "R580");
  CHECK(wr::cuda::minimum_driver(11080) == "R450");
}

TEST_CASE("CUDA errors: on a machine without a driver, a CUDA context says so") {
  int driver = -1;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver != 0) {
    WARN("skipped: this machine has an NVIDIA driver (CUDA " << driver / 1000 << "." << driver % 1000 / 10 << ")");
    SUCCEED();
    return;
  }
  wr_context ctx = nullptr;
  REQUIRE(wr_context_create(WR_DEVICE_CUDA, 0, &ctx) == WR_ERROR_UNSUPPORTED);
  CHECK(ctx == nullptr);
  const std::string message = wr_last_error();
  CHECK_THAT(message, Contains("wr_context_create: no NVIDIA driver was found"));
  CHECK_THAT(message, Contains(wr::cuda::minimum_driver(CUDART_VERSION)));
}
