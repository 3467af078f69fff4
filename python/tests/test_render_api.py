"""Sensor.render's signature since 0.7: render(poses, out=None, *, stream, frame, layout, inputs)
returns out, the per-env inputs in one wr.RenderInputs, and what each pixel or ray hit from
render_hits as a wr.Hits. The keywords render took before 0.7 still work until 0.8, each giving the
same result as its new spelling with a DeprecationWarning that names that spelling: this file is
the one place that calls them (the rest of the suite runs with -W error::DeprecationWarning)."""

from __future__ import annotations

import inspect
import math
import re

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import random_poses

N = 3
HEIGHT = 3.5
DOWN = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)  # w x y z: +X (the optical axis) to -Z
CAMERA = wr.Camera.pinhole(17, 13, 60.0)


def plane(ctx: wr.Context, z: float = 0.0, half: float = 50.0) -> wr.Scene:
    v = np.array([[-half, -half, z], [half, -half, z], [half, half, z], [-half, half, z]], np.float32)
    return wr.Scene(ctx, v, np.array([[0, 1, 2], [0, 2, 3]], np.uint32))


def cube(ctx: wr.Context, half: float = 0.3) -> wr.Scene:
    v = np.array([[sx * half, sy * half, sz * half] for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)],
                 np.float32)
    f = np.array([[0, 1, 3], [0, 3, 2], [4, 7, 5], [4, 6, 7], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
                  [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], np.int32)
    return wr.Scene(ctx, v, f)


def down_poses(n: int = N, order: str = "wxyz") -> np.ndarray:
    q = DOWN if order == "wxyz" else (*DOWN[1:], DOWN[0])
    return np.array([[0.1 * e, 0.05 * e, HEIGHT, *q] for e in range(n)], np.float32)


def deprecated(where: str, name: str, instead: str):
    """pytest.warns for the DeprecationWarning of `where`'s old keyword `name`, whose message must
    name `instead`, the new spelling."""
    return pytest.warns(DeprecationWarning, match=re.escape(f"{where}({name}=...) is deprecated since 0.7") + ".*"
                        + re.escape(f"use {instead}"))


def same(a, b, what: str) -> None:
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert type(a) is type(b) and len(a) == len(b), what
        for x, y in zip(a, b):
            same(x, y, what)
        return
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=what)


@pytest.fixture(scope="module")
def ctx() -> wr.Context:
    return wr.Context("cpu", threads=2)


def test_the_keywords_before_0_7_still_work_with_a_warning_naming_the_new_spelling(ctx: wr.Context) -> None:
    floor = plane(ctx)
    poses = down_poses()

    def inputs_of(name: str) -> str:
        return f"inputs=wr.RenderInputs({name}=...)"

    # intrinsics, mounts: per-env camera inputs.
    k = np.array([[15, 16, 8.5, 6.5], [20, 18, 8, 6], [12, 12, 9, 7]], np.float32)
    mounts = np.zeros((N, 7), np.float32)
    mounts[:, 2] = [0.0, -0.5, -1.0]
    mounts[:, 3] = 1.0
    for name, value in (("intrinsics", k), ("mounts", mounts)):
        sensor = wr.Sensor(floor, CAMERA, N)
        with deprecated("Sensor.render", name, inputs_of(name)):
            old = sensor.render(poses, frame=0, **{name: value})
        new = sensor.render(poses, frame=0, inputs=wr.RenderInputs(**{name: value}))
        same(old, new, name)
        assert not np.array_equal(new, sensor.render(poses, frame=0)), name  # the input did something

    # latency, update_mask, reset_mask: a history of 3 frames; the same steps through two sensors.
    rng = np.random.default_rng(5)
    steps = [random_poses(N, 20 + t, extent=4.0, height=1.0 + 0.5 * t) for t in range(4)]
    per_step = {
        "latency": [np.array([0, 1, 2], np.int32)] * 4,
        "update_mask": [np.ones(N, bool)] + [rng.integers(0, 2, N).astype(bool) for _ in range(3)],
        "reset_mask": [np.zeros(N, bool), np.array([False, True, False]), np.zeros(N, bool),
                       np.array([True, False, True])],
    }
    assert not all(m.all() for m in per_step["update_mask"][1:])
    for name, values in per_step.items():
        a, b, without = (wr.Sensor(floor, CAMERA, N, pipeline=wr.Pipeline(history=3)) for _ in range(3))
        latency = {} if name == "latency" else {"latency": np.full(N, 1, np.int32)}
        out_a, out_b, out_w = (np.full(a.shape, -1.0, np.float32) for _ in range(3))
        differs = False
        for t, (p, value) in enumerate(zip(steps, values)):
            with deprecated("Sensor.render", name, inputs_of(name)):
                old = a.render(p, out_a, frame=t, inputs=wr.RenderInputs(**latency), **{name: value})
            new = b.render(p, out_b, frame=t, inputs=wr.RenderInputs(**latency, **{name: value}))
            assert old is out_a and new is out_b
            same(old, new, f"{name}, step {t}")
            without.render(p, out_w, frame=t, inputs=wr.RenderInputs(**latency))
            differs |= not np.array_equal(out_w, new)
        assert differs, name  # the input did something
    with deprecated("Sensor.render", "latency", inputs_of("latency")):  # one int for every env
        old = wr.Sensor(floor, CAMERA, N, pipeline=wr.Pipeline(history=2)).render(poses, frame=0, latency=1)
    same(old, wr.Sensor(floor, CAMERA, N, pipeline=wr.Pipeline(history=2)).render(
        poses, frame=0, inputs=wr.RenderInputs(latency=1)), "latency=1")

    # bad_env_mask, bad_env_count: written by a pipeline that isolates bad poses.
    bad = poses.copy()
    bad[1, 0] = np.nan
    isolating = wr.Sensor(floor, CAMERA, N, pipeline=wr.Pipeline(isolate_bad_poses=True))
    for name, empty in (("bad_env_mask", lambda: np.zeros(N, bool)), ("bad_env_count", lambda: np.zeros(1, np.int32))):
        got_old, got_new = empty(), empty()
        with deprecated("Sensor.render", name, inputs_of(name)):
            old = isolating.render(bad, frame=0, **{name: got_old})
        new = isolating.render(bad, frame=0, inputs=wr.RenderInputs(**{name: got_new}))
        same(old, new, name)
        same(got_old, got_new, name)
        assert got_new.tolist() == ([False, True, False] if name == "bad_env_mask" else [1]), name

    # body: rigid-body states (N, bodies, 13), the sensor on body 1.
    states = np.full((N, 3, 13), -7.0, np.float32)
    states[:, 1, :7] = poses
    sensor = wr.Sensor(floor, CAMERA, N)
    with deprecated("Sensor.render", "body", inputs_of("body")):
        old = sensor.render(states, frame=0, body=1)
    same(old, sensor.render(states, frame=0, inputs=wr.RenderInputs(body=1)), "body")
    same(old, sensor.render(poses, frame=0), "body (the packed poses)")

    # quat_order: the poses' order, now said by their layout.
    xyzw = wr.Sensor(floor, CAMERA.replace(quat_order="xyzw"), N)
    with deprecated("Sensor.render", "quat_order", "layout='poses_wxyz' or 'poses_xyzw'"):
        old = xyzw.render(down_poses(order="xyzw"), frame=0, quat_order="xyzw")
    same(old, xyzw.render(down_poses(order="xyzw"), frame=0, layout="poses_xyzw"), "quat_order")
    np.testing.assert_allclose(old, sensor.render(poses, frame=0), rtol=1e-6)  # the two orders' rounding

    # instance_poses, global_poses: an instanced scene, a cube per env and one every env sees.
    scene = wr.Scene.instanced(ctx, floor, [cube(ctx)], [0], None, [0], None)
    slots = np.array([[[0.1 * e, 0.05 * e, 1.0 + 0.5 * e, 1, 0, 0, 0]] for e in range(N)], np.float32)
    globals_ = np.array([[1.2, 0.0, 0.5, 1, 0, 0, 0]], np.float32)
    sensor = wr.Sensor(scene, CAMERA, N)
    with deprecated("Sensor.render", "instance_poses", inputs_of("instance_poses")), \
            deprecated("Sensor.render", "global_poses", inputs_of("global_poses")):
        old = sensor.render(poses, frame=0, instance_poses=slots, global_poses=globals_)
    inputs = wr.RenderInputs(instance_poses=slots, global_poses=globals_)
    new = sensor.render(poses, frame=0, inputs=inputs)
    same(old, new, "instance_poses, global_poses")
    # a keyword that is also in inputs is refused, by name
    with deprecated("Sensor.render", "global_poses", inputs_of("global_poses")), \
            pytest.raises(wr.Error, match=r"Sensor.render: global_poses is given both as a keyword and in inputs"):
        sensor.render(poses, frame=0, inputs=inputs, global_poses=globals_)

    # return_ids, instance_ids: (out, ids) then; render_hits(...).instance_ids now.
    hits = sensor.render_hits(poses, frame=0, inputs=inputs)
    assert set(np.unique(hits.instance_ids)) == {-1, 0, 1}  # the terrain, the slot and the global cube
    with deprecated("Sensor.render", "return_ids", "render_hits(...).instance_ids"):
        depth, ids = sensor.render(poses, frame=0, inputs=inputs, return_ids=True)
    same((depth, ids), (hits.values, hits.instance_ids), "return_ids")
    assert ids.dtype == np.int32
    # the channels into the caller's arrays: instance_ids returns (out, ids); the others return out
    for name, field, dims, dtype in (("instance_ids", "instance_ids", (), np.uint32),
                                     ("triangle_ids", "triangle_ids", (), np.int32),
                                     ("hit_points", "points", (3,), np.float32),
                                     ("hit_normals", "normals", (3,), np.float32)):
        out = np.empty(sensor.shape, np.float32)
        given = np.empty(sensor.shape + dims, dtype)
        with deprecated("Sensor.render", name, f"render_hits(...), whose Hits holds {name}"):
            got = sensor.render(poses, out, frame=0, inputs=inputs, **{name: given})
        if name == "instance_ids":
            assert isinstance(got, tuple) and got[0] is out and got[1] is given, name
        else:
            assert got is out, name
        same(out, hits.values, name)
        same(given, getattr(hits, field).astype(dtype), name)
        mine = np.empty(sensor.shape + dims, dtype)
        into = sensor.render_hits(poses, wr.Hits(values=None, points=None, normals=None, triangle_ids=None,
                                                 instance_ids=None)._replace(**{field: mine}), frame=0, inputs=inputs)
        assert getattr(into, field) is mine, name
        same(mine, given, name)

    # RaySensor: its keywords name RaySensor.render; return_hits=True returned (out, RayHits).
    lidar = wr.RaySensor(scene, wr.Pattern.spherical(channels=4, vertical_fov=(-60, -20),
                                                     horizontal_resolution=30.0), N)
    lidar_poses = down_poses()
    lidar_poses[:, 3:] = (1, 0, 0, 0)
    with deprecated("RaySensor.render", "instance_poses", inputs_of("instance_poses")), \
            deprecated("RaySensor.render", "global_poses", inputs_of("global_poses")):
        old = lidar.render(lidar_poses, frame=0, instance_poses=slots, global_poses=globals_)
    ray_hits = lidar.render_hits(lidar_poses, frame=0, inputs=inputs)
    same(old, ray_hits.values, "RaySensor instance_poses")
    with deprecated("RaySensor.render", "mounts", inputs_of("mounts")):
        old = lidar.render(lidar_poses, frame=0, inputs=inputs, mounts=mounts)
    same(old, lidar.render(lidar_poses, frame=0, inputs=wr.RenderInputs(instance_poses=slots, global_poses=globals_,
                                                                         mounts=mounts)), "RaySensor mounts")
    assert not np.array_equal(old, ray_hits.values)  # the mounts did something
    with pytest.warns(DeprecationWarning, match=re.escape("RaySensor.render(return_hits=...) is deprecated since 0.7")
                      + ".*" + re.escape("use render_hits(...)")):
        out, old_hits = lidar.render(lidar_poses, frame=0, inputs=inputs, return_hits=True)
    assert isinstance(old_hits, wr.RayHits)
    same(out, ray_hits.values, "return_hits")
    for field in ("points", "normals", "triangle_ids", "instance_ids"):
        same(getattr(old_hits, field), getattr(ray_hits, field), f"return_hits {field}")
    assert np.isfinite(ray_hits.values).all() and (ray_hits.triangle_ids >= 0).all()


def test_render_has_a_short_signature_and_returns_out(ctx: wr.Context) -> None:
    params = inspect.signature(wr.Sensor.render).parameters
    assert len(params) <= 8, list(params)
    assert list(params)[:3] == ["self", "poses", "out"]
    for name in ("stream", "frame", "layout", "inputs"):
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY and params[name].default is None, name
    assert len(inspect.signature(wr.RaySensor.render).parameters) <= 8
    sensor = wr.Sensor(plane(ctx), CAMERA, N)
    poses = down_poses()
    got = sensor.render(poses)
    assert isinstance(got, np.ndarray) and got.shape == sensor.shape == (N, 13, 17)
    np.testing.assert_allclose(got[:, 6, 8], HEIGHT, rtol=1e-6)  # the optical axis, straight down
    out = np.empty(sensor.shape, np.float32)
    assert sensor.render(poses, out) is out
    assert sensor.render(poses, out=out, frame=3, layout="poses_wxyz", inputs=wr.RenderInputs()) is out
    np.testing.assert_array_equal(out, got)


def test_render_hits_returns_hits_for_a_camera_and_a_pattern_sensor(ctx: wr.Context) -> None:
    sensor = wr.Sensor(plane(ctx), CAMERA, N)
    poses = down_poses()
    hits = sensor.render_hits(poses)
    assert isinstance(hits, wr.Hits) and hits._fields == ("values", "points", "normals", "triangle_ids",
                                                          "instance_ids")
    assert hits.values.shape == sensor.shape and hits.points.shape == (N, 13, 17, 3)
    assert hits.normals.shape == (N, 13, 17, 3)
    assert hits.triangle_ids.shape == hits.instance_ids.shape == sensor.shape
    assert hits.triangle_ids.dtype == hits.instance_ids.dtype == np.int32
    np.testing.assert_array_equal(hits.values, sensor.render(poses))
    np.testing.assert_allclose(hits.points[..., 2], 0.0, atol=1e-5)  # every pixel on the plane z = 0
    np.testing.assert_allclose(hits.normals, np.broadcast_to([0, 0, 1], hits.normals.shape), atol=1e-6)
    assert ((hits.triangle_ids == 0) | (hits.triangle_ids == 1)).all() and (hits.instance_ids == -1).all()
    # into the caller's arrays, the others made
    out = np.empty(sensor.shape, np.float32)
    points = np.empty(sensor.shape + (3,), np.float32)
    into = sensor.render_hits(poses, wr.Hits(values=out, points=points, normals=None, triangle_ids=None,
                                             instance_ids=None))
    assert into.values is out and into.points is points and into.normals.shape == points.shape
    np.testing.assert_array_equal(points, hits.points)

    lidar = wr.RaySensor(plane(ctx), wr.Pattern.grid(size=(0.4, 0.2), resolution=0.1), N)
    ray_poses = np.array([[0.1 * e, 0.0, 2.0 + e, 1, 0, 0, 0] for e in range(N)], np.float32)
    ray_hits = lidar.render_hits(ray_poses)
    assert isinstance(ray_hits, wr.Hits)
    assert ray_hits.values.shape == lidar.shape == (N, lidar.num_rays)
    assert ray_hits.points.shape == (N, lidar.num_rays, 3) and ray_hits.triangle_ids.shape == lidar.shape
    np.testing.assert_allclose(ray_hits.values, np.array([[2.0], [3.0], [4.0]]) * np.ones(lidar.num_rays),
                               rtol=1e-6)
    np.testing.assert_allclose(ray_hits.points[..., 2], 0.0, atol=1e-5)
    np.testing.assert_array_equal(ray_hits.values, lidar.render(ray_poses))


def test_an_unknown_keyword_is_a_type_error(ctx: wr.Context) -> None:
    sensor = wr.Sensor(plane(ctx), CAMERA, N)
    lidar = wr.RaySensor(plane(ctx), wr.Pattern.grid(size=(0.4, 0.2)), N)
    with pytest.raises(TypeError, match=r"Sensor.render\(\) got an unexpected keyword argument 'latencies'"):
        sensor.render(down_poses(), latencies=1)
    with pytest.raises(TypeError, match=r"RaySensor.render\(\) got an unexpected keyword argument 'ids'"):
        lidar.render(down_poses(), ids=True)
    with pytest.raises(TypeError, match="latency"):
        sensor.render_hits(down_poses(), latency=1)
    with pytest.raises(TypeError, match="render_hits"):
        sensor.render(down_poses(), render_hits=True)
