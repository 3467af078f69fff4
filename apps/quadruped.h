// The demo's robot body for --self-occlusion: a quadruped made of boxes, posed by forward
// kinematics. Geometry only (no wr calls): the demo builds the meshes into wr scenes.
//
// Slot layout, one instance per slot and 9 slots per env: slot 0 is the trunk, then for each leg
// (front left, front right, rear left, rear right) its thigh and its shank. Body frame as the
// library's: +X forward, +Y left, +Z up, metres; each box is centred on its own origin, so that an
// instance's pose is the pose of the box's centre.
#pragma once

#include <cstdint>

#include "triangle_mesh.h"  // tools/common

namespace wr_demo {

/// A box of full extents sx x sy x sz metres centred on the origin, axis-aligned: 8 vertices, 12 triangles.
wr_tools::TriangleMesh box_mesh(float sx, float sy, float sz);

constexpr uint32_t kQuadrupedSlots = 9;    // trunk + 4 legs x (thigh, shank)
constexpr uint32_t kTrunkPrototype = 0;    // the trunk box
constexpr uint32_t kSegmentPrototype = 1;  // the leg segment box (thighs and shanks are the same size)
constexpr uint32_t kTrunkGroup = 0;
constexpr uint32_t kLegGroup = 1;

/// Sizes (full extents, metres) and the joints' places. The hips sit at the trunk's corners, just
/// outside its sides; each segment hangs from its upper joint along -Z of its own frame.
struct QuadrupedShape {
  float trunk[3] = {0.6f, 0.3f, 0.15f};
  float segment[3] = {0.05f, 0.05f, 0.22f};            // thigh and shank
  float hip_x = 0.25f, hip_y = 0.18f, hip_z = -0.04f;  // hip joints at (+-hip_x, +-hip_y, hip_z) in the trunk frame
};

/// The prototype (kTrunkPrototype, kSegmentPrototype) and group (kTrunkGroup, kLegGroup) of each slot.
void quadruped_slots(uint32_t prototypes[kQuadrupedSlots], uint32_t groups[kQuadrupedSlots]);

/// The world poses of the 9 slots (9 x 7 floats: position, quaternion w x y z) of a robot whose
/// trunk is at `body` (7 floats, position + quaternion w x y z), trotting at gait phase `phase`
/// (radians): diagonal legs in phase, the two pairs half a cycle apart; each leg's hip pitch and
/// knee angle are sinusoids of its phase around a standing pose with the feet below the hips.
void quadruped_poses(const QuadrupedShape& shape, const float body[7], float phase, float out[kQuadrupedSlots * 7]);

}  // namespace wr_demo
