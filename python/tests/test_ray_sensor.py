"""Ray patterns and pattern sensors from Python (wr.Pattern, wr.RaySensor, wr.rl's height scans):
the patterns against IsaacLab's published formulas (isaaclab/sensors/ray_caster/patterns/
patterns.py, reimplemented here with numpy), a height scan against its closed form over a plane,
the hits against Scene.intersect on the sensor's own world rays (the same bits), torch in and out
without a copy, and the errors that name the culprit."""

from __future__ import annotations

import math

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import SMALL_TERRAIN


def _plane(ctx: wr.Context, z: float, half: float = 20.0) -> wr.Scene:
    v = np.array([[-half, -half, z], [half, -half, z], [half, half, z], [-half, half, z]], np.float32)
    return wr.Scene(ctx, v, np.array([[0, 1, 2], [0, 2, 3]], np.uint32))


def test_grid_is_isaaclabs_grid_pattern() -> None:
    p = wr.Pattern.grid(size=(1.6, 1.0), resolution=0.1)
    assert p.num_rays == 187
    starts, dirs = p.rays()
    # grid_pattern: arange(-s/2, s/2 + 1e-9, res) per axis, meshgrid(x, y, indexing="xy").
    x = (-0.8 + 0.1 * np.arange(math.ceil((1.6 + 1e-9) / 0.1))).astype(np.float32)
    y = (-0.5 + 0.1 * np.arange(math.ceil((1.0 + 1e-9) / 0.1))).astype(np.float32)
    gx, gy = np.meshgrid(x, y, indexing="xy")
    np.testing.assert_array_equal(starts[:, 0], gx.ravel())
    np.testing.assert_array_equal(starts[:, 1], gy.ravel())
    np.testing.assert_array_equal(dirs, np.tile(np.float32([0, 0, -1]), (187, 1)))
    ij = wr.Pattern.grid(size=(1.6, 1.0), resolution=0.1, ordering="ij").rays()[0]
    gx, gy = np.meshgrid(x, y, indexing="ij")
    np.testing.assert_array_equal(ij[:, 0], gx.ravel())


def test_spherical_is_isaaclabs_lidar_pattern() -> None:
    p = wr.Pattern.spherical(channels=16, vertical_fov=(-15, 15), horizontal_fov=(-180, 180),
                             horizontal_resolution=0.2)
    assert p.num_rays == 16 * 1800
    # lidar_pattern: linspace vertical; ceil(range / res) + 1 azimuths, the 360-degree one dropped.
    v = np.deg2rad(np.linspace(-15, 15, 16))
    h = np.deg2rad(np.linspace(-180, 180, 1801)[:-1])
    va, ha = np.meshgrid(v, h, indexing="ij")
    want = np.stack([np.cos(va) * np.cos(ha), np.cos(va) * np.sin(ha), np.sin(va)], -1).reshape(-1, 3)
    np.testing.assert_allclose(p.rays()[1], want, atol=1e-7)


def test_bpearl_is_isaaclabs_bpearl_pattern() -> None:
    angles = [89.5, 86.6875, 50.0, 2.5, -0.3125]
    p = wr.Pattern.bpearl(angles)
    # bpearl_pattern: h = arange(-fov/2, fov/2, res); meshgrid(v, h, "xy"); pitch = v + 90;
    # directions -(sin p cos h, sin p sin h, cos p).
    h = np.arange(-180.0, 180.0, 10.0)
    pitch, yaw = np.meshgrid(np.float32(angles), h, indexing="xy")
    pitch, yaw = np.deg2rad(pitch.reshape(-1)) + np.pi / 2, np.deg2rad(yaw.reshape(-1))
    want = -np.stack([np.sin(pitch) * np.cos(yaw), np.sin(pitch) * np.sin(yaw), np.cos(pitch)], -1)
    np.testing.assert_allclose(p.rays()[1], want, atol=2e-7)


def test_isaaclab_height_scan_over_a_plane() -> None:
    ctx = wr.Context("cpu", threads=2)
    scene = _plane(ctx, 0.125, half=10.0)
    scan = wr.rl.isaaclab_height_scan(scene, 3)
    assert scan.shape == (3, 187)
    poses = np.array([[0, 0, 0.75, 1, 0, 0, 0], [1, 1, 3.0, 1, 0, 0, 0], [50, 0, 1.0, 1, 0, 0, 0]], np.float32)
    h = scan.render(poses)
    assert h.shape == (3, 187) and h.dtype == np.float32
    np.testing.assert_allclose(h[0], 0.125, atol=4e-6)  # 0.75 - 0.125 - 0.5
    np.testing.assert_array_equal(h[1], 1.0)             # clipped
    np.testing.assert_array_equal(h[2], -1.0)            # nothing below: IsaacLab's -inf, clipped
    assert scan.memory()["per_env_bytes"] == 0


def test_legged_gym_height_scan_over_a_plane() -> None:
    ctx = wr.Context("cpu", threads=1)
    scan = wr.rl.legged_gym_height_scan(_plane(ctx, 0.25), 2)
    root_states = np.zeros((2, 13), np.float32)
    root_states[:, 2] = [0.5, 1.0]
    root_states[:, 6] = 1.0  # xyzw identity
    h = scan.render(root_states)
    np.testing.assert_allclose(h[0], -0.25, atol=4e-6)
    np.testing.assert_allclose(h[1], 0.25, atol=4e-6)
    starts = scan.pattern.rays()[0]
    assert starts.shape == (187, 3)
    np.testing.assert_allclose(starts[:11, 0], -0.8, atol=1e-6)  # y fastest (meshgrid's 'ij')


def test_hits_equal_scene_intersect_on_the_world_rays() -> None:
    ctx = wr.Context("cpu", threads=2)
    scene = wr.Scene.from_obj(ctx, str(SMALL_TERRAIN))
    lidar = wr.RaySensor(scene, wr.Pattern.spherical(channels=8, vertical_fov=(-30, 5), horizontal_resolution=2.0),
                         4, mount_position=(0.2, 0, 0.1), max_distance=20.0, yaw_rule="mjlab", alignment="yaw")
    rng = np.random.default_rng(3)
    (lo, hi) = scene.bounds
    poses = np.zeros((4, 7), np.float32)
    poses[:, 0] = rng.uniform(lo[0], hi[0], 4)
    poses[:, 1] = rng.uniform(lo[1], hi[1], 4)
    poses[:, 2] = hi[2] + 0.5
    q = rng.normal(size=(4, 4))
    poses[:, 3:] = q / np.linalg.norm(q, axis=1, keepdims=True)
    d = lidar.render(poses)
    for e in range(4):
        starts, dirs = lidar.world_rays(poses[e])
        t = np.empty(lidar.num_rays, np.float32)
        scene.intersect(starts, dirs, out_t=t, tmax=np.full(lidar.num_rays, 20.0, np.float32))
        np.testing.assert_array_equal(d[e].view(np.uint32), t.view(np.uint32))
        assert np.isfinite(t).sum() > lidar.num_rays // 4


def test_torch_in_and_out_without_a_copy() -> None:
    torch = pytest.importorskip("torch")
    ctx = wr.Context("cpu", threads=1)
    scan = wr.RaySensor(_plane(ctx, 0.0), wr.Pattern.grid(size=(0.2, 0.2)), 2,
                        pipeline=wr.Pipeline(dtype="float16"))
    poses = torch.tensor([[0, 0, 1.5, 1, 0, 0, 0], [0, 0, 2.0, 1, 0, 0, 0]], dtype=torch.float32)
    out = torch.empty((2, 9), dtype=torch.float16)
    got = scan.render(poses, out=out)
    assert got.data_ptr() == out.data_ptr()
    assert torch.equal(out[0], torch.full((9,), 1.5, dtype=torch.float16))
    assert torch.equal(scan.render(poses)[1], torch.full((9,), 2.0, dtype=torch.float16))


def test_errors_name_the_culprit() -> None:
    ctx = wr.Context("cpu", threads=1)
    scene = _plane(ctx, 0.0)
    with pytest.raises(wr.Error, match="ordering = 'yx'"):
        wr.Pattern.grid(ordering="yx")
    with pytest.raises(wr.Error, match="desc->grid_resolution"):
        wr.Pattern.grid(resolution=0.0)
    with pytest.raises(wr.Error, match=r"desc->table_directions\[1\]"):
        wr.Pattern.table(np.float32([[0, 0, -1], [0, 0, 0]]))
    with pytest.raises(wr.Error, match="alignment = 'heading'"):
        wr.RaySensor(scene, wr.Pattern.grid(), 1, alignment="heading")
    with pytest.raises(wr.Error, match="options->noise"):
        wr.RaySensor(scene, wr.Pattern.grid(), 1, value="height", pipeline=wr.Pipeline(noise=wr.Noise(range_sigma=(0.01, 0, 0))))
    scan = wr.RaySensor(scene, wr.Pattern.grid(size=(0.2, 0.2)), 2)
    with pytest.raises(wr.Error, match=r"out has shape .*\(num_envs, num_rays\)"):
        scan.render(np.zeros((2, 7), np.float32), out=np.zeros((2, 1, 9), np.float32))
    with pytest.raises(wr.Error, match="intrinsics"):
        scan.render(np.zeros((2, 7), np.float32), inputs=wr.RenderInputs(intrinsics=np.ones((2, 4), np.float32)))
    bad = np.array([[0, 0, 1, 1, 0, 0, 0], [0, 0, np.nan, 1, 0, 0, 0]], np.float32)
    out = np.full((2, 9), 7.0, np.float32)
    with pytest.raises(wr.Error, match="env 1"):
        scan.render(bad, out=out)
    np.testing.assert_array_equal(out, 7.0)


def test_scanning_rosette_reads_a_window_per_frame() -> None:
    ctx = wr.Context("cpu", threads=1)
    scene = _plane(ctx, 0.0)
    rosette = wr.Pattern.rosette(fov=60.0, count=40, revolutions=(0.137, -0.071))
    down = (math.cos(0.6), 0.0, math.sin(0.6), 0.0)  # looking 69 degrees down
    full = wr.RaySensor(scene, rosette, 2, mount_rotation=down)
    scan = wr.RaySensor(scene, rosette, 2, mount_rotation=down, rays_per_frame=15)
    assert scan.shape == (2, 15)
    poses = np.array([[0, 0, 2.0, 1, 0, 0, 0], [1, 1, 3.0, 1, 0, 0, 0]], np.float32)
    everything = full.render(poses)
    for frame in range(4):  # 0, 15, 30, 45 = 5: wraps around
        got = scan.render(poses, frame=frame)
        idx = (frame * 15 + np.arange(15)) % 40
        np.testing.assert_array_equal(got, everything[:, idx])
        starts, dirs = scan.world_rays(poses[1], env=1, frame=frame)
        np.testing.assert_array_equal(dirs, full.world_rays(poses[1])[1][idx])
    with pytest.raises(wr.Error, match="desc->rays_per_frame"):
        wr.RaySensor(scene, rosette, 1, rays_per_frame=41)


def test_several_frames_per_env_from_rigid_body_states() -> None:
    # mjlab's per-foot scans: one pattern, frames on bodies 1 and 2 of (N, 3, 13) rigid-body states.
    ctx = wr.Context("cpu", threads=1)
    scene = _plane(ctx, 0.25)
    grid = wr.Pattern.grid(size=(0.2, 0.2))
    feet = wr.RaySensor(scene, grid, 2, frame_pose_offsets=[13, 26], value="height", alignment="yaw",
                        offset_position=(0, 0, 5))
    assert feet.shape == (2, 2, 9) and feet.num_frames == 2
    states = np.zeros((2, 3, 13), np.float32)
    states[:, :, 3] = 1.0  # identity, w x y z
    states[0, 1, 2], states[0, 2, 2], states[1, 1, 2], states[1, 2, 2] = 1.0, 1.5, 2.0, 0.5
    h = feet.render(states)
    np.testing.assert_allclose(h[:, 0], [[0.75] * 9, [1.75] * 9], atol=4e-6)
    np.testing.assert_allclose(h[:, 1], [[1.25] * 9, [0.25] * 9], atol=4e-6)
    starts, _ = feet.world_rays(states[1])
    assert starts.shape == (2, 9, 3)
    np.testing.assert_allclose(starts[1, :, 2], 5.5)
    with pytest.raises(wr.Error, match="args->mounts is set, but this pattern sensor has 2 frames"):
        feet.render(states, inputs=wr.RenderInputs(mounts=np.zeros((2, 7), np.float32)))
    assert "num_frames=2" in repr(feet)


def test_isaaclab_lidar_is_its_ray_caster_with_a_lidar_pattern() -> None:
    # RayCasterCfg(pattern_cfg=LidarPatternCfg(channels=8, vertical_fov_range=(-20, 10),
    # horizontal_fov_range=(-60, 60), horizontal_res=1.0), offset=OffsetCfg(pos, rot)): its rays are
    # lidar_pattern's, the directions turned by offset.rot and the starts moved by offset.pos.
    ctx = wr.Context("cpu", threads=1)
    half = math.radians(15) / 2
    rot = (math.cos(half), 0.0, math.sin(half), 0.0)  # 15 degrees down about +y, w x y z
    lidar = wr.rl.isaaclab_lidar(_plane(ctx, 0.0), 2, channels=8, vertical_fov_range=(-20, 10),
                                 horizontal_fov_range=(-60, 60), horizontal_res=1.0, offset_pos=(0.1, 0.0, 0.3),
                                 offset_rot=rot, max_distance=30.0)
    assert lidar.shape == (2, 8 * 121)
    v = np.deg2rad(np.linspace(-20, 10, 8))
    h = np.deg2rad(np.linspace(-60, 60, int(math.ceil(120 / 1.0)) + 1))
    va, ha = np.meshgrid(v, h, indexing="ij")
    d = np.stack([np.cos(va) * np.cos(ha), np.cos(va) * np.sin(ha), np.sin(va)], -1).reshape(-1, 3)
    w, xyz = np.array(rot[:1]), np.array(rot[1:])
    t = 2.0 * np.cross(xyz, d)
    want = d + w * t + np.cross(xyz, t)  # IsaacLab's quat_apply(offset.rot, directions)
    starts, dirs = lidar.world_rays(np.float32([0, 0, 1, 1, 0, 0, 0]))
    np.testing.assert_allclose(dirs, want, atol=2e-6)
    np.testing.assert_allclose(starts, np.tile([0.1, 0.0, 1.3], (len(starts), 1)), atol=1e-6)
    out = lidar.render(np.float32([[0, 0, 1, 1, 0, 0, 0], [1, 1, 2, 1, 0, 0, 0]]))
    # env 0's hits on the plane z = 0 (20 m a side): t = 1.3 / -dz where within 30 m and the plane
    with np.errstate(divide="ignore"):
        t = np.where(want[:, 2] < 0, 1.3 / -want[:, 2], np.inf)
    xy = np.abs(starts[:, :2] + t[:, None] * want[:, :2]).max(1)
    hit = (t < 29.9) & (xy < 19.9)
    gone = (t > 30.1) | (xy > 20.1)
    np.testing.assert_allclose(out[0][hit], t[hit], rtol=1e-5)
    assert hit.sum() > 200 and not np.isfinite(out[0][gone]).any()


def test_hit_details_are_the_triangles_own() -> None:
    # A roof of two slopes (triangles 0, 1 face +x and up, 2, 3 face -x and up) under a LiDAR: each
    # ray's triangle is Scene.intersect's, its point start + t dir, its normal the triangle's own
    # facing the ray; in the pattern frame, the world ones in the sensor's axes.
    ctx = wr.Context("cpu", threads=2)
    v = np.float32([[0, -5, 2], [0, 5, 2], [4, -5, 0], [4, 5, 0], [-4, -5, 0], [-4, 5, 0]])
    tris = np.uint32([[0, 2, 3], [0, 3, 1], [0, 1, 5], [0, 5, 4]])
    scene = wr.Scene(ctx, v, tris)
    pattern = wr.Pattern.spherical(channels=6, vertical_fov=(-60, -10), horizontal_resolution=10.0)
    poses = np.float32([[0.5, 0.2, 4.0, 1, 0, 0, 0], [-1.0, 1.0, 3.5, 0.9659, 0, 0, 0.2588]])
    lidar = wr.RaySensor(scene, pattern, 2, mount_position=(0.1, 0, 0.2), max_distance=30.0)
    hits = lidar.render_hits(poses)
    assert isinstance(hits, wr.Hits) and hits.values.shape == lidar.shape
    assert hits.points.shape == (2, lidar.num_rays, 3) and hits.triangle_ids.dtype == np.int32
    hit = hits.triangle_ids >= 0
    assert hit.sum() > lidar.num_rays // 2 and (hits.instance_ids == -1).all()
    for e in range(2):
        starts, dirs = lidar.world_rays(poses[e])
        t, tri = scene.intersect(starts, dirs, np.full(lidar.num_rays, 30.0, np.float32))
        np.testing.assert_array_equal(hits.triangle_ids[e], tri)
        h = tri >= 0
        np.testing.assert_allclose(hits.points[e][h], starts[h] + t[h, None] * dirs[h], atol=2e-6)
        assert np.isinf(hits.points[e][~h]).all() and (hits.normals[e][~h] == 0).all()
        a, b, c = (v[tris[tri[h], k]].astype(np.float64) for k in range(3))
        n = np.cross(b - a, c - a)
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        n *= np.where((n * dirs[h]).sum(axis=1) > 0, -1.0, 1.0)[:, None]
        np.testing.assert_allclose(hits.normals[e][h], n, atol=1e-6)
    local = wr.RaySensor(scene, pattern, 2, mount_position=(0.1, 0, 0.2), max_distance=30.0, hit_frame="pattern")
    points = np.empty((2, lidar.num_rays, 3), np.float32)
    hl = local.render_hits(poses, wr.Hits(values=None, points=points, normals=None, triangle_ids=None,
                                          instance_ids=None))
    assert hl.points is points
    for e in range(2):
        q = poses[e, 3:].astype(np.float64)
        w, x, y, z = q / np.linalg.norm(q)
        r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        sensor = poses[e, :3] + r @ np.float64([0.1, 0, 0.2])
        h = hit[e]
        np.testing.assert_allclose(hl.points[e][h], (hits.points[e][h] - sensor) @ r, atol=2e-5)
        np.testing.assert_allclose(hl.normals[e][h], hits.normals[e][h] @ r, atol=2e-6)
    with pytest.raises(wr.Error, match="hit_frame = 'body'"):
        wr.RaySensor(scene, pattern, 1, hit_frame="body")
    # A camera writes them too (one per pixel: Sensor.render_hits); with a history it refuses them.
    camera = wr.Sensor(scene, wr.Camera.pinhole(8, 8, 90.0), 1)
    tri = np.full((1, 8, 8), 7, np.int32)
    camera.render_hits(poses[:1], wr.Hits(values=None, points=None, normals=None, triangle_ids=tri, instance_ids=None))
    assert not (tri == 7).any()
    history = wr.Sensor(scene, wr.Camera.pinhole(8, 8, 90.0), 1, pipeline=wr.Pipeline(history=2))
    with pytest.raises(wr.Error, match=r"instance_ids is set, but this sensor's output pixels are not each one "
                                       r"camera pixel's \(a history\): ids need .*history_length <= 1"):
        history.render_hits(poses[:1], wr.Hits(values=None, points=None, normals=None, triangle_ids=tri,
                                               instance_ids=None))
