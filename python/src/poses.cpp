// warp_raycaster._wr.gather_poses: wr_gather_poses (wr_poses.h), poses from positions and rotation
// matrices gathered at an index table, on the context's device (or the host without one). The
// MuJoCo layer (warp_raycaster/mujoco.py) fills its sensors' poses through it, from MjData, batch
// arrays or mujoco_warp's Data, on the CPU and on a GPU alike.
#include "poses.h"

#include <array>
#include <cstdint>
#include <string>

#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>

#include <wr/wr.h>
#include <wr/wr.hpp>

#include "arrays.h"
#include "objects.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace wrpy {
namespace {

std::string shape_of(const Array& a) {
  std::string s = "(";
  for (int i = 0; i < a.ndim && i < 4; ++i) s += (i ? ", " : "") + std::to_string(a.shape[i]);
  return s + (a.ndim == 1 ? ",)" : ")");
}

void gather_poses(nb::handle context, nb::handle positions, nb::handle matrices, nb::handle indices, nb::handle out,
                  std::array<float, 9> frame, wr_quat_order order, uintptr_t stream, int64_t expected_items,
                  const std::string& function, const std::string& pos_name, const std::string& mat_name) {
  const char* fn = function.c_str();
  wr_context ctx = nullptr;
  DeviceSpec device{WR_DEVICE_CPU, 0};
  if (!context.is_none()) {
    const ContextObj& c = nb::cast<const ContextObj&>(context);
    ctx = c.context.get();
    device = c.device;
  }
  // positions: (num_batches, items, 3), or (items, 3) for one batch; matrices the same leading axes
  // and then 9 or 3 x 3; both float32 or both float64.
  const Array p =
      take_array(positions, {fn, pos_name.c_str(), false, {Dtype::kFloat32, Dtype::kFloat64}, {}, ""}, device, true);
  const Array r =
      take_array(matrices, {fn, mat_name.c_str(), false, {Dtype::kFloat32, Dtype::kFloat64}, {}, ""}, device, true);
  const bool batched = p.ndim == 3;
  if (!((p.ndim == 2 || p.ndim == 3) && p.shape[p.ndim - 1] == 3))
    invalid_argument(fn, pos_name + " has shape " + shape_of(p) + ": expected (num_envs, items, 3) or (items, 3)");
  const int64_t batches = batched ? p.shape[0] : 1, items = p.shape[p.ndim - 2];
  if (expected_items >= 0 && items != expected_items)
    invalid_argument(fn, pos_name + " has shape " + shape_of(p) + ": the model has " + std::to_string(expected_items) +
                             " of them: expected (num_envs, " + std::to_string(expected_items) + ", 3)");
  const int lead = batched ? 2 : 1;
  const bool flat = r.ndim == lead + 1 && r.shape[lead] == 9;
  const bool square = r.ndim == lead + 2 && r.shape[lead] == 3 && r.shape[lead + 1] == 3;
  if (!(flat || square) || r.shape[lead - 1] != items || (batched && r.shape[0] != batches))
    invalid_argument(fn, mat_name + " has shape " + shape_of(r) + ": expected " +
                             (batched ? "(" + std::to_string(batches) + ", " : std::string("(")) +
                             std::to_string(items) + ", 9) or (..., 3, 3), matching " + pos_name + " " + shape_of(p));
  if (p.dtype != r.dtype) invalid_argument(fn, pos_name + " and " + mat_name + " differ in dtype");
  const Array idx =
      take_array(indices, {fn, "indices", false, {Dtype::kUInt32, Dtype::kInt32}, {-1}, "(count,)"}, device);
  const int64_t count = idx.shape[0];
  const Array o =
      take_array(out, {fn, "out", true, {Dtype::kFloat32}, {batches, count, 7}, "(num_envs, count, 7)"}, device);
  if (batches > UINT32_MAX || items > UINT32_MAX)
    invalid_argument(fn, pos_name + " has more than 2^32 - 1 envs or items");
  wr_pose_gather_desc d;
  wr_pose_gather_desc_init(&d);
  d.scalar_type = p.dtype == Dtype::kFloat64 ? WR_SCALAR_FLOAT64 : WR_SCALAR_FLOAT32;
  d.positions = p.data;
  d.matrices = r.data;
  d.num_batches = static_cast<uint32_t>(batches);
  d.items_per_batch = static_cast<uint32_t>(items);
  d.indices = static_cast<const uint32_t*>(idx.data);
  d.count = static_cast<uint32_t>(count);
  for (int k = 0; k < 9; ++k) d.frame[k] = frame[k];
  d.quat_order = order;
  d.stream = reinterpret_cast<void*>(stream);
  wr_status status;
  {
    nb::gil_scoped_release release;
    status = wr_gather_poses(ctx, &d, static_cast<float*>(o.data));
  }
  if (status != WR_SUCCESS) throw wr::Error(status, wr_last_error());
}

}  // namespace

void register_poses(nb::module_& m) {
  m.def("gather_poses", &gather_poses, "context"_a.none(), "positions"_a, "matrices"_a, "indices"_a, "out"_a, "frame"_a,
        "quat_order"_a, "stream"_a = 0, "items"_a = -1, "function"_a = "gather_poses", "positions_name"_a = "positions",
        "matrices_name"_a = "matrices",
        "wr_gather_poses: out (num_envs, count, 7) = (positions[e, indices[i]], the quaternion of matrices[e, "
        "indices[i]] times frame) on the context's device (None: the host). positions (num_envs, items, 3) and "
        "matrices (num_envs, items, 9 or 3, 3), float32 or float64, or without the leading axis for one env; "
        "indices (count,) uint32 or int32; frame 9 floats, row-major (all 0: the identity). function and the "
        "names are what errors call the call and its arrays; items >= 0: the item count positions must have.");
}

}  // namespace wrpy
