"""The package gives the C API's results byte for byte: the same inputs through libwr's C
functions called directly with ctypes (the very libwr.so the extension links,
warp_raycaster.library_path()) and through the Python objects."""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import SMALL_TERRAIN, random_poses


class CameraDesc(ctypes.Structure):
    # wr_camera_desc of include/wr/wr.h, field for field (enums are C ints).
    _fields_ = [("struct_size", ctypes.c_uint32), ("width", ctypes.c_uint32), ("height", ctypes.c_uint32),
                ("fx", ctypes.c_float), ("fy", ctypes.c_float), ("cx", ctypes.c_float), ("cy", ctypes.c_float),
                ("near_clip", ctypes.c_float), ("far_clip", ctypes.c_float), ("miss_value", ctypes.c_float),
                ("depth_kind", ctypes.c_int), ("quat_order", ctypes.c_int),
                ("mount_position", ctypes.c_float * 3), ("mount_rotation", ctypes.c_float * 4)]


@pytest.fixture(scope="module")
def lib() -> ctypes.CDLL:
    path = wr.library_path()
    assert path, "the extension could not say which libwr.so it loaded"
    lib = ctypes.CDLL(path)
    p = ctypes.c_void_p
    lib.wr_last_error.restype = ctypes.c_char_p
    lib.wr_context_create_cpu.argtypes = [ctypes.c_uint32, ctypes.POINTER(p)]
    lib.wr_scene_load_obj.argtypes = [p, ctypes.c_char_p, ctypes.POINTER(p)]
    lib.wr_camera_desc_pinhole.argtypes = [ctypes.POINTER(CameraDesc), ctypes.c_uint32, ctypes.c_uint32,
                                           ctypes.c_float]
    lib.wr_camera_desc_pinhole.restype = None
    lib.wr_sensor_create.argtypes = [p, ctypes.POINTER(CameraDesc), ctypes.c_uint32, ctypes.POINTER(p)]
    lib.wr_sensor_render.argtypes = [p, p, p, p]
    lib.wr_scene_intersect.argtypes = [p, p, p, p, ctypes.c_uint64, p, p, p]
    for name in ("wr_context_release", "wr_scene_release", "wr_sensor_release"):
        getattr(lib, name).argtypes = [p]
        getattr(lib, name).restype = None
    return lib


def check(lib: ctypes.CDLL, status: int) -> None:
    assert status == 0, lib.wr_last_error().decode()


def ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


@pytest.fixture(scope="module")
def c_scene(lib: ctypes.CDLL):
    ctx, scene = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib, lib.wr_context_create_cpu(2, ctypes.byref(ctx)))
    check(lib, lib.wr_scene_load_obj(ctx, str(SMALL_TERRAIN).encode(), ctypes.byref(scene)))
    yield scene
    lib.wr_scene_release(scene)
    lib.wr_context_release(ctx)


@pytest.mark.parametrize("depth,order,near,far,miss", [("plane", "wxyz", 0.0, math.inf, math.inf),
                                                       ("range", "xyzw", 0.3, 6.0, math.nan),
                                                       ("plane", "xyzw", 0.0, 2.0, 2.0)])
def test_render_is_byte_identical(lib, c_scene, scene: wr.Scene, depth, order, near, far, miss) -> None:
    n = 16
    desc = CameraDesc()
    lib.wr_camera_desc_pinhole(ctypes.byref(desc), 106, 60, 87.0)
    desc.near_clip, desc.far_clip, desc.miss_value = near, far, miss
    desc.depth_kind = 0 if depth == "plane" else 1
    desc.quat_order = 0 if order == "wxyz" else 1
    desc.mount_position[:] = (0.27, 0.0, 0.03)
    pitch = (math.cos(0.05), 0.0, math.sin(0.05), 0.0)  # 5.7 degrees down, w x y z
    desc.mount_rotation[:] = pitch if order == "wxyz" else pitch[1:] + pitch[:1]
    sensor = ctypes.c_void_p()
    check(lib, lib.wr_sensor_create(c_scene, ctypes.byref(desc), n, ctypes.byref(sensor)))
    poses = random_poses(n, seed=11, order=order)
    c_depth = np.empty((n, 60, 106), np.float32)
    check(lib, lib.wr_sensor_render(sensor, ptr(poses), ptr(c_depth), None))
    lib.wr_sensor_release(sensor)

    cam = wr.Camera.pinhole(106, 60, 87.0, depth=depth, quat_order=order, near=near, far=far, miss_value=miss,
                            mount_position=(0.27, 0.0, 0.03), mount_rotation=tuple(desc.mount_rotation))
    py_depth = wr.Sensor(scene, cam, num_envs=n).render(poses)
    assert py_depth.tobytes() == c_depth.tobytes()
    assert np.isfinite(py_depth).any()


def test_intersect_is_byte_identical(lib, c_scene, scene: wr.Scene) -> None:
    rng = np.random.default_rng(5)
    count = 4096
    origins = np.empty((count, 3), np.float32)
    origins[:, 0:2] = rng.uniform(0.0, 12.0, (count, 2))
    origins[:, 2] = 2.0
    directions = rng.normal(size=(count, 3)).astype(np.float32)
    directions[:, 2] = -np.abs(directions[:, 2]) - 0.1
    tmax = rng.uniform(0.5, 10.0, count).astype(np.float32)
    c_t = np.empty(count, np.float32)
    c_tri = np.empty(count, np.uint32)
    check(lib, lib.wr_scene_intersect(c_scene, ptr(origins), ptr(directions), ptr(tmax), count, ptr(c_t), ptr(c_tri),
                                      None))
    t, tri = scene.intersect(origins, directions, tmax)
    assert t.tobytes() == c_t.tobytes()
    assert tri.dtype == np.int32 and tri.view(np.uint32).tobytes() == c_tri.tobytes()
    assert (tri == -1).any() and (tri >= 0).any()  # some rays miss within tmax, some hit
