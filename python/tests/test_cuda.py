"""CUDA contexts from Python: torch CUDA tensors in and out without a copy, on torch's current
stream by default or on stream=, the same bits as the CPU backend (the C++ parity tests' claim),
and CuPy arrays where CuPy is installed. Every case skips, saying why, without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import SMALL_TERRAIN, cuda_context_or_skip, random_poses


@pytest.fixture(scope="module")
def cuda_ctx() -> wr.Context:
    return cuda_context_or_skip()


@pytest.fixture(scope="module")
def cuda_sensor(cuda_ctx: wr.Context) -> wr.Sensor:
    scene = wr.Scene.from_obj(cuda_ctx, SMALL_TERRAIN)
    return wr.Sensor(scene, wr.Camera.pinhole(106, 60, 87.0, mount_position=(0.27, 0.0, 0.03)), num_envs=32)


def cpu_reference(sensor: wr.Sensor, poses: np.ndarray) -> np.ndarray:
    ctx = wr.Context("cpu")
    cpu = wr.Sensor(wr.Scene.from_obj(ctx, SMALL_TERRAIN), sensor.camera, num_envs=sensor.num_envs)
    return cpu.render(poses)


def test_torch_cuda_in_and_out(cuda_sensor: wr.Sensor) -> None:
    import torch

    poses = torch.from_numpy(random_poses(32)).cuda()
    depth = cuda_sensor.render(poses)
    assert depth.device == poses.device and tuple(depth.shape) == cuda_sensor.shape
    out = torch.empty(cuda_sensor.shape, device="cuda")
    pointer = out.data_ptr()
    assert cuda_sensor.render(poses, out=out) is out and out.data_ptr() == pointer
    torch.cuda.synchronize()
    assert torch.equal(out, depth)
    np.testing.assert_array_equal(depth.cpu().numpy(), cpu_reference(cuda_sensor, poses.cpu().numpy()))


def test_current_stream_and_explicit_stream(cuda_sensor: wr.Sensor) -> None:
    import torch

    poses = torch.from_numpy(random_poses(32, seed=1)).cuda()
    expected = cuda_sensor.render(poses)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # the default follows torch's current stream
        got = cuda_sensor.render(poses)
    side.synchronize()
    assert torch.equal(got, expected)
    out = torch.empty_like(expected)
    cuda_sensor.render(poses, out=out, stream=side)
    cuda_sensor.render(poses, out=out, stream=side.cuda_stream)
    side.synchronize()
    assert torch.equal(out, expected)


def test_cuda_intersect(cuda_ctx: wr.Context) -> None:
    import torch

    scene = wr.Scene.from_obj(cuda_ctx, SMALL_TERRAIN)
    origins = torch.tensor([[6.0, 6.0, 5.0]] * 8, device="cuda")
    directions = torch.tensor([[0.0, 0.0, -1.0]] * 8, device="cuda")
    t, tri = scene.intersect(origins, directions)
    torch.cuda.synchronize()
    assert t.device.type == "cuda" and tri.dtype == torch.int32
    cpu = wr.Scene.from_obj(wr.Context("cpu"), SMALL_TERRAIN)
    t_cpu, tri_cpu = cpu.intersect(origins.cpu(), directions.cpu())
    assert torch.equal(t.cpu(), t_cpu) and torch.equal(tri.cpu(), tri_cpu)


def test_host_arrays_are_refused_on_a_cuda_context(cuda_sensor: wr.Sensor) -> None:
    with pytest.raises(wr.Error, match=r"poses is in host memory, but the context is cuda:0"):
        cuda_sensor.render(random_poses(32))


def test_cuda_scene_from_device_arrays(cuda_ctx: wr.Context) -> None:
    import torch

    vertices = torch.tensor([[0, -5, -5], [0, 5, -5], [0, 0, 5]], dtype=torch.float32, device="cuda")
    indices = torch.tensor([[0, 1, 2]], dtype=torch.int32, device="cuda")
    scene = wr.Scene(cuda_ctx, vertices, indices)  # copied to the host, as the library reads it
    assert scene.num_triangles == 1


def test_cupy_arrays(cuda_sensor: wr.Sensor) -> None:
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    poses = cp.asarray(random_poses(32, seed=2))
    depth = cuda_sensor.render(poses)
    assert isinstance(depth, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(depth), cpu_reference(cuda_sensor, cp.asnumpy(poses)))
