"""Explicit rays (Scene.intersect): against the sensor's own rays, with tmax, triangle ids and
caller-owned outputs, from NumPy and torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import warp_raycaster as wr

torch = pytest.importorskip("torch")


def test_rays_of_a_camera_give_its_range_image(scene: wr.Scene) -> None:
    # One camera at a known pose: its pixel rays, built from the documented formula, traced
    # as explicit rays, give the 'range' image the sensor renders (t of a unit ray = range).
    cam = wr.Camera.pinhole(24, 16, 80.0, depth="range")
    pose = np.array([[2.0, 6.0, 0.8, 1.0, 0.0, 0.0, 0.0]], np.float32)  # facing +x
    image = wr.Sensor(scene, cam).render(pose)[0]
    u, v = np.meshgrid(np.arange(cam.width), np.arange(cam.height))
    d = np.stack([np.ones_like(u, float), -(u + 0.5 - cam.cx) / cam.fx, -(v + 0.5 - cam.cy) / cam.fy], -1)
    d = (d / np.linalg.norm(d, axis=-1, keepdims=True)).reshape(-1, 3).astype(np.float32)
    origins = np.repeat(pose[:, :3], len(d), 0)
    t, tri = scene.intersect(origins, d)
    np.testing.assert_allclose(t.reshape(image.shape), image, rtol=2e-5)
    assert ((tri >= 0) == np.isfinite(t)).all()


def test_tmax_and_misses(scene: wr.Scene) -> None:
    origins = np.array([[6, 6, 5], [6, 6, 5], [6, 6, 5]], np.float32)
    directions = np.array([[0, 0, -1], [0, 0, -1], [0, 0, 1]], np.float32)  # down, down, up
    t, tri = scene.intersect(origins, directions, np.array([100, 1, 100], np.float32))
    assert math.isfinite(t[0]) and tri[0] >= 0
    assert t[1] == math.inf and tri[1] == -1  # the ground is farther than tmax
    assert t[2] == math.inf and tri[2] == -1  # nothing above
    t_scalar, _ = scene.intersect(origins, directions, 1.0)
    assert t_scalar[0] == math.inf
    t_none, tri_none = scene.intersect(origins, directions, triangles=False)
    assert tri_none is None and t_none[0] == t[0]
    # Directions need not be unit: t is in units of |direction|.
    t_half, _ = scene.intersect(origins[:1], directions[:1] * 2)
    assert t_half[0] == pytest.approx(t[0] / 2, rel=1e-6)


def test_torch_outputs_in_place(scene: wr.Scene) -> None:
    origins = torch.tensor([[6.0, 6.0, 5.0]] * 4)
    directions = torch.tensor([[0.0, 0.0, -1.0]] * 4)
    out_t = torch.empty(4)
    out_tri = torch.empty(4, dtype=torch.int32)
    pointers = (out_t.data_ptr(), out_tri.data_ptr())
    t, tri = scene.intersect(origins, directions, out_t=out_t, out_triangle=out_tri)
    assert t is out_t and tri is out_tri and (t.data_ptr(), tri.data_ptr()) == pointers
    assert torch.isfinite(t).all() and (tri >= 0).all()
    t2, tri2 = scene.intersect(origins, directions)
    assert isinstance(t2, torch.Tensor) and tri2.dtype == torch.int32 and torch.equal(t2, t)
    # uint32 outputs get the C API's miss value
    miss_tri = np.empty(1, np.uint32)
    scene.intersect(np.array([[6, 6, 5]], np.float32), np.array([[0, 0, 1]], np.float32), out_triangle=miss_tri)
    assert miss_tri[0] == 0xFFFFFFFF


def test_bad_rays_are_named(scene: wr.Scene) -> None:
    with pytest.raises(wr.Error, match=r"Scene.intersect: directions has shape \(2, 3\), expected \(count, 3\)"):
        scene.intersect(np.zeros((3, 3), np.float32), np.ones((2, 3), np.float32))
    with pytest.raises(wr.Error, match=r"wr_scene_intersect: .*direction.*1"):
        scene.intersect(np.zeros((2, 3), np.float32), np.array([[0, 0, -1], [0, 0, 0]], np.float32))
    with pytest.raises(wr.Error, match=r"out_triangle has dtype float32, expected int32 or uint32"):
        scene.intersect(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32),
                        out_triangle=np.empty(1, np.float32))
