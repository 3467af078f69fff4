"""Rendering from NumPy and torch (CPU): outputs in the input's framework, into out= without a
copy (the data pointer is the caller's), the camera model and memory ledger as the C API gives
them, and objects that release in any order."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import SMALL_TERRAIN, random_poses

torch = pytest.importorskip("torch")


def test_numpy_render_allocates_numpy(sensor: wr.Sensor) -> None:
    poses = random_poses(sensor.num_envs)
    depth = sensor.render(poses)
    assert isinstance(depth, np.ndarray)
    assert depth.shape == sensor.shape == (8, 24, 32)
    assert depth.dtype == np.float32 and depth.flags.c_contiguous
    assert np.isfinite(depth).mean() > 0.3  # the cameras see terrain, not only sky


def test_numpy_out_is_written_in_place(sensor: wr.Sensor) -> None:
    poses = random_poses(sensor.num_envs)
    out = np.full(sensor.shape, -7.0, np.float32)
    pointer = out.ctypes.data
    returned = sensor.render(poses, out=out)
    assert returned is out and out.ctypes.data == pointer
    assert not np.any(out == -7.0)
    np.testing.assert_array_equal(out, sensor.render(poses))


def test_numpy_out_may_be_a_contiguous_view(sensor: wr.Sensor) -> None:
    # A C-contiguous slice of a bigger buffer (a rollout storage) is written where it is.
    storage = np.zeros((3,) + sensor.shape, np.float32)
    poses = random_poses(sensor.num_envs)
    sensor.render(poses, out=storage[1])
    np.testing.assert_array_equal(storage[1], sensor.render(poses))
    assert not storage[0].any() and not storage[2].any()


def test_torch_cpu_render_and_out(sensor: wr.Sensor) -> None:
    poses = torch.from_numpy(random_poses(sensor.num_envs))
    depth = sensor.render(poses)
    assert isinstance(depth, torch.Tensor) and depth.device.type == "cpu"
    assert depth.dtype == torch.float32 and tuple(depth.shape) == sensor.shape and depth.is_contiguous()
    out = torch.empty(sensor.shape)
    pointer = out.data_ptr()
    assert sensor.render(poses, out=out) is out and out.data_ptr() == pointer
    assert torch.equal(out, depth)
    np.testing.assert_array_equal(depth.numpy(), sensor.render(poses.numpy()))


def test_inputs_are_read_in_place(sensor: wr.Sensor) -> None:
    # Zero-copy on the way in: a pose changed through another view of the same memory is
    # what the next render sees, and nothing converts a wrong input silently (test_errors).
    buffer = torch.from_numpy(random_poses(sensor.num_envs))
    alias = buffer.numpy()  # shares buffer's memory
    before = sensor.render(buffer)
    alias[0, 2] += 0.25
    after = sensor.render(buffer)
    assert not torch.equal(before[0], after[0])
    assert torch.equal(before[1:], after[1:])


def test_mixed_frameworks_in_and_out(sensor: wr.Sensor) -> None:
    poses = random_poses(sensor.num_envs)
    out = torch.empty(sensor.shape)
    sensor.render(poses, out=out)  # NumPy poses, torch output: both host memory
    np.testing.assert_array_equal(out.numpy(), sensor.render(poses))


def test_a_plane_at_known_height(ctx: wr.Context) -> None:
    # The closed form: a camera 2 m above z = 0 looking straight down sees plane depth 2.
    vertices = np.array([[-50, -50, 0], [50, -50, 0], [50, 50, 0], [-50, 50, 0]], np.float32)
    indices = np.array([[0, 1, 2], [0, 2, 3]], np.uint32)
    floor = wr.Scene(ctx, vertices, indices)
    down = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)  # pitch +90 degrees, w x y z
    cam = wr.Camera.pinhole(16, 12, 60.0, mount_rotation=down)
    s = wr.Sensor(floor, cam, num_envs=2)
    poses = np.array([[0, 0, 2, 1, 0, 0, 0], [3, 4, 2, 1, 0, 0, 0]], np.float32)
    np.testing.assert_allclose(s.render(poses), 2.0, rtol=1e-5)
    ranged = wr.Sensor(floor, cam.replace(depth="range"), num_envs=2).render(poses)
    assert ranged.min() >= 2.0 - 1e-5 and ranged.max() > 2.05  # off-axis rays are longer


def test_indices_may_be_int32(ctx: wr.Context) -> None:
    vertices = np.array([[0, -5, -5], [0, 5, -5], [0, 0, 5]], np.float32)
    tri_u = wr.Scene(ctx, vertices, np.array([[0, 1, 2]], np.uint32))
    tri_i = wr.Scene(ctx, torch.from_numpy(vertices), torch.tensor([[0, 1, 2]], dtype=torch.int32))
    assert tri_u.num_triangles == tri_i.num_triangles == 1
    cam = wr.Camera.pinhole(8, 8, 60.0)
    poses = np.array([[-3, 0, 0, 1, 0, 0, 0]], np.float32)
    a = wr.Sensor(tri_u, cam).render(poses)
    np.testing.assert_array_equal(a, wr.Sensor(tri_i, cam).render(poses))
    assert abs(a[0, 4, 4] - 3.0) < 1e-5


def test_camera_model_round_trips_through_the_sensor(scene: wr.Scene) -> None:
    cam = wr.Camera.pinhole(106, 60, 87.0, mount_position=(0.27, 0.0, 0.03), depth="range", quat_order="xyzw",
                            near=0.1, far=5.0, miss_value=-1.0)
    s = wr.Sensor(scene, cam, num_envs=3)
    got = s.camera
    assert (got.width, got.height, got.depth, got.quat_order) == (106, 60, "range", "xyzw")
    assert got.mount_rotation == (0.0, 0.0, 0.0, 1.0)  # identity in x y z w
    assert got.fx == pytest.approx(53.0 / math.tan(math.radians(43.5)), rel=1e-6)
    assert got.fy == got.fx and (got.cx, got.cy) == (53.0, 30.0)
    assert cam.hfov == pytest.approx(87.0, rel=1e-6)
    assert cam.vfov == pytest.approx(math.degrees(2 * math.atan(math.tan(math.radians(43.5)) * 60 / 106)), rel=1e-6)
    assert (got.near, got.far, got.miss_value) == (pytest.approx(0.1), 5.0, -1.0)
    assert s.num_envs == 3 and s.shape == (3, 60, 106)


def test_memory_ledger_as_dicts(scene: wr.Scene, sensor: wr.Sensor) -> None:
    for m in (scene.memory(), sensor.memory()):
        assert set(m) == {"host_bytes", "device_bytes", "shared_bytes", "per_env_bytes", "tags"}
        assert m["per_env_bytes"] == 0 and m["device_bytes"] == 0
        assert sum(t["host_bytes"] for t in m["tags"].values()) == m["host_bytes"]
        assert set(m["tags"]) == {wr.memory_tag_string(t) for t in wr.MemoryTag}
    assert scene.memory()["tags"]["bvh_nodes"]["host_bytes"] > 0
    # The template: one direction (3 floats) per pixel, whatever num_envs is.
    assert sensor.memory()["tags"]["ray_template"]["host_bytes"] >= 32 * 24 * 12


def test_scene_properties(scene: wr.Scene) -> None:
    assert scene.num_triangles == 7368
    lo, hi = scene.bounds
    assert lo[0] == 0.0 and hi[0] == 12.0 and lo[2] < hi[2]
    assert scene.build_seconds >= 0.0
    assert "7368 triangles" in repr(scene)


def test_context_settings(ctx: wr.Context) -> None:
    assert ctx.device == "cpu" and not ctx.is_cuda and ctx.num_threads == 2
    one = wr.Context("cpu", threads=1)
    assert one.num_threads == 1
    assert wr.Context().num_threads >= 1


def test_every_cpu_path_gives_the_same_depth(scene: wr.Scene, camera: wr.Camera) -> None:
    c = wr.Context("cpu", threads=1)
    s = wr.Sensor(wr.Scene.from_obj(c, SMALL_TERRAIN), camera, num_envs=4)
    poses = random_poses(4, seed=3)
    c.cpu_path = "scalar"
    assert c.cpu_path == "scalar"
    reference = s.render(poses)
    for path in ("avx2", "avx512"):
        try:
            c.cpu_path = path
        except wr.Error as e:
            assert e.status == wr.Status.ERROR_UNSUPPORTED  # this CPU lacks it
            continue
        np.testing.assert_array_equal(s.render(poses), reference)
    c.cpu_path = wr.CpuPath.AUTO
    assert c.cpu_path in ("scalar", "avx2", "avx512")


@pytest.mark.parametrize("order", ["context-scene-sensor", "sensor-scene-context", "scene-context-sensor"])
def test_objects_release_in_any_order(order: str, camera: wr.Camera) -> None:
    c = wr.Context("cpu", threads=1)
    sc = wr.Scene.from_obj(c, SMALL_TERRAIN)
    se = wr.Sensor(sc, camera, num_envs=2)
    poses = random_poses(2)
    expected = se.render(poses)
    objects = {"context": c, "scene": sc, "sensor": se}
    del c, sc, se
    for name in order.split("-"):
        survivor = objects.pop(name)
        del survivor
        gc.collect()
        if "sensor" in objects:  # whatever else went, the sensor still renders
            np.testing.assert_array_equal(objects["sensor"].render(poses), expected)
    # The raw handles release in any order too (the C objects keep each other alive).
    c2 = wr._wr.Context(wr._wr.Device.CPU, 0, 1)
    s2 = wr._wr.Scene.load_obj(c2, str(SMALL_TERRAIN))
    n2 = wr._wr.Sensor(s2, camera._desc(), 2)
    del c2, s2
    gc.collect()
    out = np.empty((2, camera.height, camera.width), np.float32)
    n2.render(poses, out, 0)
    np.testing.assert_array_equal(out, expected)
