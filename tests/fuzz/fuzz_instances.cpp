// Fuzz harness: instanced scenes (wr_scene_create_instanced) and renders and explicit rays through
// them, the table and every pose drawn from NaN, the infinities, huge, denormal and signed-zero
// values as often as from plain ones. On the room of fuzz_support.h, with two prototypes (a box
// and a tilted sliver):
//   - wr_scene_create_instanced succeeds exactly when every slot's and global's prototype index is
//     below num_prototypes and every given group below 32; otherwise it names the first bad entry
//     (slots before globals) and leaves the handle unwritten;
//   - wr_sensor_render_ex (failing on bad poses) succeeds exactly when every global pose, then
//     every env's slot poses, then every body pose is finite with a non-zero quaternion; otherwise
//     it names the first bad one (with its env and slot) and writes nothing;
//   - an isolating sensor renders the others and makes a bad env's output NaN and its ids
//     UINT32_MAX, counted and masked;
//   - every id is UINT32_MAX or an instance whose group the sensor does not exclude; where it is
//     UINT32_MAX the depth is the terrain-only sensor's, bit for bit; elsewhere it is no farther;
//   - the scalar path gives the same bits as the SIMD packet path this CPU runs;
//   - wr_scene_intersect_ex from each env's camera refuses the first bad origin or pose by name,
//     else gives ids in range and never of an excluded group.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace {

using wr_fuzz::check;
using wr_fuzz::pose_valid;

// The prototypes, on fuzz_support's context: a 0.6 x 0.4 x 0.2 box, and one sliver triangle.
const wr_scene* prototypes() {
  static const wr_scene* const made = [] {
    static wr_scene s[2] = {nullptr, nullptr};
    const float box[] = {-0.3f, -0.2f, -0.1f, 0.3f, -0.2f, -0.1f, 0.3f, 0.2f, -0.1f, -0.3f, 0.2f, -0.1f,
                         -0.3f, -0.2f, 0.1f,  0.3f, -0.2f, 0.1f,  0.3f, 0.2f, 0.1f,  -0.3f, 0.2f, 0.1f};
    const uint32_t tris[] = {0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6, 0, 4, 5, 0, 5, 1,
                             1, 5, 6, 1, 6, 2, 2, 6, 7, 2, 7, 3, 3, 7, 4, 3, 4, 0};
    const float sliver[] = {0, -1, -1, 0, 1, -1, 0.01f, 0, 1};
    const uint32_t one[] = {0, 1, 2};
    if (wr_scene_create(wr_fuzz::context(), box, 8, tris, 12, &s[0]) != WR_SUCCESS ||
        wr_scene_create(wr_fuzz::context(), sliver, 3, one, 1, &s[1]) != WR_SUCCESS)
      wr_fuzz::fail("wr_scene_create", wr_last_error());
    return s;
  }();
  return made;
}

// A pose: mostly plain ones in front of the room's cameras (so that instances are seen), some with
// special values anywhere.
void take_pose(wr_fuzz::Bytes& in, float* p) {
  const uint8_t kind = in.take<uint8_t>();
  if (kind < 200) {
    p[0] = 1.0f + float(in.below(60)) * 0.1f, p[1] = float(int(in.below(41)) - 20) * 0.1f;
    p[2] = float(in.below(30)) * 0.1f;
    for (int i = 3; i < 7; ++i) p[i] = float(int(in.below(21)) - 10) * 0.1f;
    if (p[3] == 0.0f && p[4] == 0.0f && p[5] == 0.0f && p[6] == 0.0f) p[3] = 1.0f;
    return;
  }
  for (int i = 0; i < 7; ++i) p[i] = in.take<uint8_t>() < 128 ? in.special_float() : float(in.below(5));
}

struct Render {
  wr_status status;
  std::string message;
  std::vector<float> depth;
  std::vector<uint32_t> ids;
  std::vector<uint8_t> mask;
  uint32_t bad = 0;
};

constexpr uint32_t kW = 12, kH = 9;

Render render(wr_scene scene, const wr_camera_desc& d, const wr_sensor_options& o, uint32_t n,
              const std::vector<float>& bodies, const std::vector<float>& slots, const std::vector<float>& globals,
              wr_cpu_path path) {
  check(wr_context_set_cpu_path(wr_fuzz::context(), path) == WR_SUCCESS || path != WR_CPU_PATH_SCALAR,
        "wr_context_set_cpu_path(scalar)");
  wr_sensor sensor = nullptr;
  check(wr_sensor_create_ex(scene, &d, &o, n, &sensor) == WR_SUCCESS, "wr_sensor_create_ex", wr_last_error());
  Render r;
  r.depth.assign(size_t(n) * kW * kH, -7.0f);
  r.ids.assign(r.depth.size(), 12345u);
  r.mask.assign(n, 9);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = bodies.data(), a.out = r.depth.data(), a.out_bytes = r.depth.size() * 4;
  a.instance_poses = slots.empty() ? nullptr : slots.data();
  a.global_poses = globals.empty() ? nullptr : globals.data();
  a.instance_ids = r.ids.data(), a.bad_env_count = &r.bad, a.bad_env_mask = r.mask.data();
  r.status = wr_sensor_render_ex(sensor, &a);
  r.message = r.status == WR_SUCCESS ? "" : wr_last_error();
  if (r.status != WR_SUCCESS) wr_fuzz::check_message(r.status, "wr_sensor_render_ex");
  wr_sensor_release(sensor);
  wr_context_set_cpu_path(wr_fuzz::context(), WR_CPU_PATH_AUTO);
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wr_fuzz::Bytes in(data, size);
  const uint32_t num_slots = in.below(4), num_globals = in.below(3), n = 1 + in.below(3);
  const uint8_t flags = in.take<uint8_t>();
  const bool isolate = flags & 1, groups_given = flags & 2;
  std::vector<uint32_t> slot_protos(num_slots), slot_groups(num_slots), global_protos(num_globals),
      global_groups(num_globals);
  // Mostly valid tables; now and then an index or group past its range.
  const auto index = [&] { return in.take<uint8_t>() < 240 ? in.below(2) : in.below(5); };
  const auto group = [&] { return in.take<uint8_t>() < 240 ? in.below(4) : in.below(40); };
  for (uint32_t i = 0; i < num_slots; ++i) slot_protos[i] = index(), slot_groups[i] = group();
  for (uint32_t i = 0; i < num_globals; ++i) global_protos[i] = index(), global_groups[i] = group();

  wr_instanced_scene_desc d;
  wr_instanced_scene_desc_init(&d);
  d.terrain = wr_fuzz::room_scene(), d.prototypes = prototypes(), d.num_prototypes = 2;
  d.slot_prototypes = slot_protos.data(), d.num_slots = num_slots;
  d.global_prototypes = global_protos.data(), d.num_globals = num_globals;
  if (groups_given) d.slot_groups = slot_groups.data(), d.global_groups = global_groups.data();
  // What the answer must be.
  std::string culprit;
  for (uint32_t i = 0; culprit.empty() && i < num_slots; ++i) {
    if (slot_protos[i] >= 2)
      culprit = "desc->slot_prototypes[" + std::to_string(i) + "]";
    else if (groups_given && slot_groups[i] >= 32)
      culprit = "desc->slot_groups[" + std::to_string(i) + "]";
  }
  for (uint32_t i = 0; culprit.empty() && i < num_globals; ++i) {
    if (global_protos[i] >= 2)
      culprit = "desc->global_prototypes[" + std::to_string(i) + "]";
    else if (groups_given && global_groups[i] >= 32)
      culprit = "desc->global_groups[" + std::to_string(i) + "]";
  }
  const wr_scene kUnwritten = reinterpret_cast<wr_scene>(uintptr_t(0x5a5a5a50));
  wr_scene scene = kUnwritten;
  const wr_status s = wr_scene_create_instanced(wr_fuzz::context(), &d, &scene);
  if (!culprit.empty()) {
    check(s == WR_ERROR_INVALID_ARGUMENT, "a bad table was not refused", culprit);
    wr_fuzz::check_message(s, "wr_scene_create_instanced");
    check(std::string(wr_last_error()).find(culprit) != std::string::npos, "the culprit is not named",
          culprit + " / " + wr_last_error());
    check(scene == kUnwritten, "a failed call wrote the handle");
    return 0;
  }
  check(s == WR_SUCCESS, "a good table was refused", wr_last_error());

  // Cameras in the room looking along +X (the room's wall at x = 8), bodies and instances fuzzed.
  std::vector<float> bodies(7 * n), slots(7ull * n * num_slots), globals(7 * num_globals);
  for (uint32_t e = 0; e < n; ++e) {
    const float plain[7] = {0.0f, float(e) * 0.3f, 1.0f, 1.0f, 0.0f, 0.1f, 0.0f};
    if (in.take<uint8_t>() < 230)
      std::memcpy(&bodies[7 * e], plain, sizeof plain);
    else
      for (int i = 0; i < 7; ++i) bodies[7 * e + i] = in.special_float();
  }
  for (size_t i = 0; i < slots.size(); i += 7) take_pose(in, &slots[i]);
  for (size_t i = 0; i < globals.size(); i += 7) take_pose(in, &globals[i]);
  const uint32_t exclude = in.take<uint8_t>() < 128 ? 0u : in.take<uint32_t>();

  std::string bad_pose;  // the first the library must name (globals, then slots, then bodies)
  for (uint32_t g = 0; bad_pose.empty() && g < num_globals; ++g)
    if (!pose_valid(&globals[7 * g])) bad_pose = "args->global_poses of global instance " + std::to_string(g);
  for (uint32_t e = 0; bad_pose.empty() && e < n; ++e)
    for (uint32_t k = 0; bad_pose.empty() && k < num_slots; ++k)
      if (!pose_valid(&slots[7ull * (e * num_slots + k)]))
        bad_pose = "args->instance_poses of env " + std::to_string(e) + ", slot " + std::to_string(k);
  for (uint32_t e = 0; bad_pose.empty() && e < n; ++e)
    if (!pose_valid(&bodies[7 * e])) bad_pose = "args->body_poses of env " + std::to_string(e);

  wr_camera_desc cd;
  wr_camera_desc_pinhole(&cd, kW, kH, 90.0f);
  cd.far_clip = 50.0f;
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.exclude_groups = exclude;
  o.bad_pose_mode = isolate ? WR_BAD_POSE_ISOLATE : WR_BAD_POSE_FAIL;
  const Render got = render(scene, cd, o, n, bodies, slots, globals, WR_CPU_PATH_AUTO);
  if (!isolate && !bad_pose.empty()) {
    check(got.status == WR_ERROR_INVALID_ARGUMENT, "a bad pose was not refused", bad_pose);
    check(got.message.find(bad_pose) != std::string::npos, "the first bad pose is not named",
          bad_pose + " / " + got.message);
    for (size_t k = 0; k < got.depth.size(); ++k)
      check(got.depth[k] == -7.0f && got.ids[k] == 12345u, "a refused render wrote its output");
    wr_scene_release(scene);
    return 0;
  }
  check(got.status == WR_SUCCESS, "a good render failed", got.message);
  const Render scalar = render(scene, cd, o, n, bodies, slots, globals, WR_CPU_PATH_SCALAR);
  check(std::memcmp(scalar.depth.data(), got.depth.data(), got.depth.size() * 4) == 0 && scalar.ids == got.ids,
        "the scalar path and the packet path differ");
  // The terrain alone, the same cameras (a body the instanced render isolates is bad here too).
  wr_sensor_options plain = o;
  plain.exclude_groups = 0;
  const Render terrain = render(wr_fuzz::room_scene(), cd, plain, n, bodies, {}, {}, WR_CPU_PATH_AUTO);
  const uint64_t pixels = uint64_t(kW) * kH;
  uint32_t bad_envs = 0;
  for (uint32_t e = 0; e < n; ++e) {
    bool env_bad = !pose_valid(&bodies[7 * e]);
    for (uint32_t g = 0; g < num_globals; ++g) env_bad = env_bad || !pose_valid(&globals[7 * g]);
    for (uint32_t k = 0; k < num_slots; ++k) env_bad = env_bad || !pose_valid(&slots[7ull * (e * num_slots + k)]);
    bad_envs += env_bad;
    check(got.mask[e] == (env_bad ? 1 : 0), "the bad-env mask is wrong", "env " + std::to_string(e));
    for (uint64_t k = e * pixels; k < (e + 1) * pixels; ++k) {
      const uint32_t id = got.ids[k];
      if (env_bad) {
        check(std::isnan(got.depth[k]) && id == UINT32_MAX, "an isolated env is not NaN with no ids");
        continue;
      }
      if (id == UINT32_MAX) {
        check(std::memcmp(&got.depth[k], &terrain.depth[k], 4) == 0, "a terrain pixel differs from the terrain's",
              std::to_string(got.depth[k]) + " vs " + std::to_string(terrain.depth[k]));
        continue;
      }
      check(id < num_slots + num_globals, "an id out of range", std::to_string(id));
      const uint32_t g = !groups_given ? 0u : id < num_slots ? slot_groups[id] : global_groups[id - num_slots];
      check(!(exclude >> g & 1u), "an excluded group was seen", std::to_string(id));
      check(got.depth[k] <= terrain.depth[k], "an instance hit behind the terrain's",
            std::to_string(got.depth[k]) + " vs " + std::to_string(terrain.depth[k]));
    }
  }
  check(got.bad == bad_envs, "the bad-env count is wrong");

  // Explicit rays from each env's camera along +X: refused naming the first bad origin, then the
  // first bad pose (globals, then slots); else ids in range and never of an excluded group.
  std::vector<float> origins(3 * n), directions(3 * n, 0.0f), t(n, -1.0f);
  std::vector<uint32_t> tri(n), inst(n);
  for (uint32_t e = 0; e < n; ++e) {
    for (int k = 0; k < 3; ++k) origins[3 * e + k] = bodies[7 * e + k];
    directions[3 * e] = 1.0f;  // +X in the world
  }
  wr_intersect_args ia;
  wr_intersect_args_init(&ia);
  ia.origins = origins.data(), ia.directions = directions.data(), ia.count = n, ia.num_envs = n;
  ia.instance_poses = slots.empty() ? nullptr : slots.data(),
  ia.global_poses = globals.empty() ? nullptr : globals.data();
  ia.exclude_groups = exclude, ia.out_t = t.data(), ia.out_triangle = tri.data(), ia.out_instance = inst.data();
  const wr_status si = wr_scene_intersect_ex(scene, &ia);
  std::string first_bad_ray;
  for (uint32_t e = 0; e < n && first_bad_ray.empty(); ++e)
    if (!(std::isfinite(origins[3 * e]) && std::isfinite(origins[3 * e + 1]) && std::isfinite(origins[3 * e + 2])))
      first_bad_ray = "origins of ray " + std::to_string(e);
  if (first_bad_ray.empty()) {
    for (uint32_t g = 0; first_bad_ray.empty() && g < num_globals; ++g)
      if (!pose_valid(&globals[7 * g])) first_bad_ray = "args->global_poses of global instance " + std::to_string(g);
    for (uint32_t e = 0; first_bad_ray.empty() && e < n; ++e)
      for (uint32_t k = 0; first_bad_ray.empty() && k < num_slots; ++k)
        if (!pose_valid(&slots[7ull * (e * num_slots + k)]))
          first_bad_ray = "args->instance_poses of env " + std::to_string(e) + ", slot " + std::to_string(k);
  }
  if (!first_bad_ray.empty()) {
    check(si == WR_ERROR_INVALID_ARGUMENT, "bad rays or poses were not refused", first_bad_ray);
    wr_fuzz::check_message(si, "wr_scene_intersect_ex");
    check(std::string(wr_last_error()).find(first_bad_ray) != std::string::npos, "the first bad one is not named",
          first_bad_ray + " / " + wr_last_error());
    for (uint32_t e = 0; e < n; ++e) check(t[e] == -1.0f, "a refused call wrote results");
  } else {
    check(si == WR_SUCCESS, "good rays were refused", wr_last_error());
    for (uint32_t e = 0; e < n; ++e) {
      const uint32_t id = inst[e];
      check(id == UINT32_MAX || id < num_slots + num_globals, "a ray's instance id is out of range");
      if (id != UINT32_MAX) {
        const uint32_t g = !groups_given ? 0u : id < num_slots ? slot_groups[id] : global_groups[id - num_slots];
        check(!(exclude >> g & 1u), "a ray saw an excluded group", std::to_string(id));
      }
      check(tri[e] == UINT32_MAX ? std::isinf(t[e]) : t[e] >= 0.0f, "a ray's t does not match its hit");
    }
  }
  wr_scene_release(scene);
  return 0;
}
