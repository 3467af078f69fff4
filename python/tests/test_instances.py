"""Moving geometry from Python (Scene.instanced): a floor and cubes posed per env under downward
cameras, against an independent float64 NumPy ray caster (slab test against the cubes' boxes, the
floor's plane); instance ids, env isolation, exclusion groups, bad instance poses named with env
and slot, explicit rays in per-env blocks, quaternion orders, and torch CPU tensors in and out
without a copy. The CUDA case skips, saying why, without a GPU."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import cuda_context_or_skip

torch = pytest.importorskip("torch")

HEIGHT = 3.5                          # every camera, looking straight down
DOWN = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)  # w x y z: +90 deg about y, +X to -Z
IDENTITY = (1.0, 0.0, 0.0, 0.0)
HALF = 0.1                            # the cube prototype: 0.2 m, centred on its origin
CAMERA = wr.Camera.pinhole(33, 33, 30.0)  # odd: the centre pixel's ray is the optical axis


def box_mesh(hx: float, hy: float, hz: float) -> tuple:
    """A closed box centred on its origin: 8 corners, 12 triangles."""
    corners = np.array([[sx * hx, sy * hy, sz * hz] for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)],
                       np.float32)  # corner i = x bit 0, y bit 1, z bit 2
    tris = np.array([[0, 1, 3], [0, 3, 2], [4, 7, 5], [4, 6, 7], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
                     [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], np.int32)
    return corners, tris


def floor_scene(ctx: wr.Context) -> wr.Scene:
    v = np.array([[-50, -50, 0], [50, -50, 0], [50, 50, 0], [-50, 50, 0]], np.float32)
    return wr.Scene(ctx, v, np.array([[0, 1, 2], [0, 2, 3]], np.int32))


def make_scene(ctx: wr.Context, slot_groups=None, globals_=False) -> wr.Scene:
    """Floor + prototypes [cube, slab 0.6 x 0.1 x 0.1]; slots: one cube per slot group (one slot
    without groups); globals: one cube (group 2) when asked."""
    cube = wr.Scene(ctx, *box_mesh(HALF, HALF, HALF))
    slab = wr.Scene(ctx, *box_mesh(0.3, 0.05, 0.05))
    slots = [0] * (len(slot_groups) if slot_groups is not None else 1)
    return wr.Scene.instanced(ctx, floor_scene(ctx), [cube, slab], slots, slot_groups,
                              [0] if globals_ else None, [2] if globals_ else None)


def camera_poses(n: int, xy=(0.0, 0.0)) -> np.ndarray:
    return np.array([[xy[0], xy[1], HEIGHT, *DOWN]] * n, np.float32)


def cube_pose(x: float, y: float, z: float) -> list:
    return [x, y, z, *IDENTITY]


def instances(instance_poses=None, global_poses=None, **inputs) -> wr.RenderInputs:
    """A render's inputs: the instances' poses (and any other per-env input)."""
    return wr.RenderInputs(instance_poses=instance_poses, global_poses=global_poses, **inputs)


def render_ids(sensor: wr.Sensor, poses, out=None, ids=None, **inputs) -> tuple:
    """(depth, instance ids) of one render (Sensor.render_hits), into `out` and `ids` when given."""
    hits = sensor.render_hits(poses, wr.Hits(values=out, points=None, normals=None, triangle_ids=None,
                                             instance_ids=ids), inputs=instances(**inputs))
    return hits.values, hits.instance_ids


# ---- the independent truth: float64 rays of the documented pinhole model, boxes by slabs ----


def pixel_rays(cam: wr.Camera) -> np.ndarray:
    """World directions (H, W, 3) of a camera at DOWN, with x = 1 in the camera frame, so that t
    along them is the plane depth."""
    u, v = np.meshgrid(np.arange(cam.width, dtype=np.float64), np.arange(cam.height, dtype=np.float64))
    a, b = -(u + 0.5 - cam.cx) / cam.fx, -(v + 0.5 - cam.cy) / cam.fy   # camera +Y (left), +Z (up)
    # camera +X -> world -Z, +Y -> world +Y, +Z -> world +X (rotation of +90 degrees about y)
    return np.stack([b, a, -np.ones_like(a)], -1)


def reference(origin, boxes, cam: wr.Camera = CAMERA):
    """(depth, ids, ambiguous) of a camera at `origin` looking down over the floor z = 0 and the
    axis-aligned `boxes` (id, centre, half extents): nearest hit by slab test, float64. ambiguous
    marks rays that graze an edge or see two surfaces at almost the same depth."""
    d = pixel_rays(cam)
    o = np.asarray(origin, np.float64)
    depth = np.full(d.shape[:2], o[2] / 1.0)  # the floor (d_z = -1: t = height)
    ids = np.full(d.shape[:2], -1, np.int64)
    ambiguous = np.zeros(d.shape[:2], bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for box_id, centre, half in boxes:
            lo, hi = np.asarray(centre) - half, np.asarray(centre) + half
            t1, t2 = (lo - o) / d, (hi - o) / d
            near, far = np.minimum(t1, t2).max(-1), np.maximum(t1, t2).min(-1)
            hit = (near <= far) & (near > 0)
            ambiguous |= np.isnan(t1).any(-1) | np.isnan(t2).any(-1)  # a ray in the plane of a face
            ambiguous |= np.abs(near - far) < 1e-4 * np.maximum(far, 1.0)
            ambiguous |= hit & (np.abs(near - depth) < 1e-4)
            closer = hit & (near < depth)
            depth = np.where(closer, near, depth)
            ids = np.where(closer, box_id, ids)
    return depth, ids, ambiguous


def check_env(depth: np.ndarray, ids: np.ndarray, origin, boxes, what: str) -> None:
    want_depth, want_ids, ambiguous = reference(origin, boxes)
    assert ambiguous.mean() < 0.02, what
    ok = ~ambiguous
    np.testing.assert_allclose(depth[ok], want_depth[ok], rtol=1e-5, err_msg=what)
    np.testing.assert_array_equal(ids[ok], want_ids[ok], err_msg=what)


@pytest.fixture(scope="module")
def ctx() -> wr.Context:
    return wr.Context("cpu", threads=2)


# ---- rendering ---------------------------------------------------------------------------------


def test_a_cube_per_env_gives_the_closed_form_depth_and_ids(ctx: wr.Context) -> None:
    scene = make_scene(ctx)
    assert scene.instance_counts == (1, 0) and floor_scene(ctx).instance_counts == (0, 0)
    assert scene.num_triangles == 2  # the terrain's
    n = 3
    sensor = wr.Sensor(scene, CAMERA, num_envs=n)
    heights = [1.0, 1.7, 2.6]  # each env's cube centre, straight under its camera
    slots = np.array([[cube_pose(0.0, 0.0, z)] for z in heights], np.float32)
    depth, ids = render_ids(sensor, camera_poses(n), instance_poses=slots)
    assert isinstance(depth, np.ndarray) and ids.dtype == np.int32 and ids.shape == sensor.shape
    c = CAMERA.height // 2, CAMERA.width // 2
    for e, z in enumerate(heights):
        # the centre pixel: camera height minus the cube's top; the floor at the corners
        assert depth[e][c] == pytest.approx(HEIGHT - (z + HALF), rel=1e-6)
        assert ids[e][c] == 0
        assert depth[e, 0, 0] == pytest.approx(HEIGHT, rel=1e-6) and ids[e, 0, 0] == -1
        check_env(depth[e], ids[e], (0, 0, HEIGHT), [(0, (0, 0, z), HALF)], f"env {e}")
    # uint32 ids: the C API's 0xFFFFFFFF for the floor
    ids32 = np.empty(sensor.shape, np.uint32)
    out = np.empty(sensor.shape, np.float32)
    got = render_ids(sensor, camera_poses(n), out, ids32, instance_poses=slots)
    assert got[0] is out and got[1] is ids32
    assert ids32[0, 0, 0] == 0xFFFFFFFF and ids32[0][c] == 0
    np.testing.assert_array_equal(out, depth)
    # an instanced scene needs the slots' poses: named, with the shape it wants
    with pytest.raises(wr.Error, match=r"Sensor.render: instance_poses is None, but the scene has 1 instance slots "
                                       r"per env: pass their poses, \(num_envs, num_slots, 7\) = \(3, 1, 7\)"):
        sensor.render(camera_poses(n))
    with pytest.raises(wr.Error, match=r"Sensor.render: instance_poses has shape \(3, 2, 7\), expected "
                                       r"\(num_envs, num_slots, 7\) = \(3, 1, 7\)"):
        sensor.render(camera_poses(n), inputs=instances(np.zeros((3, 2, 7), np.float32)))
    with pytest.raises(wr.Error, match=r"instance_ids has dtype float32, expected uint32 or int32"):
        render_ids(sensor, camera_poses(n), ids=np.empty(sensor.shape, np.float32), instance_poses=slots)


def test_global_instances_and_the_slot_ids(ctx: wr.Context) -> None:
    scene = make_scene(ctx, slot_groups=[0, 1], globals_=True)
    assert scene.instance_counts == (2, 1)
    sensor = wr.Sensor(scene, CAMERA, num_envs=2)
    # env 0: slot 0 centred, slot 1 off to +y; env 1: slot 1 centred, slot 0 far away. The
    # global cube (instance 2) is seen by both, off to -x.
    slots = np.array([[cube_pose(0, 0, 1.5), cube_pose(0, 0.45, 1.0)],
                      [cube_pose(20, 20, 1.0), cube_pose(0, 0, 2.0)]], np.float32)
    globals_ = np.array([cube_pose(-0.5, 0.13, 0.4)], np.float32)
    depth, ids = render_ids(sensor, camera_poses(2), instance_poses=slots, global_poses=globals_)
    check_env(depth[0], ids[0], (0, 0, HEIGHT),
              [(0, (0, 0, 1.5), HALF), (1, (0, 0.45, 1.0), HALF), (2, (-0.5, 0.13, 0.4), HALF)], "env 0")
    check_env(depth[1], ids[1], (0, 0, HEIGHT),
              [(0, (20, 20, 1.0), HALF), (1, (0, 0, 2.0), HALF), (2, (-0.5, 0.13, 0.4), HALF)], "env 1")
    assert set(np.unique(ids[0])) == {-1, 0, 1, 2} and set(np.unique(ids[1])) == {-1, 1, 2}
    with pytest.raises(wr.Error, match=r"global_poses is None, but the scene has 1 global instances"):
        sensor.render(camera_poses(2), inputs=instances(slots))


def test_envs_see_only_their_own_slots(ctx: wr.Context) -> None:
    # Every camera at the same place: env e's image shows env e's cube only, and moving env 1's
    # cube changes env 1's image alone, to the byte.
    scene = make_scene(ctx)
    n = 4
    sensor = wr.Sensor(scene, CAMERA, num_envs=n)
    slots = np.array([[cube_pose(0, 0, 1.0 + 0.4 * e)] for e in range(n)], np.float32)
    before, ids_before = render_ids(sensor, camera_poses(n), instance_poses=slots)
    for e in range(n):
        check_env(before[e], ids_before[e], (0, 0, HEIGHT), [(0, (0, 0, 1.0 + 0.4 * e), HALF)], f"env {e}")
    slots[1, 0, :3] = (0.2, -0.15, 2.4)
    after, ids_after = render_ids(sensor, camera_poses(n), instance_poses=slots)
    for e in (0, 2, 3):
        assert after[e].tobytes() == before[e].tobytes() and np.array_equal(ids_after[e], ids_before[e])
    assert not np.array_equal(after[1], before[1])
    check_env(after[1], ids_after[1], (0, 0, HEIGHT), [(0, (0.2, -0.15, 2.4), HALF)], "env 1 moved")


def test_exclude_groups_hides_a_group(ctx: wr.Context) -> None:
    # Slot 0 (group 0) right above slot 1 (group 1): from above, slot 0 hides slot 1.
    scene = make_scene(ctx, slot_groups=[0, 1])
    slots = np.array([[cube_pose(0, 0, 2.0), cube_pose(0, 0, 1.0)]], np.float32)
    c = CAMERA.height // 2, CAMERA.width // 2
    expect = {(): (HEIGHT - 2.1, 0), (0,): (HEIGHT - 1.1, 1), (0, 1): (HEIGHT, -1), (1,): (HEIGHT - 2.1, 0)}
    for groups, (want_depth, want_id) in expect.items():
        sensor = wr.Sensor(scene, CAMERA, num_envs=1, exclude_groups=groups)
        assert sensor.exclude_groups == tuple(groups)
        depth, ids = render_ids(sensor, camera_poses(1), instance_poses=slots)
        assert depth[0][c] == pytest.approx(want_depth, rel=1e-6), groups
        assert ids[0][c] == want_id, groups
        visible = [(i, (0, 0, z), HALF) for i, z in ((0, 2.0), (1, 1.0)) if i not in groups]
        check_env(depth[0], ids[0], (0, 0, HEIGHT), visible, f"exclude {groups}")
    # with a pipeline, the groups are the sensor's keyword too
    sensor = wr.Sensor(scene, CAMERA, num_envs=1, exclude_groups={0}, pipeline=wr.Pipeline(clip=(0.0, 3.0)))
    depth = sensor.render(camera_poses(1), inputs=instances(slots))
    assert depth[0][c] == pytest.approx(HEIGHT - 1.1, rel=1e-6) and depth[0, 0, 0] == 3.0
    with pytest.raises(wr.Error, match=r"Sensor: exclude_groups holds 32: groups are 0-31"):
        wr.Sensor(scene, CAMERA, exclude_groups=[32])
    with pytest.raises(wr.Error, match=r"Sensor: exclude_groups = 1: pass the groups as a sequence"):
        wr.Sensor(scene, CAMERA, exclude_groups=1)
    opts = wr._wr.SensorOptions()
    opts.exclude_groups = 0b101
    assert opts.exclude_groups == 5


def test_bad_instance_poses_are_named_with_env_and_slot(ctx: wr.Context) -> None:
    scene = make_scene(ctx, slot_groups=[0, 0, 0], globals_=True)
    n = 3
    sensor = wr.Sensor(scene, CAMERA, num_envs=n)
    slots = np.array([[cube_pose(5, 5, 1.0)] * 3] * n, np.float32)
    globals_ = np.array([cube_pose(9, 9, 1.0)], np.float32)
    out = np.full(sensor.shape, -5.0, np.float32)
    slots[1, 2, 4] = np.nan
    with pytest.raises(wr.Error, match=r"instance_poses of env 1, slot 2") as info:
        sensor.render(camera_poses(n), out, inputs=instances(slots, globals_))
    assert info.value.status == wr.Status.ERROR_INVALID_ARGUMENT
    assert (out == -5.0).all()  # nothing written
    slots[1, 2, 4] = 0.0
    slots[2, 0, 3:7] = 0.0  # a zero quaternion
    with pytest.raises(wr.Error, match=r"instance_poses of env 2, slot 0"):
        sensor.render(camera_poses(n), out, inputs=instances(slots, globals_))
    slots[2, 0, 3:7] = IDENTITY
    globals_[0, 0] = np.inf
    with pytest.raises(wr.Error, match=r"global_poses of global instance 0 \(instance 3\)"):
        sensor.render(camera_poses(n), out, inputs=instances(slots, globals_))
    assert (out == -5.0).all()
    # explicit rays name them too
    globals_[0, 0] = 9.0
    slots[0, 1, 0] = np.nan
    with pytest.raises(wr.Error, match=r"instance_poses of env 0, slot 1"):
        scene.intersect(np.zeros((n, 1, 3), np.float32), np.ones((n, 1, 3), np.float32), instance_poses=slots,
                        global_poses=globals_)
    # isolated by a pipeline that isolates bad poses: that env is NaN, its ids -1, the others render
    slots[0, 1, 0] = 5.0
    slots[1, 0, 2] = np.inf
    isolating = wr.Sensor(scene, CAMERA, num_envs=n, pipeline=wr.Pipeline(isolate_bad_poses=True))
    mask = np.zeros(n, bool)
    depth, ids = render_ids(isolating, camera_poses(n), instance_poses=slots, global_poses=globals_,
                            bad_env_mask=mask)
    assert mask.tolist() == [False, True, False]
    assert np.isnan(depth[1]).all() and (ids[1] == -1).all()
    assert np.allclose(depth[0], HEIGHT) and (ids[0] == -1).all()


def test_instance_poses_are_in_the_cameras_quat_order(ctx: wr.Context) -> None:
    # The slab turned 90 degrees about z under the camera: the same render from w x y z and from
    # x y z w floats (IsaacGym's order, the camera's quat_order), and another image when misread.
    cube = wr.Scene(ctx, *box_mesh(HALF, HALF, HALF))
    slab = wr.Scene(ctx, *box_mesh(0.3, 0.05, 0.05))
    scene = wr.Scene.instanced(ctx, floor_scene(ctx), [cube, slab], [1])
    s, c = math.sin(math.pi / 4), math.cos(math.pi / 4)
    wxyz = np.array([[[0, 0, 2.0, c, 0, 0, s]]], np.float32)
    xyzw = np.array([[[0, 0, 2.0, 0, 0, s, c]]], np.float32)
    down_xyzw = np.array([[0, 0, HEIGHT, DOWN[1], DOWN[2], DOWN[3], DOWN[0]]], np.float32)
    a, a_ids = render_ids(wr.Sensor(scene, CAMERA), camera_poses(1), instance_poses=wxyz)
    b, b_ids = render_ids(wr.Sensor(scene, CAMERA.replace(quat_order="xyzw")), down_xyzw, instance_poses=xyzw)
    np.testing.assert_allclose(a, b, rtol=1e-6)  # the same up to rounding of the two orders' products
    np.testing.assert_array_equal(a_ids, b_ids)
    check_env(a[0], a_ids[0], (0, 0, HEIGHT), [(0, (0, 0, 2.0), np.array([0.05, 0.3, 0.05]))], "turned slab")
    _, misread = render_ids(wr.Sensor(scene, CAMERA), camera_poses(1), instance_poses=xyzw)
    assert not np.array_equal(misread, a_ids)  # the slab along x instead of y


def test_ids_need_an_output_of_camera_pixels(ctx: wr.Context) -> None:
    scene = make_scene(ctx)
    sensor = wr.Sensor(scene, CAMERA, num_envs=1, pipeline=wr.Pipeline(out_size=(11, 11), resample="area"))
    slots = np.array([[cube_pose(0, 0, 2.0)]], np.float32)
    assert sensor.render(camera_poses(1), inputs=instances(slots)).shape == (1, 11, 11)
    with pytest.raises(wr.Error, match=r"instance_ids"):
        render_ids(sensor, camera_poses(1), instance_poses=slots)


def test_mesh_scenes_take_the_new_keywords(ctx: wr.Context) -> None:
    # A mesh scene has no instances: ids of the terrain only, and (num_envs, 0, 7) poses are fine.
    sensor = wr.Sensor(floor_scene(ctx), CAMERA, num_envs=2)
    depth, ids = render_ids(sensor, camera_poses(2))
    assert np.allclose(depth, HEIGHT) and (ids == -1).all()
    sensor.render(camera_poses(2), inputs=instances(np.zeros((2, 0, 7), np.float32)))
    with pytest.raises(wr.Error, match=r"instance_poses has shape \(2, 1, 7\), expected .* = \(2, 0, 7\)"):
        sensor.render(camera_poses(2), inputs=instances(np.zeros((2, 1, 7), np.float32)))


# ---- explicit rays -----------------------------------------------------------------------------


def test_explicit_rays_in_per_env_blocks_hit_each_envs_cube(ctx: wr.Context) -> None:
    scene = make_scene(ctx)
    n = 3
    heights = [1.0, 1.8, 2.5]
    slots = np.array([[cube_pose(0.0, 0.0, z)] for z in heights], np.float32)
    # per env: straight down onto its cube, and down at (2, 2) onto the floor
    origins = np.array([[[0, 0, HEIGHT], [2, 2, HEIGHT]]] * n, np.float32)
    directions = np.array([[[0, 0, -1], [0, 0, -1]]] * n, np.float32)
    t, tri, inst = scene.intersect(origins, directions, instance_poses=slots, instances=True)
    assert t.shape == tri.shape == inst.shape == (n, 2)
    for e, z in enumerate(heights):
        assert t[e, 0] == pytest.approx(HEIGHT - (z + HALF), rel=1e-6) and inst[e, 0] == 0 and 0 <= tri[e, 0] < 12
        assert t[e, 1] == pytest.approx(HEIGHT, rel=1e-6) and inst[e, 1] == -1 and 0 <= tri[e, 1] < 2
    # the same rays as (count, 3) in num_envs blocks, into caller-owned uint32 outputs
    out_t = np.empty(2 * n, np.float32)
    out_inst = np.empty(2 * n, np.uint32)
    t2, tri2, inst2 = scene.intersect(origins.reshape(-1, 3), directions.reshape(-1, 3), num_envs=n,
                                      instance_poses=slots, out_t=out_t, out_instance=out_inst)
    assert t2 is out_t and inst2 is out_inst
    np.testing.assert_array_equal(t2, t.reshape(-1))
    np.testing.assert_array_equal(tri2, tri.reshape(-1))
    assert inst2.tolist() == [0, 0xFFFFFFFF] * n
    # a scalar tmax short of the cubes: every ray misses
    t3, _ = scene.intersect(origins, directions, 0.5, instance_poses=slots)
    assert np.isinf(t3).all() and t3.shape == (n, 2)
    # an explicit rays query sees what a sensor of its env sees: the camera's centre ray
    sensor = wr.Sensor(scene, CAMERA, num_envs=n)
    depth = sensor.render(camera_poses(n), inputs=instances(slots))
    np.testing.assert_allclose(t[:, 0], depth[:, 16, 16], rtol=1e-6)
    with pytest.raises(wr.Error, match=r"origins holds 6 rays, not a multiple of num_envs = 4"):
        scene.intersect(origins.reshape(-1, 3), directions.reshape(-1, 3), num_envs=4,
                        instance_poses=np.zeros((4, 1, 7), np.float32))
    with pytest.raises(wr.Error, match=r"origins has shape \(3, 2, 3\), 3 envs, but num_envs = 2"):
        scene.intersect(origins, directions, num_envs=2, instance_poses=slots)
    with pytest.raises(wr.Error, match=r"directions has shape \(6, 3\), expected \(num_envs, rays_per_env, 3\)"):
        scene.intersect(origins, directions.reshape(-1, 3), instance_poses=slots)
    with pytest.raises(wr.Error, match=r"Scene.intersect: instance_poses is None"):
        scene.intersect(origins, directions)


def test_explicit_rays_exclude_groups_and_quat_order(ctx: wr.Context) -> None:
    cube = wr.Scene(ctx, *box_mesh(HALF, HALF, HALF))
    slab = wr.Scene(ctx, *box_mesh(0.3, 0.05, 0.05))
    # slot 0: the slab (group 3) turned 90 degrees about z, spanning y; slot 1: a cube (group 0) far below
    scene = wr.Scene.instanced(ctx, floor_scene(ctx), [cube, slab], [1, 0], [3, 0])
    s, c = math.sin(math.pi / 4), math.cos(math.pi / 4)
    origins = np.array([[0, 0.2, HEIGHT]], np.float32)  # over the turned slab's arm, not the unturned one's
    directions = np.array([[0, 0, -1]], np.float32)
    for order, quat in (("wxyz", (c, 0, 0, s)), ("xyzw", (0, 0, s, c))):
        slots = np.array([[[0, 0, 2.0, *quat], cube_pose(0, 0.2, 0.5)]], np.float32)
        t, _, inst = scene.intersect(origins, directions, num_envs=1, instance_poses=slots, quat_order=order,
                                     instances=True)
        assert inst[0] == 0 and t[0] == pytest.approx(HEIGHT - 2.05, rel=1e-6), order
        # the same floats read in the other order are another rotation: the slab spans x, the ray
        # goes past it onto the cube
        other = "xyzw" if order == "wxyz" else "wxyz"
        t, _, inst = scene.intersect(origins, directions, instance_poses=slots, quat_order=other, instances=True)
        assert inst[0] == 1 and t[0] == pytest.approx(HEIGHT - 0.6, rel=1e-6), order
        t, _, inst = scene.intersect(origins, directions, instance_poses=slots, quat_order=order,
                                     exclude_groups=[3], instances=True)
        assert inst[0] == 1, order
        t, _, inst = scene.intersect(origins, directions, instance_poses=slots, quat_order=order,
                                     exclude_groups=(0, 3), instances=True)
        assert inst[0] == -1 and t[0] == pytest.approx(HEIGHT, rel=1e-6), order
    with pytest.raises(wr.Error, match=r"quat_order = 'zyxw'"):
        scene.intersect(origins, directions, instance_poses=slots, quat_order="zyxw")
    # a mesh scene through the extended call: the floor, no instance
    t, _, inst = floor_scene(ctx).intersect(origins, directions, exclude_groups=[1], instances=True)
    assert t[0] == pytest.approx(HEIGHT) and inst[0] == -1


# ---- torch, lifetime, memory, errors of the description ---------------------------------------


def test_torch_cpu_tensors_in_and_out_without_a_copy(ctx: wr.Context) -> None:
    scene = make_scene(ctx, slot_groups=[0, 1])
    n = 2
    sensor = wr.Sensor(scene, CAMERA, num_envs=n)
    poses = torch.from_numpy(camera_poses(n))
    slots = torch.tensor([[cube_pose(0, 0, 1.5), cube_pose(9, 9, 1.0)]] * n, dtype=torch.float32)
    out = torch.empty(sensor.shape)
    ids = torch.empty(sensor.shape, dtype=torch.int32)
    pointers = (out.data_ptr(), ids.data_ptr())
    got_out, got_ids = render_ids(sensor, poses, out, ids, instance_poses=slots)
    assert got_out is out and got_ids is ids and (out.data_ptr(), ids.data_ptr()) == pointers
    c = CAMERA.height // 2, CAMERA.width // 2
    assert out[0][c].item() == pytest.approx(HEIGHT - 1.6, rel=1e-6) and ids[0][c].item() == 0
    # read in place: a pose changed through a NumPy view of the same memory is what renders next
    slots.numpy()[1, 0, 2] = 2.2
    render_ids(sensor, poses, out, ids, instance_poses=slots)
    assert out[1][c].item() == pytest.approx(HEIGHT - 2.3, rel=1e-6) and out.data_ptr() == pointers[0]
    assert out[0][c].item() == pytest.approx(HEIGHT - 1.6, rel=1e-6)
    # allocated outputs are torch tensors beside the poses
    depth, new_ids = render_ids(sensor, poses, instance_poses=slots)
    assert isinstance(depth, torch.Tensor) and new_ids.dtype == torch.int32 and torch.equal(depth, out)
    assert torch.equal(new_ids, ids)
    np.testing.assert_array_equal(depth.numpy(), sensor.render(poses.numpy(), inputs=instances(slots.numpy())))
    # explicit rays: torch outputs written in place, IsaacLab's (num_envs, rays, 3) layout
    origins = torch.tensor([[[0.0, 0.0, HEIGHT]]] * n)
    directions = torch.tensor([[[0.0, 0.0, -1.0]]] * n)
    out_t = torch.empty(n, 1)
    out_tri = torch.empty(n, 1, dtype=torch.int32)
    out_inst = torch.empty(n, 1, dtype=torch.int32)
    t, tri, inst = scene.intersect(origins, directions, instance_poses=slots, out_t=out_t, out_triangle=out_tri,
                                   out_instance=out_inst)
    assert t is out_t and tri is out_tri and inst is out_inst
    assert inst[:, 0].tolist() == [0, 0]
    assert t[:, 0].tolist() == pytest.approx([HEIGHT - 1.6, HEIGHT - 2.3], rel=1e-6)
    t, tri, inst = scene.intersect(origins, directions, instance_poses=slots, instances=True)
    assert isinstance(inst, torch.Tensor) and inst.dtype == torch.int32 and torch.equal(t, out_t)
    # non-contiguous instance poses are named, not copied
    wide = torch.zeros(n, 2, 13)
    with pytest.raises(wr.Error, match=r"instance_poses is not C-contiguous"):
        sensor.render(poses, inputs=instances(wide[..., :7]))
    with pytest.raises(wr.Error, match=r"out_instance overlaps origins"):
        scene.intersect(origins, directions, instance_poses=slots,
                        out_instance=origins.view(-1).view(torch.int32)[:n].view(n, 1))


def test_the_scene_keeps_its_parts_alive(ctx: wr.Context) -> None:
    floor = floor_scene(ctx)
    cube = wr.Scene(ctx, *box_mesh(HALF, HALF, HALF))
    scene = wr.Scene.instanced(ctx, floor, [cube], [0])
    assert scene.terrain is floor and scene.prototypes == (cube,)
    sensor = wr.Sensor(scene, CAMERA, num_envs=1)
    del floor, cube, scene
    gc.collect()
    depth = sensor.render(camera_poses(1), inputs=instances(np.array([[cube_pose(0, 0, 2.0)]], np.float32)))
    assert depth[0, 16, 16] == pytest.approx(HEIGHT - 2.1, rel=1e-6)
    # the C handles alone keep them too: the extension's objects, no Python references left
    h_ctx = wr._wr.Context(wr._wr.Device.CPU, 0, 1)
    h_floor = wr._wr.Scene(h_ctx, *box_mesh(5, 5, 0.01))
    h_cube = wr._wr.Scene(h_ctx, *box_mesh(HALF, HALF, HALF))
    h_scene = wr._wr.Scene.create_instanced(h_ctx, h_floor, [h_cube], [0], None, [], None)
    del h_ctx, h_floor, h_cube
    gc.collect()
    assert h_scene.instance_counts == (1, 0) and h_scene.num_triangles == 12


def test_memory_has_the_instance_table(ctx: wr.Context) -> None:
    one, three = make_scene(ctx), make_scene(ctx, slot_groups=[0, 1, 2])
    mem = one.memory()
    assert mem["tags"]["instance_table"]["host_bytes"] > 0
    assert sum(t["host_bytes"] for t in mem["tags"].values()) == mem["host_bytes"]
    grown = three.memory()["tags"]["instance_table"]["host_bytes"] - mem["tags"]["instance_table"]["host_bytes"]
    assert grown == 2 * 8  # 8 bytes per instance (wr.h)
    assert floor_scene(ctx).memory()["tags"]["instance_table"]["host_bytes"] == 0
    assert wr.MemoryTag.INSTANCE_TABLE.value == 10
    assert wr.memory_tag_string(wr.MemoryTag.INSTANCE_TABLE) == "instance_table"


def test_the_description_is_checked(ctx: wr.Context) -> None:
    floor = floor_scene(ctx)
    cube = wr.Scene(ctx, *box_mesh(HALF, HALF, HALF))
    with pytest.raises(wr.Error, match=r"Scene.instanced: prototypes\[1\] is a str, not a warp_raycaster.Scene"):
        wr.Scene.instanced(ctx, floor, [cube, "box"], [0])
    with pytest.raises(wr.Error, match=r"slot_prototypes\[1\]"):
        wr.Scene.instanced(ctx, floor, [cube], [0, 1])  # prototype 1 does not exist (the C API names it)
    with pytest.raises(wr.Error, match=r"Scene.instanced: slot_prototypes\[0\] = -1"):
        wr.Scene.instanced(ctx, floor, [cube], [-1])
    with pytest.raises(wr.Error, match=r"slot_groups has 1 entries, slot_prototypes 2"):
        wr.Scene.instanced(ctx, floor, [cube], [0, 0], [1])
    with pytest.raises(wr.Error, match=r"slot_groups\[0\]"):
        wr.Scene.instanced(ctx, floor, [cube], [0], [32])
    with pytest.raises(wr.Error, match=r"global_groups is given without global_prototypes"):
        wr.Scene.instanced(ctx, floor, [cube], [0], global_groups=[1])
    instanced = wr.Scene.instanced(ctx, floor, [cube], np.array([0, 0], np.int64), torch.tensor([1, 2]))
    assert instanced.instance_counts == (2, 0)
    with pytest.raises(wr.Error, match=r"terrain is an instanced scene"):
        wr.Scene.instanced(ctx, instanced, [cube], [0])
    with pytest.raises(wr.Error, match=r"context"):
        wr.Scene.instanced(wr.Context("cpu", threads=1), floor, [cube], [0])
    assert "1 slots per env" not in repr(floor) and "2 slots per env, 0 global instances" in repr(instanced)


# ---- CUDA --------------------------------------------------------------------------------------


def test_cuda_instances_match_the_cpu() -> None:
    cuda = cuda_context_or_skip()
    cpu = wr.Context("cpu", threads=2)
    n = 3
    slots = np.array([[cube_pose(0, 0, 1.0 + 0.5 * e), cube_pose(0.3, 0.2, 0.8)] for e in range(n)], np.float32)
    globals_ = np.array([cube_pose(-0.5, 0.13, 0.4)], np.float32)
    results = []
    for context, device in ((cpu, "cpu"), (cuda, "cuda")):
        scene = make_scene(context, slot_groups=[0, 1], globals_=True)
        sensor = wr.Sensor(scene, CAMERA, num_envs=n, exclude_groups=[1])
        poses = torch.from_numpy(camera_poses(n)).to(device)
        ip, gp = torch.from_numpy(slots).to(device), torch.from_numpy(globals_).to(device)
        depth, ids = render_ids(sensor, poses, instance_poses=ip, global_poses=gp)
        origins = torch.tensor([[[0.0, 0.0, HEIGHT], [0.3, 0.2, HEIGHT]]] * n, device=device)
        directions = torch.tensor([[[0.0, 0.0, -1.0]] * 2] * n, device=device)
        t, tri, inst = scene.intersect(origins, directions, instance_poses=ip, global_poses=gp, exclude_groups=[1],
                                       instances=True)
        if device == "cuda":
            assert depth.device.type == "cuda" and ids.device.type == "cuda" and inst.device.type == "cuda"
            torch.cuda.synchronize()
        results.append([a.cpu() for a in (depth, ids, t, tri, inst)])
    for name, a, b in zip(("depth", "ids", "t", "triangle", "instance"), *results):
        assert torch.equal(a, b), name
    assert results[0][1][:, 16, 16].tolist() == [0, 0, 0] and results[0][4][:, 1].tolist() == [-1] * n
