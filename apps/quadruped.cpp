#include "quadruped.h"

#include <cmath>

namespace wr_demo {

namespace {

constexpr float kPi = 3.14159265358979f;

// Standing pose and trot amplitudes, radians. Hip pitch about the trunk's +Y (positive swings the
// thigh's lower end backwards), knee angle relative to the thigh (negative folds the shank forwards):
// at h0, k0 the foot is straight below the hip, 0.31 m down.
constexpr float kHip0 = 0.8f, kHipAmplitude = 0.35f;
constexpr float kKnee0 = -1.6f, kKneeAmplitude = 0.3f;

struct Vec3 {
  float x, y, z;
};

Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }

// Hamilton product a b of quaternions (w, x, y, z).
void quat_mul(const float a[4], const float b[4], float out[4]) {
  out[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  out[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  out[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  out[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

// v turned by the unit quaternion q (w, x, y, z): v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z).
Vec3 rotate(const float q[4], Vec3 v) {
  const Vec3 u{q[1], q[2], q[3]};
  const Vec3 c{u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x};
  const Vec3 cc{u.y * c.z - u.z * c.y, u.z * c.x - u.x * c.z, u.x * c.y - u.y * c.x};
  return {v.x + 2 * (q[0] * c.x + cc.x), v.y + 2 * (q[0] * c.y + cc.y), v.z + 2 * (q[0] * c.z + cc.z)};
}

// A segment of length `length` hanging from `joint` (trunk frame) along -Z of its frame, pitched by
// `pitch` about +Y: writes its centre's world pose for a body at `body` and returns its lower
// joint (trunk frame).
Vec3 segment_pose(const float body[7], Vec3 joint, float pitch, float length, float out[7]) {
  const float s = std::sin(pitch), c = std::cos(pitch);
  const Vec3 down{-s * length, 0, -c * length};  // Ry(pitch) (0, 0, -length)
  const Vec3 centre = joint + Vec3{down.x / 2, down.y / 2, down.z / 2};
  const Vec3 world = Vec3{body[0], body[1], body[2]} + rotate(body + 3, centre);
  const float local[4] = {std::cos(pitch / 2), 0, std::sin(pitch / 2), 0};
  out[0] = world.x, out[1] = world.y, out[2] = world.z;
  quat_mul(body + 3, local, out + 3);
  return joint + down;
}

}  // namespace

wr_tools::TriangleMesh box_mesh(float sx, float sy, float sz) {
  wr_tools::TriangleMesh m;
  for (int i = 0; i < 8; ++i) {  // corner i: bit 0 x, bit 1 y, bit 2 z
    m.vertices.push_back((i & 1 ? 0.5f : -0.5f) * sx);
    m.vertices.push_back((i & 2 ? 0.5f : -0.5f) * sy);
    m.vertices.push_back((i & 4 ? 0.5f : -0.5f) * sz);
  }
  // Two triangles per face (winding does not matter to the library: both faces are hit).
  m.indices = {0, 1, 3, 0, 3, 2, 4, 5, 7, 4, 7, 6,   // -z, +z
               0, 1, 5, 0, 5, 4, 2, 3, 7, 2, 7, 6,   // -y, +y
               0, 2, 6, 0, 6, 4, 1, 3, 7, 1, 7, 5};  // -x, +x
  return m;
}

void quadruped_slots(uint32_t prototypes[kQuadrupedSlots], uint32_t groups[kQuadrupedSlots]) {
  prototypes[0] = kTrunkPrototype, groups[0] = kTrunkGroup;
  for (uint32_t i = 1; i < kQuadrupedSlots; ++i) prototypes[i] = kSegmentPrototype, groups[i] = kLegGroup;
}

void quadruped_poses(const QuadrupedShape& shape, const float body[7], float phase, float out[kQuadrupedSlots * 7]) {
  for (int i = 0; i < 7; ++i) out[i] = body[i];  // slot 0: the trunk is the body
  // Legs front left, front right, rear left, rear right; a trot moves FL with RR and FR with RL.
  const float side_x[4] = {1, 1, -1, -1}, side_y[4] = {1, -1, 1, -1}, offset[4] = {0, kPi, kPi, 0};
  for (int leg = 0; leg < 4; ++leg) {
    const float p = phase + offset[leg];
    const float hip = kHip0 + kHipAmplitude * std::sin(p), knee = kKnee0 + kKneeAmplitude * std::cos(p);
    const Vec3 hip_joint{side_x[leg] * shape.hip_x, side_y[leg] * shape.hip_y, shape.hip_z};
    float* thigh = out + 7 * (1 + 2 * leg);
    const Vec3 knee_joint = segment_pose(body, hip_joint, hip, shape.segment[2], thigh);
    segment_pose(body, knee_joint, hip + knee, shape.segment[2], thigh + 7);
  }
}

}  // namespace wr_demo
