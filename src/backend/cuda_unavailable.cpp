// The CUDA backend's stand-in in a build without CUDA (-DWR_ENABLE_CUDA=OFF, or no nvcc where it
// was configured): a CUDA context is refused with the reason, and everything else works on the CPU.
#include <string>

#include "backend/backend.h"
#include "errors/status_error.h"

namespace wr {

std::unique_ptr<DeviceBackend> make_cuda_backend(const char* function, int) {
  fail(WR_ERROR_UNSUPPORTED, std::string(function) +
                                 ": WR_DEVICE_CUDA asked for, but this libwr was built without CUDA (configure "
                                 "with -DWR_ENABLE_CUDA=ON where nvcc exists)");
}

}  // namespace wr
