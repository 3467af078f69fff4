"""Scene.from_heightfield: MuJoCo's triangulation of a height field (wr.h,
wr_scene_create_heightfield), against the closed form of each cell's two triangles, against the
same grid triangulated here in NumPy and passed as a mesh, and legged_gym's layout."""

from __future__ import annotations

import numpy as np
import pytest

import warp_raycaster as wr


def grid(seed: int = 0, nx: int = 8, ny: int = 5) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.0, 1.5, (ny, nx)).astype(np.float32)  # heights[iy, ix]


def down_rays(n: int, x0: float, y0: float, sx: float, sy: float, nx: int, ny: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    ix = rng.integers(0, nx - 1, n)
    iy = rng.integers(0, ny - 1, n)
    u, v = rng.uniform(0.01, 0.99, n), rng.uniform(0.01, 0.99, n)
    origins = np.stack([x0 + (ix + u) * sx, y0 + (iy + v) * sy, np.full(n, 50.0)], -1).astype(np.float32)
    directions = np.tile(np.array([0, 0, -1], np.float32), (n, 1))
    return ix, iy, u, v, origins, directions


def test_a_ray_down_meets_the_triangle_of_mujocos_split(ctx: wr.Context) -> None:
    h = grid()
    ny, nx = h.shape
    sx, sy, zs, origin = 0.25, 0.4, 0.6, (1.0, -2.0, 0.3)
    scene = wr.Scene.from_heightfield(ctx, h, (sx, sy), z_scale=zs, origin=origin)
    assert scene.num_triangles == 2 * (nx - 1) * (ny - 1)
    ix, iy, u, v, o, d = down_rays(3000, origin[0], origin[1], sx, sy, nx, ny)
    h00, h10, h01, h11 = h[iy, ix], h[iy, ix + 1], h[iy + 1, ix], h[iy + 1, ix + 1]
    lower = u >= v  # triangle (0,0) (1,1) (1,0); else (0,0) (1,1) (0,1)
    z = np.where(lower, h00 + u * (h10 - h00) + v * (h11 - h10), h00 + v * (h01 - h00) + u * (h11 - h01))
    t, tri = scene.intersect(o, d)
    np.testing.assert_allclose(50.0 - t, origin[2] + zs * z, atol=2e-5)
    away = np.abs(u - v) > 1e-3
    expected = 2 * (iy * (nx - 1) + ix) + np.where(lower, 0, 1)
    np.testing.assert_array_equal(tri[away], expected[away])


def test_the_same_bits_as_the_mesh_triangulated_in_numpy_and_in_legged_gyms_layout(ctx: wr.Context) -> None:
    h = grid(3, 9, 7)
    ny, nx = h.shape
    s, zs = 0.1, 0.005  # legged_gym's horizontal_scale and vertical_scale
    raw = (h * 200).astype(np.int16)  # height_field_raw[ix, iy] after a transpose: legged_gym's
    field = np.ascontiguousarray(raw.T).astype(np.float32)  # (nx, ny)
    yx = raw.astype(np.float32)  # the same samples as heights[iy, ix]
    ix, iy = np.meshgrid(np.arange(nx), np.arange(ny))  # (ny, nx)
    vertices = np.stack([(ix * np.float32(s)).astype(np.float32), (iy * np.float32(s)).astype(np.float32),
                         np.float32(zs) * yx], -1).reshape(-1, 3).astype(np.float32)
    k = (iy[:-1, :-1] * nx + ix[:-1, :-1]).ravel()
    a, b, right, up = k, k + nx + 1, k + 1, k + nx
    indices = np.stack([np.stack([a, b, right], -1), np.stack([a, b, up], -1)], 1).reshape(-1, 3).astype(np.uint32)
    mesh = wr.Scene(ctx, vertices, indices)
    x_fastest = wr.Scene.from_heightfield(ctx, yx, s, z_scale=zs)
    y_fastest = wr.Scene.from_heightfield(ctx, field, s, z_scale=zs, x_fastest=False)
    rng = np.random.default_rng(4)
    o = np.stack([rng.uniform(-0.1, 0.9, 4000), rng.uniform(-0.1, 0.7, 4000), rng.uniform(1, 2, 4000)], -1)
    d = np.stack([rng.uniform(-0.2, 0.2, 4000), rng.uniform(-0.2, 0.2, 4000), -np.ones(4000)], -1)
    o, d = o.astype(np.float32), d.astype(np.float32)
    t0, tri0 = mesh.intersect(o, d)
    assert np.isfinite(t0).sum() > 1000
    for scene in (x_fastest, y_fastest):
        t, tri = scene.intersect(o, d)
        assert t.tobytes() == t0.tobytes()
        np.testing.assert_array_equal(tri, tri0)


def test_a_base_makes_walls_and_a_bottom(ctx: wr.Context) -> None:
    h = grid(5) + 0.5
    scene = wr.Scene.from_heightfield(ctx, h, 0.2, base_depth=0.5)
    ny, nx = h.shape
    assert scene.num_triangles == 2 * (nx - 1) * (ny - 1) + 4 * (nx + ny - 2) + 2
    # Sideways at z = 0.2 (below every sample, above the base): the wall at x = 0.
    o = np.array([[-1.0, 0.3, 0.2], [-1.0, 0.3, -0.6]], np.float32)
    t, _ = scene.intersect(o, np.array([[1, 0, 0], [1, 0, 0]], np.float32))
    assert abs(t[0] - 1.0) < 1e-6 and t[1] == np.inf


def test_bad_heightfields_are_named(ctx: wr.Context) -> None:
    h = grid()
    with pytest.raises(wr.Error, match="Scene.from_heightfield: heights"):
        wr.Scene.from_heightfield(ctx, h[0], 1.0)  # 1-D
    with pytest.raises(wr.Error, match="desc->num_x = 1: must be at least 2"):
        wr.Scene.from_heightfield(ctx, h[:, :1].copy(), 1.0)
    with pytest.raises(wr.Error, match="desc->spacing_y = 0: must be finite and > 0"):
        wr.Scene.from_heightfield(ctx, h, (1.0, 0.0))
    bad = h.copy()
    bad[2, 3] = np.nan
    with pytest.raises(wr.Error, match=r"desc->heights\[19\] \(sample ix = 3, iy = 2\) = nan"):
        wr.Scene.from_heightfield(ctx, bad, 1.0)
