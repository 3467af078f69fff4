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


def legged_gym_trimesh(hf: np.ndarray, horizontal_scale: float, vertical_scale: float, slope_threshold=None):
    """legged_gym's convert_heightfield_to_trimesh (isaacgym terrain_utils.py; Rudin et al., CoRL
    2021), reimplemented from its published description: vertex (i, j) at (i, j) * horizontal_scale
    (rows along x), with a slope threshold moved by one cell towards a steep neighbour to make
    vertical walls; cell (i, j)'s triangles (v(i, j), v(i + 1, j + 1), v(i, j + 1)) and
    (v(i, j), v(i + 1, j), v(i + 1, j + 1))."""
    rows, cols = hf.shape
    xx, yy = np.meshgrid(np.linspace(0, (rows - 1) * horizontal_scale, rows),
                         np.linspace(0, (cols - 1) * horizontal_scale, cols), indexing="ij")
    if slope_threshold is not None:
        s = slope_threshold * horizontal_scale / vertical_scale
        h = hf.astype(np.float64)
        mx, my, mc = np.zeros(hf.shape), np.zeros(hf.shape), np.zeros(hf.shape)
        mx[:-1, :] += h[1:, :] - h[:-1, :] > s
        mx[1:, :] -= h[:-1, :] - h[1:, :] > s
        my[:, :-1] += h[:, 1:] - h[:, :-1] > s
        my[:, 1:] -= h[:, :-1] - h[:, 1:] > s
        mc[:-1, :-1] += h[1:, 1:] - h[:-1, :-1] > s
        mc[1:, 1:] -= h[:-1, :-1] - h[1:, 1:] > s
        xx = xx + (mx + mc * (mx == 0)) * horizontal_scale
        yy = yy + (my + mc * (my == 0)) * horizontal_scale
    vertices = np.stack([xx.ravel(), yy.ravel(), hf.ravel() * vertical_scale], -1).astype(np.float32)
    k = (np.arange(rows - 1)[:, None] * cols + np.arange(cols - 1)[None, :]).ravel()
    first = np.stack([k, k + cols + 1, k + 1], -1)
    second = np.stack([k, k + cols, k + cols + 1], -1)
    return vertices, np.stack([first, second], 1).reshape(-1, 3).astype(np.uint32)


def stepped_field(rows: int = 40, cols: int = 31) -> np.ndarray:
    rng = np.random.default_rng(7)
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return (rng.integers(0, 6, (rows, cols)) + 80 * (((i // 5) + (j // 4)) % 3 == 0)).astype(np.int16)


def renders(scene: wr.Scene, n: int = 12) -> np.ndarray:
    rng = np.random.default_rng(2)
    (lo, hi) = scene.bounds
    poses = np.zeros((n, 7), np.float32)
    poses[:, 0] = rng.uniform(lo[0], hi[0], n)
    poses[:, 1] = rng.uniform(lo[1], hi[1], n)
    poses[:, 2] = hi[2] + rng.uniform(0.1, 1.0, n)
    yaw, pitch = rng.uniform(-np.pi, np.pi, n), rng.uniform(0.1, 0.8, n)  # wxyz: yaw, then pitch down
    poses[:, 3] = np.cos(yaw / 2) * np.cos(pitch / 2)
    poses[:, 4] = -np.sin(yaw / 2) * np.sin(pitch / 2)
    poses[:, 5] = np.cos(yaw / 2) * np.sin(pitch / 2)
    poses[:, 6] = np.sin(yaw / 2) * np.cos(pitch / 2)
    return wr.Sensor(scene, wr.Camera.pinhole(40, 30, 87.0, far=20.0, miss_value=21.0), num_envs=n).render(poses)


def test_legged_gym_meshes_through_their_grid_render_as_their_bvh(ctx: wr.Context) -> None:
    for threshold in (None, 0.75, 1.5):
        vertices, triangles = legged_gym_trimesh(stepped_field(), 0.1, 0.005, threshold)
        bvh = wr.Scene(ctx, vertices, triangles)
        grid = wr.Scene.from_grid_mesh(ctx, vertices, triangles)
        assert (bvh.terrain_kind, grid.terrain_kind) == ("bvh", "grid")
        assert grid.num_triangles == bvh.num_triangles and grid.bounds == bvh.bounds
        want = renders(bvh)
        assert (want < 21.0).mean() > 0.3
        assert renders(grid).tobytes() == want.tobytes()
        tags = grid.memory()["tags"]
        # A z per vertex, an x per row and a y per column, the moved vertices' x and y beside them.
        assert vertices.nbytes / 3 < tags["grid_samples"]["host_bytes"] < vertices.nbytes
        assert tags["bvh_nodes"]["host_bytes"] == 0
    bad = triangles.copy()
    bad[4] = bad[4][[0, 2, 1]]
    with pytest.raises(wr.Error, match=r"wr_scene_create_grid_mesh: .*triangles 4 and 5"):
        wr.Scene.from_grid_mesh(ctx, vertices, bad)


def test_a_height_field_as_a_grid_has_the_bvhs_hits(ctx: wr.Context) -> None:
    h = stepped_field().astype(np.float32) * 0.005
    grid = wr.Scene.from_heightfield(ctx, h, 0.1, base_depth=0.2, terrain="grid")
    bvh = wr.Scene.from_heightfield(ctx, h, 0.1, base_depth=0.2)  # "auto": the BVH today
    assert (grid.terrain_kind, bvh.terrain_kind) == ("grid", "bvh")
    assert renders(grid).tobytes() == renders(bvh).tobytes()
    def terrain_bytes(scene: wr.Scene, tags) -> int:
        return sum(scene.memory()["tags"][t]["host_bytes"] for t in tags)
    surface = terrain_bytes(grid, ("grid_samples", "grid_pyramid"))
    assert surface * 5 < terrain_bytes(bvh, ("bvh_nodes", "bvh_triangles", "bvh_parents"))
    with pytest.raises(wr.Error, match="terrain = 'mesh': must be 'auto', 'bvh' or 'grid'"):
        wr.Scene.from_heightfield(ctx, h, 0.1, terrain="mesh")
