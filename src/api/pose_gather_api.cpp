// The C API's poses from rotation matrices (wr_poses.h): wr_gather_poses's checks at the boundary,
// then core/pose_gather.h on the calling thread (no context) or the context's device.
#include <cstring>
#include <string>

#include <wr/wr.h>

#include "api/api_guard.h"
#include "api/handles.h"
#include "api/sized_struct.h"
#include "errors/field_checks.h"

using wr::api_guard;
using wr::fail;
using wr::require_array;
using wr::require_non_null;

extern "C" {

wr_status wr_gather_poses(wr_context ctx, const wr_pose_gather_desc* desc_in, float* out) {
  const char* fn = "wr_gather_poses";
  return api_guard(fn, [&] {
    require_non_null(fn, desc_in, "desc");
    const wr_pose_gather_desc d = wr::read_sized_struct(fn, desc_in, "desc");
    int type, order;
    std::memcpy(&type, &d.scalar_type, sizeof type);
    std::memcpy(&order, &d.quat_order, sizeof order);
    if (type != WR_SCALAR_FLOAT32 && type != WR_SCALAR_FLOAT64)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": desc->scalar_type = " + std::to_string(type) +
                                          ": must be WR_SCALAR_FLOAT32 (0) or WR_SCALAR_FLOAT64 (1)");
    if (order != WR_QUAT_WXYZ && order != WR_QUAT_XYZW)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": desc->quat_order = " + std::to_string(order) +
                                          ": must be WR_QUAT_WXYZ (0) or WR_QUAT_XYZW (1)");
    const uint64_t n = uint64_t(d.num_batches) * d.count;
    if (n >= (uint64_t(1) << 31))
      fail(WR_ERROR_INVALID_ARGUMENT,
           std::string(fn) + ": desc->num_batches x desc->count = " + std::to_string(n) + ": must be below 2^31");
    wr::PoseGather g{};
    g.f64 = type == WR_SCALAR_FLOAT64;
    g.num_batches = d.num_batches;
    g.items_per_batch = d.items_per_batch;
    g.count = d.count;
    g.xyzw = order == WR_QUAT_XYZW;
    bool zero = true;
    for (int k = 0; k < 9; ++k) {
      wr::require_finite_field(fn, "desc->frame[" + std::to_string(k) + "]", d.frame[k]);
      zero = zero && d.frame[k] == 0.0f;
    }
    for (int k = 0; k < 9; ++k) g.frame[k] = zero ? (k % 4 == 0 ? 1.0 : 0.0) : static_cast<double>(d.frame[k]);
    if (n == 0) return;  // nothing to write
    if (d.items_per_batch == 0)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": desc->items_per_batch = 0 with desc->count = " +
                                          std::to_string(d.count) + ": there is no item to gather");
    const uint64_t elements = uint64_t(d.num_batches) * d.items_per_batch * 9;
    if (elements > (uint64_t(1) << 60))
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": desc->num_batches x desc->items_per_batch is too large");
    require_non_null(fn, d.positions, "desc->positions");
    require_non_null(fn, d.matrices, "desc->matrices");
    const uintptr_t align = g.f64 ? sizeof(double) : sizeof(float);
    if (reinterpret_cast<uintptr_t>(d.positions) % align || reinterpret_cast<uintptr_t>(d.matrices) % align)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": desc->positions and desc->matrices must be aligned to " +
                                          std::to_string(align) + " bytes (their scalar type)");
    require_array(fn, d.indices, "desc->indices");
    require_array(fn, out, "out");
    g.positions = d.positions;
    g.matrices = d.matrices;
    g.indices = d.indices;
    g.out = out;
    const bool on_host = !ctx || ctx->device->reads_host_memory();
    if (on_host) {
      // Every index checked before anything is written (a device gather writes NaN instead).
      for (uint32_t i = 0; i < d.count; ++i)
        if (d.indices[i] >= d.items_per_batch)
          fail(WR_ERROR_INVALID_ARGUMENT,
               std::string(fn) + ": desc->indices[" + std::to_string(i) + "] = " + std::to_string(d.indices[i]) +
                   ": must be < desc->items_per_batch = " + std::to_string(d.items_per_batch));
    }
    if (!ctx) {
      for (uint64_t i = 0; i < n; ++i) wr::gather_pose(g, i);
      return;
    }
    ctx->device->gather_poses(fn, g, d.stream);
  });
}

}  // extern "C"
