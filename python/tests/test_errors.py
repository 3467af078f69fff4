"""Errors: every check of an array argument names the function and the argument, nothing is
converted or copied behind the caller's back, and the library's own failures arrive as
warp_raycaster.Error with its message and status."""

from __future__ import annotations

import contextlib
import pickle

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import REPO, random_poses

torch = pytest.importorskip("torch")

INVALID = wr.Status.ERROR_INVALID_ARGUMENT


@contextlib.contextmanager
def raises(match: str, status: wr.Status = INVALID):
    """pytest.raises(wr.Error, match=...) that also checks the status and the base class."""
    with pytest.raises(wr.Error, match=match) as info:
        yield info
    assert info.value.status == status
    assert isinstance(info.value, RuntimeError)


def test_dtype_is_checked_and_not_converted(sensor: wr.Sensor) -> None:
    with raises(r"Sensor.render: poses has dtype float64, expected float32"):
        sensor.render(random_poses(8).astype(np.float64))
    with raises(r"Sensor.render: out has dtype float16, expected float32"):
        sensor.render(random_poses(8), out=np.empty(sensor.shape, np.float16))
    with raises(r"poses has dtype bfloat16"):
        sensor.render(torch.from_numpy(random_poses(8)).to(torch.bfloat16))


def test_shape_is_checked(sensor: wr.Sensor) -> None:
    with raises(r"Sensor.render: poses has shape \(7, 7\), expected \(num_envs, 7\) = \(8, 7\)"):
        sensor.render(random_poses(7))
    with raises(r"poses has shape \(56,\), expected"):
        sensor.render(random_poses(8).reshape(-1))
    # more dimensions than any argument has: named, never read past the extents kept
    with raises(r"Sensor.render: poses has shape \(8, 1, 1, 1, 7\): 5 dimensions, at most 4 are taken"):
        sensor.render(random_poses(8).reshape(8, 1, 1, 1, 7))
    with raises(r"Sensor.render: out has shape \(8, 32, 24\), expected \(num_envs, height, width\) = \(8, 24, 32\)"):
        sensor.render(random_poses(8), out=np.empty((8, 32, 24), np.float32))


def test_contiguity_is_checked(sensor: wr.Sensor) -> None:
    root_states = np.zeros((8, 13), np.float32)
    root_states[:, :7] = random_poses(8)
    with raises(r"Sensor.render: poses is not C-contiguous \(strides \(13, 1\) elements"):
        sensor.render(root_states[:, :7])
    with raises(r"Sensor.render: out is not C-contiguous"):
        sensor.render(random_poses(8), out=torch.empty(8, 32, 24).transpose(1, 2))
    with raises(r"poses is not C-contiguous"):
        sensor.render(torch.from_numpy(random_poses(8)).t().contiguous().t())  # Fortran order


def test_alignment_is_checked(sensor: wr.Sensor) -> None:
    raw = np.zeros(8 * 7 * 4 + 1, np.uint8)
    misaligned = raw[1:].view(np.float32).reshape(8, 7)
    misaligned[...] = random_poses(8)
    with raises(r"Sensor.render: poses is not aligned to 4 bytes"):
        sensor.render(misaligned)


def test_read_only_output_is_refused(sensor: wr.Sensor) -> None:
    out = np.empty(sensor.shape, np.float32)
    out.flags.writeable = False
    with raises(r"Sensor.render: out .*is read-only"):
        sensor.render(random_poses(8), out=out)
    poses = random_poses(8)
    poses.flags.writeable = False  # a read-only input is fine
    sensor.render(poses)


def test_non_arrays_are_named(sensor: wr.Sensor) -> None:
    with raises(r"Sensor.render: poses is a list, not an array"):
        sensor.render(random_poses(8).tolist())
    with raises(r"Sensor.render: poses is None"):
        sensor.render(None)


def test_device_is_checked(sensor: wr.Sensor) -> None:
    class FakeCudaArray:
        """Speaks only __cuda_array_interface__ (numba's device arrays do), with a host pointer:
        on a CPU context it must be refused before anything reads it."""

        def __init__(self, a: np.ndarray) -> None:
            self.a = a
            self.__cuda_array_interface__ = {"shape": a.shape, "typestr": "<f4", "data": (a.ctypes.data, False),
                                             "strides": None, "version": 3}

    with raises(r"Sensor.render: poses is in CUDA memory, but the context is cpu \(host memory needed\)"):
        sensor.render(FakeCudaArray(random_poses(8)))
    if torch.cuda.is_available():
        with raises(r"poses is in cuda:0, but the context is cpu"):
            sensor.render(torch.from_numpy(random_poses(8)).cuda(), out=np.empty(sensor.shape, np.float32))


def test_cuda_array_interface_is_parsed(sensor: wr.Sensor) -> None:
    class Cai:
        def __init__(self, **fields):
            self.__cuda_array_interface__ = dict(version=3, data=(0, False), strides=None)
            self.__cuda_array_interface__.update(fields)

    with raises(r"poses has dtype float64"):
        sensor.render(Cai(shape=(8, 7), typestr="<f8"))
    with raises(r"poses has shape \(8, 6\)"):
        sensor.render(Cai(shape=(8, 6), typestr="<f4"))
    with raises(r"poses is not C-contiguous"):
        sensor.render(Cai(shape=(8, 7), typestr="<f4", strides=(52, 4)))


def test_overlapping_output_is_refused(sensor: wr.Sensor) -> None:
    n, h, w = sensor.shape
    buffer = np.zeros(n * h * w, np.float32)
    buffer[: n * 7] = random_poses(n).reshape(-1)
    with raises(r"Sensor.render: out overlaps poses"):
        sensor.render(buffer[: n * 7].reshape(n, 7), out=buffer.reshape(n, h, w))


def test_library_errors_carry_message_and_status(ctx: wr.Context, sensor: wr.Sensor) -> None:
    with raises(r"wr_scene_load_obj: .*no_such_file\.obj.*\[WR_ERROR_IO\]", wr.Status.ERROR_IO):
        wr.Scene.from_obj(ctx, REPO / "no_such_file.obj")
    poses = random_poses(8)
    poses[5, 3:7] = 0.0  # a zero quaternion: the library names the env
    out = np.full(sensor.shape, 3.0, np.float32)
    with raises(r"wr_sensor_render(_ex)?: .*5.*\[WR_ERROR_INVALID_ARGUMENT\]") as info:
        sensor.render(poses, out=out)
    assert np.all(out == 3.0)  # a failed call writes nothing
    assert info.value.message == str(info.value) and "env" in info.value.message
    vertices = np.zeros((3, 3), np.float32)
    with raises(r"wr_scene_create: indices.* out of range"):
        wr.Scene(ctx, vertices, np.array([[0, 1, 9]], np.uint32))
    with raises(r"wr_sensor_create: .*fx"):
        wr.Sensor(sensor.scene, sensor.camera.replace(fx=-1.0))
    with raises(r"wr_sensor_create: .*num_envs"):
        wr.Sensor(sensor.scene, sensor.camera, num_envs=0)


def test_python_side_settings_are_checked(ctx: wr.Context) -> None:
    with raises(r"Camera: depth = 'z'"):
        wr.Camera.pinhole(8, 8, 60.0, depth="z")
    with raises(r"Camera: quat_order = 'zyxw'"):
        wr.Camera.pinhole(8, 8, 60.0, quat_order="zyxw")
    with raises(r"Context: kind = 'tpu'"):
        wr.Context("tpu")
    with raises(r"Context.cpu_path: 'fast'"):
        ctx.cpu_path = "fast"


def test_cuda_unavailable_is_unsupported() -> None:
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: test_cuda.py covers CUDA contexts")
    with raises(r"wr_context_create", wr.Status.ERROR_UNSUPPORTED):
        wr.Context("cuda", device=0)


def test_error_pickles_with_its_status() -> None:
    e = wr.Error("wr_x: y [WR_ERROR_IO]", 2)
    back = pickle.loads(pickle.dumps(e))
    assert back.status == wr.Status.ERROR_IO and back.message == e.message and str(back) == str(e)
    assert wr.status_string(wr.Status.ERROR_PARSE) == "WR_ERROR_PARSE"


def test_the_stumbles_a_new_user_reported_are_named(sensor: wr.Sensor, scene: wr.Scene, camera: wr.Camera) -> None:
    # frame out of range: a wr.Error naming frame, not the binding's signature dump.
    with raises(r"Sensor.render: frame = -1: must be an int in \[0, 2\*\*64\)"):
        sensor.render(random_poses(8), frame=-1)
    with raises(r"frame = 18446744073709551616"):
        sensor.render(random_poses(8), frame=2 ** 64)
    # 87 degrees given as radians.
    with raises(r"Camera.pinhole: hfov = 1.518: is that radians\? .*86.97 degrees"):
        wr.Camera.pinhole(106, 60, 1.518)
    # A meta-device tensor holds no data: say so.
    with raises(r"poses is a torch.Tensor on device 'meta'"):
        sensor.render(torch.zeros(8, 7, device="meta"))
    # Poses sliced out of root states: pass the whole rows (read in place) rather than copying.
    root_states = torch.from_numpy(np.concatenate([random_poses(8), np.zeros((8, 6), np.float32)], 1))
    with raises(r"slice of wider ones .* \(num_envs, 13\) root states or \(num_envs, bodies, 13\) with inputs=wr.RenderInputs\(body=\.\.\.\)"):
        sensor.render(root_states[:, :7])
    # A negative latency reads as one, and a plain sensor is told it needs a history.
    with raises(r"latency of env 0 = 4294967295 \(-1 as an int32: latencies are not negative\): must be below the "
                r"history length \(1\); a latency needs a history"):
        sensor.render(random_poses(8), inputs=wr.RenderInputs(latency=np.full(8, -1, np.int32)))


def test_a_render_that_names_another_quat_order_is_refused(sensor: wr.Sensor) -> None:
    assert sensor.quat_order == "wxyz" and "quat_order='wxyz'" in repr(sensor)
    sensor.render(random_poses(8), layout="poses_wxyz")
    with raises(r"Sensor.render: quat_order = 'xyzw': the poses are xyzw, but this sensor reads wxyz"):
        sensor.render(random_poses(8), layout="poses_xyzw")
