// Context (wr_context) and Scene (wr_scene): the devices, and the terrains and instanced scenes
// with their explicit rays (wr_scene_intersect, _ex).
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <wr/wr.h>
#include <wr/wr.hpp>

#include "arrays.h"
#include "bind.h"
#include "objects.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace wrpy {

void register_scene(nb::module_& m) {
  // ---- context ----
  nb::class_<ContextObj>(m, "Context", "wr_context: a CPU thread pool or one CUDA GPU, and its allocator.")
      .def(
          "__init__",
          [](ContextObj* self, wr_device device, int ordinal, uint32_t threads) {
            nb::gil_scoped_release release;  // a CUDA context initialises the driver
            if (device == WR_DEVICE_CPU)
              new (self) ContextObj{wr::Context::cpu(threads), DeviceSpec{WR_DEVICE_CPU, 0}};
            else
              new (self) ContextObj{wr::Context::cuda(ordinal), DeviceSpec{WR_DEVICE_CUDA, ordinal}};
          },
          "device"_a, "ordinal"_a = 0, "threads"_a = 0,
          "wr_context_create_cpu(threads) for Device.CPU (0 threads = one per hardware thread), "
          "wr_context_create(WR_DEVICE_CUDA, ordinal) for Device.CUDA.")
      .def_prop_ro("device", [](const ContextObj& c) { return c.device.device; })
      .def_prop_ro(
          "ordinal", [](const ContextObj& c) { return c.device.ordinal; }, "CUDA device index (0 on the CPU).")
      .def_prop_ro(
          "num_threads", [](const ContextObj& c) { return c.context.num_threads(); },
          "wr_context_num_threads (1 for a CUDA context's host side).")
      .def_prop_rw(
          "cpu_path", [](const ContextObj& c) { return c.context.cpu_path(); },
          [](ContextObj& c, wr_cpu_path p) { c.context.set_cpu_path(p); },
          "wr_context_cpu_path / wr_context_set_cpu_path (CPU contexts).");

  // ---- scene ----
  nb::class_<SceneObj>(
      m, "Scene",
      "wr_scene: an immutable terrain (a triangle BVH, a height field's grid or a grid mesh's grid) and, "
      "for an instanced scene, its prototypes and instance table.")
      .def(
          "__init__",
          [](SceneObj* self, const ContextObj& context, nb::handle vertices, nb::handle indices) {
            // The library copies the mesh from host memory on every context (wr_scene_create).
            const DeviceSpec host{WR_DEVICE_CPU, 0};
            Array v = take_array(vertices,
                                 {"Scene", "vertices", false, {Dtype::kFloat32}, {-1, 3}, "(num_vertices, 3)"}, host);
            Array i = take_array(
                indices, {"Scene", "indices", false, {Dtype::kUInt32, Dtype::kInt32}, {-1, 3}, "(num_triangles, 3)"},
                host);
            nb::gil_scoped_release release;
            new (self)
                SceneObj{wr::Scene::from_arrays(context.context, static_cast<const float*>(v.data),
                                                static_cast<uint64_t>(v.shape[0]), static_cast<const uint32_t*>(i.data),
                                                static_cast<uint64_t>(i.shape[0])),
                         context.device};
          },
          "context"_a, "vertices"_a.none(), "indices"_a.none(),
          "wr_scene_create: vertices (num_vertices, 3) float32 and indices (num_triangles, 3) uint32 or "
          "int32, host memory, C-contiguous; both copied.")
      .def_static(
          "load_obj",
          [](const ContextObj& context, const std::string& path) {
            nb::gil_scoped_release release;
            return SceneObj{wr::Scene::load_obj(context.context, path), context.device};
          },
          "context"_a, "path"_a, "wr_scene_load_obj: every shape of a Wavefront OBJ file merged into one mesh.")
      .def_static(
          "create_heightfield",
          [](const ContextObj& context, nb::handle heights, bool x_fastest, float spacing_x, float spacing_y,
             float z_scale, std::array<float, 3> origin, float base_depth, int terrain) {
            const DeviceSpec host{WR_DEVICE_CPU, 0};
            Array h = take_array(heights,
                                 {"Scene.from_heightfield",
                                  "heights",
                                  false,
                                  {Dtype::kFloat32},
                                  {-1, -1},
                                  x_fastest ? "(num_y, num_x)" : "(num_x, num_y)"},
                                 host);
            wr_heightfield_desc d;
            wr_heightfield_desc_init(&d);
            d.heights = static_cast<const float*>(h.data);
            // The array's slow axis is y for heights[iy, ix] (x fastest), x for heights[ix, iy].
            const uint64_t slow = static_cast<uint64_t>(h.shape[0]), fast = static_cast<uint64_t>(h.shape[1]);
            const uint64_t nx = x_fastest ? fast : slow, ny = x_fastest ? slow : fast;
            if (nx > UINT32_MAX || ny > UINT32_MAX)
              throw wr::Error(WR_ERROR_INVALID_ARGUMENT,
                              "Scene.from_heightfield: heights has more than 2^32 - 1 "
                              "samples along an axis");
            d.num_x = static_cast<uint32_t>(nx), d.num_y = static_cast<uint32_t>(ny);
            d.layout = x_fastest ? WR_HEIGHTFIELD_X_FASTEST : WR_HEIGHTFIELD_Y_FASTEST;
            d.spacing_x = spacing_x, d.spacing_y = spacing_y, d.z_scale = z_scale, d.base_depth = base_depth;
            for (int i = 0; i < 3; ++i) d.origin[i] = origin[i];
            std::memcpy(&d.terrain, &terrain, sizeof terrain);  // the library names a bad value
            nb::gil_scoped_release release;
            return SceneObj{wr::Scene::from_heightfield(context.context, d), context.device};
          },
          "context"_a, "heights"_a.none(), "x_fastest"_a, "spacing_x"_a, "spacing_y"_a, "z_scale"_a, "origin"_a,
          "base_depth"_a, "terrain"_a = 0,
          "wr_scene_create_heightfield: heights (num_y, num_x) float32 with x_fastest (heights[iy, ix]), else "
          "(num_x, num_y), host memory, C-contiguous; copied. terrain: a wr_terrain_kind (0 auto, 1 bvh, 2 grid).")
      .def_static(
          "create_grid_mesh",
          [](const ContextObj& context, nb::handle vertices, nb::handle indices) {
            const DeviceSpec host{WR_DEVICE_CPU, 0};
            Array v = take_array(
                vertices, {"Scene.from_grid_mesh", "vertices", false, {Dtype::kFloat32}, {-1, 3}, "(num_vertices, 3)"},
                host);
            Array i = take_array(indices,
                                 {"Scene.from_grid_mesh",
                                  "indices",
                                  false,
                                  {Dtype::kUInt32, Dtype::kInt32},
                                  {-1, 3},
                                  "(num_triangles, 3)"},
                                 host);
            nb::gil_scoped_release release;
            return SceneObj{wr::Scene::from_grid_mesh(
                                context.context, static_cast<const float*>(v.data), static_cast<uint64_t>(v.shape[0]),
                                static_cast<const uint32_t*>(i.data), static_cast<uint64_t>(i.shape[0])),
                            context.device};
          },
          "context"_a, "vertices"_a.none(), "indices"_a.none(),
          "wr_scene_create_grid_mesh: legged_gym's convert_heightfield_to_trimesh arrays, vertices "
          "(num_vertices, 3) float32 and indices (num_triangles, 3) uint32 or int32, host memory, "
          "C-contiguous; both copied.")
      .def_prop_ro(
          "terrain_kind", [](const SceneObj& s) { return std::string(wr_terrain_kind_string(s.scene.terrain_kind())); },
          "wr_scene_terrain_kind: 'bvh' or 'grid'.")
      .def_static(
          "create_instanced",
          [](const ContextObj& context, const SceneObj& terrain, nb::typed<nb::sequence, SceneObj> prototypes,
             std::vector<uint32_t> slot_prototypes, std::optional<std::vector<uint32_t>> slot_groups,
             std::vector<uint32_t> global_prototypes, std::optional<std::vector<uint32_t>> global_groups) {
            const char* fn = "Scene.instanced";
            std::vector<wr_scene> handles;
            size_t i = 0;
            for (nb::handle p : prototypes) {
              SceneObj* scene = nullptr;
              if (!nb::try_cast(p, scene) || !scene)
                invalid_argument(fn, "prototypes[" + std::to_string(i) + "] is not a Scene");
              handles.push_back(scene->scene.get());
              ++i;
            }
            if (slot_groups && slot_groups->size() != slot_prototypes.size())
              invalid_argument(fn, "slot_groups has " + std::to_string(slot_groups->size()) +
                                       " entries, slot_prototypes " + std::to_string(slot_prototypes.size()) +
                                       ": one group per slot");
            if (global_groups && global_groups->size() != global_prototypes.size())
              invalid_argument(fn, "global_groups has " + std::to_string(global_groups->size()) +
                                       " entries, global_prototypes " + std::to_string(global_prototypes.size()) +
                                       ": one group per global");
            if (handles.size() > UINT32_MAX || slot_prototypes.size() > UINT32_MAX ||
                global_prototypes.size() > UINT32_MAX)
              invalid_argument(fn, "more than 2^32 - 1 prototypes or instances");
            wr_instanced_scene_desc d;
            wr_instanced_scene_desc_init(&d);
            d.terrain = terrain.scene.get();
            d.prototypes = handles.data();
            d.num_prototypes = static_cast<uint32_t>(handles.size());
            d.slot_prototypes = slot_prototypes.data();
            d.slot_groups = slot_groups ? slot_groups->data() : nullptr;
            d.num_slots = static_cast<uint32_t>(slot_prototypes.size());
            d.global_prototypes = global_prototypes.data();
            d.global_groups = global_groups ? global_groups->data() : nullptr;
            d.num_globals = static_cast<uint32_t>(global_prototypes.size());
            nb::gil_scoped_release release;
            return SceneObj{wr::Scene::instanced(context.context, d), context.device};
          },
          "context"_a, "terrain"_a, "prototypes"_a, "slot_prototypes"_a, "slot_groups"_a.none(), "global_prototypes"_a,
          "global_groups"_a.none(),
          "wr_scene_create_instanced: the terrain and the prototypes (mesh scenes of this context), each "
          "env's slots (the prototype of each, and its group 0-31, or None: all 0) and the global instances "
          "(likewise). The tables are copied; the new scene keeps the terrain and prototypes alive.")
      .def_prop_ro(
          "instance_counts",
          [](const SceneObj& s) {
            const std::array<uint32_t, 2> n = s.scene.instance_counts();
            return std::make_tuple(n[0], n[1]);
          },
          "wr_scene_instance_counts: (num_slots, num_globals), (0, 0) for a mesh scene.")
      .def_prop_ro("num_triangles", [](const SceneObj& s) { return s.scene.num_triangles(); })
      .def_prop_ro("build_seconds", [](const SceneObj& s) { return s.scene.build_seconds(); })
      .def_prop_ro(
          "bounds",
          [](const SceneObj& s) {
            wr::Scene::Bounds b = s.scene.bounds();
            return std::make_pair(std::make_tuple(b.min[0], b.min[1], b.min[2]),
                                  std::make_tuple(b.max[0], b.max[1], b.max[2]));
          },
          "wr_scene_bounds: ((min x, y, z), (max x, y, z)) of the triangles' corners, metres.")
      .def(
          "memory",
          [](const SceneObj& s) {
            return memory_dict(s.scene.memory(), [&](wr_memory_tag t, uint64_t* host, uint64_t* device) {
              return wr_scene_memory_tag(s.scene.get(), t, host, device);
            });
          },
          "wr_scene_memory and wr_scene_memory_tag for every tag, as a dict.")
      .def(
          "intersect",
          [](const SceneObj& s, nb::handle origins, nb::handle directions, nb::handle tmax, nb::handle out_t,
             nb::handle out_triangle, uintptr_t stream) {
            const char* fn = "Scene.intersect";
            Array o = take_array(origins, {fn, "origins", false, {Dtype::kFloat32}, {-1, 3}, "(count, 3)"}, s.device);
            const int64_t count = o.shape[0];
            Array d = take_array(directions, {fn, "directions", false, {Dtype::kFloat32}, {count, 3}, "(count, 3)"},
                                 s.device);
            Array tm;
            if (!tmax.is_none())
              tm = take_array(tmax, {fn, "tmax", false, {Dtype::kFloat32}, {count}, "(count,)"}, s.device);
            Array t = take_array(out_t, {fn, "out_t", true, {Dtype::kFloat32}, {count}, "(count,)"}, s.device);
            Array tri;
            if (!out_triangle.is_none())
              tri = take_array(out_triangle,
                               {fn, "out_triangle", true, {Dtype::kInt32, Dtype::kUInt32}, {count}, "(count,)"},
                               s.device);
            for (const Array* in : {&o, &d, &tm}) {
              if (!in->data) continue;
              const char* name = in == &o ? "origins" : in == &d ? "directions" : "tmax";
              require_disjoint(fn, *in, name, t, "out_t");
              if (tri.data) require_disjoint(fn, *in, name, tri, "out_triangle");
            }
            if (tri.data) require_disjoint(fn, t, "out_t", tri, "out_triangle");
            nb::gil_scoped_release release;
            s.scene.intersect(static_cast<const float*>(o.data), static_cast<const float*>(d.data),
                              static_cast<const float*>(tm.data), static_cast<uint64_t>(count),
                              static_cast<float*>(t.data), static_cast<uint32_t*>(tri.data),
                              reinterpret_cast<void*>(stream));
          },
          "origins"_a.none(), "directions"_a.none(), "tmax"_a.none(), "out_t"_a.none(), "out_triangle"_a.none(),
          "stream"_a = 0,
          "wr_scene_intersect: origins, directions (count, 3) float32; tmax (count,) float32 or None; "
          "writes out_t (count,) float32 and, unless None, out_triangle (count,) int32 or uint32 "
          "(-1 / 0xFFFFFFFF on a miss). stream: a cudaStream_t as an integer (CUDA contexts).")
      .def(
          "intersect_ex",
          [](const SceneObj& s, nb::handle origins, nb::handle directions, nb::handle tmax, uint32_t num_envs,
             nb::handle instance_poses, nb::handle global_poses, wr_quat_order quat_order, uint32_t exclude_groups,
             nb::handle out_t, nb::handle out_triangle, nb::handle out_instance, uintptr_t stream) {
            const char* fn = "Scene.intersect";
            // origins: (count, 3), or (num_envs, rays_per_env, 3), env e's rays being block e.
            Array o = take_array(origins, {fn, "origins", false, {Dtype::kFloat32}, {}, ""}, s.device, true);
            const bool blocks = o.ndim == 3;
            if ((o.ndim != 2 && o.ndim != 3) || o.shape[o.ndim - 1] != 3)
              invalid_argument(fn, "origins has shape " + array_shape_text(o) +
                                       ", expected (count, 3) or (num_envs, rays_per_env, 3)");
            if (blocks && o.shape[0] > int64_t(UINT32_MAX))
              invalid_argument(fn, "origins has " + std::to_string(o.shape[0]) + " envs, more than 2^32 - 1");
            if (blocks && num_envs == 0) num_envs = static_cast<uint32_t>(o.shape[0]);
            if (blocks && int64_t(num_envs) != o.shape[0])
              invalid_argument(fn, "origins has shape " + array_shape_text(o) + ", " + std::to_string(o.shape[0]) +
                                       " envs, but num_envs = " + std::to_string(num_envs));
            const uint32_t envs = num_envs ? num_envs : 1u;
            const int64_t count = blocks ? o.shape[0] * o.shape[1] : o.shape[0];
            if (count % envs != 0)
              invalid_argument(fn, "origins holds " + std::to_string(count) + " rays, not a multiple of num_envs = " +
                                       std::to_string(envs) + " (env e's rays are block e of count / num_envs)");
            // Every other ray array has the origins' leading shape.
            auto take = [&](nb::handle h, const char* name, bool writable, std::initializer_list<Dtype> types,
                            bool xyz) {
              if (blocks && xyz)
                return take_array(
                    h, {fn, name, writable, types, {o.shape[0], o.shape[1], 3}, "(num_envs, rays_per_env, 3)"},
                    s.device);
              if (blocks)
                return take_array(h, {fn, name, writable, types, {o.shape[0], o.shape[1]}, "(num_envs, rays_per_env)"},
                                  s.device);
              if (xyz) return take_array(h, {fn, name, writable, types, {count, 3}, "(count, 3)"}, s.device);
              return take_array(h, {fn, name, writable, types, {count}, "(count,)"}, s.device);
            };
            Array d = take(directions, "directions", false, {Dtype::kFloat32}, true);
            Array tm, tri, ins;
            if (!tmax.is_none()) tm = take(tmax, "tmax", false, {Dtype::kFloat32}, false);
            Array t = take(out_t, "out_t", true, {Dtype::kFloat32}, false);
            if (!out_triangle.is_none())
              tri = take(out_triangle, "out_triangle", true, {Dtype::kInt32, Dtype::kUInt32}, false);
            if (!out_instance.is_none())
              ins = take(out_instance, "out_instance", true, {Dtype::kInt32, Dtype::kUInt32}, false);
            InstancePoses inst =
                take_instance_poses(fn, instance_poses, global_poses, envs, s.scene.instance_counts(), s.device);
            const std::pair<const Array*, const char*> inputs[] = {{&o, "origins"},
                                                                   {&d, "directions"},
                                                                   {&tm, "tmax"},
                                                                   {&inst.slots, "instance_poses"},
                                                                   {&inst.globals, "global_poses"}};
            const std::pair<const Array*, const char*> outputs[] = {
                {&t, "out_t"}, {&tri, "out_triangle"}, {&ins, "out_instance"}};
            for (const auto& out : outputs) {
              if (!out.first->data) continue;
              for (const auto& in : inputs)
                if (in.first->data) require_disjoint(fn, *in.first, in.second, *out.first, out.second);
              for (const auto& other : outputs)
                if (&other < &out && other.first->data)
                  require_disjoint(fn, *other.first, other.second, *out.first, out.second);
            }
            wr_intersect_args a;
            wr_intersect_args_init(&a);
            a.origins = static_cast<const float*>(o.data);
            a.directions = static_cast<const float*>(d.data);
            a.tmax = static_cast<const float*>(tm.data);
            a.count = static_cast<uint64_t>(count);
            a.num_envs = num_envs;
            a.instance_poses = static_cast<const float*>(inst.slots.data);
            a.global_poses = static_cast<const float*>(inst.globals.data);
            a.quat_order = quat_order;
            a.exclude_groups = exclude_groups;
            a.out_t = static_cast<float*>(t.data);
            a.out_triangle = static_cast<uint32_t*>(tri.data);
            a.out_instance = static_cast<uint32_t*>(ins.data);
            a.stream = reinterpret_cast<void*>(stream);
            nb::gil_scoped_release release;
            s.scene.intersect(a);
          },
          "origins"_a.none(), "directions"_a.none(), "tmax"_a.none(), "num_envs"_a, "instance_poses"_a.none(),
          "global_poses"_a.none(), "quat_order"_a, "exclude_groups"_a, "out_t"_a.none(), "out_triangle"_a.none(),
          "out_instance"_a.none(), "stream"_a = 0,
          "wr_scene_intersect_ex: origins, directions (count, 3) float32, num_envs consecutive blocks of "
          "count / num_envs rays (0: 1), or (num_envs, rays_per_env, 3); tmax, out_t, out_triangle and "
          "out_instance (int32 or uint32, -1 / 0xFFFFFFFF for the terrain or a miss; or None) of their leading "
          "shape. Block e sees the terrain, env e's instance slots (instance_poses (num_envs, num_slots, 7)) "
          "and the global instances (global_poses (num_globals, 7)), both in quat_order, less the groups "
          "whose bit is set in exclude_groups.");
}

}  // namespace wrpy
