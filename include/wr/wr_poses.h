/* warp-raycaster C API, poses from rotation matrices. Part of wr.h, which includes this file at its
 * end (include wr.h, not this file): the types it builds on (wr_context, wr_quat_order, WR_API) are
 * wr.h's, and so are its conventions (sized structs, errors, streams). */
#ifndef WR_WR_POSES_H
#define WR_WR_POSES_H

#include "wr/wr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Poses from rotation matrices ------------------------------------------------------------

   Simulators that keep rotations as matrices (MuJoCo's geom_xmat, cam_xmat, site_xmat; mujoco_warp's
   Data, on the CPU or a GPU) give a sensor its poses through wr_gather_poses: for each of
   num_batches batches (envs) and each of `count` entries of `indices`, the item indices[i] of that
   batch (a geom, a camera) becomes one pose record (x, y, z, then a unit quaternion in quat_order):

     out[b][i] = (positions[b][indices[i]],  quat(matrices[b][indices[i]] * frame))

   positions (num_batches x items_per_batch x 3) and matrices (num_batches x items_per_batch x 9,
   row-major) are float or double (scalar_type), C-contiguous; `frame` is a rotation (row-major)
   applied on the right, e.g. a camera's axes turned into the library's (all zero: the identity).
   The quaternion is Shepperd's (w >= 0 where the trace is the largest term), computed in double;
   a non-finite input gives a non-finite pose, which a render then refuses or isolates.

   ctx NULL: on the calling thread, in host memory. A CPU context: the same, in host memory. A CUDA
   context: every pointer is device memory of the context's GPU, the work is enqueued on
   desc->stream (NULL: the default stream) and nothing is allocated or synchronised (capture-safe);
   an index past items_per_batch writes a NaN pose there, where the host refuses it by name
   before writing anything. */

typedef enum wr_scalar_type { WR_SCALAR_FLOAT32 = 0, WR_SCALAR_FLOAT64 = 1 } wr_scalar_type;

typedef struct wr_pose_gather_desc {
  uint32_t struct_size;       /* set by wr_pose_gather_desc_init */
  wr_scalar_type scalar_type; /* of positions and matrices */
  const void* positions;      /* (num_batches x items_per_batch x 3) */
  const void* matrices;       /* (num_batches x items_per_batch x 9), row-major */
  uint32_t num_batches;       /* envs */
  uint32_t items_per_batch;   /* e.g. the model's ngeom */
  const uint32_t* indices;    /* (count): the item of each pose of a batch */
  uint32_t count;             /* poses per batch; num_batches x count < 2^31 */
  float frame[9];             /* row-major rotation applied on the right; all zero: the identity */
  wr_quat_order quat_order;   /* of the output quaternions */
  void* stream;               /* cudaStream_t on a CUDA context */
} wr_pose_gather_desc;

/* Zeroes desc and sets struct_size (float32, the identity frame, w x y z). A NULL desc does nothing. */
WR_API void wr_pose_gather_desc_init(wr_pose_gather_desc* desc);

/* out: (num_batches x count x 7) floats. On the host, a bad argument or index fails naming it and
   writes nothing. */
WR_API wr_status wr_gather_poses(wr_context ctx, const wr_pose_gather_desc* desc, float* out);

#ifdef __cplusplus
}
#endif

#endif /* WR_WR_POSES_H */
