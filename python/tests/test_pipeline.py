"""The RL depth pipeline through the Python package: wr-demo's extreme-parkour preset against
extreme-parkour's own torch pipeline, the pipeline's options and per-env arrays as a user passes
them, simulator state read in place, and the dtypes."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import SMALL_TERRAIN, random_poses

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _demo() -> pathlib.Path:
    build = os.environ.get("WR_BUILD_DIR")
    demo = pathlib.Path(build) / "apps" / "wr-demo" if build else None
    if demo is None or not demo.exists():
        pytest.skip("wr-demo is not built here (WR_BUILD_DIR/apps/wr-demo)")
    return demo


def test_the_extreme_parkour_preset_equals_extreme_parkours_own_torch_pipeline(tmp_path: pathlib.Path) -> None:
    # wr-demo renders the camera images (camera.npy) and, fused in the same render, what the
    # policy reads (depth.npy). extreme-parkour's process_depth_image (legged_robot.py), on
    # IsaacGym's negative depth with -inf where nothing is hit, applied here with torch itself:
    # crop [:-2, 4:-4], clip to [-far, -near], torchvision's Resize((58, 87), BICUBIC) on a tensor
    # without antialiasing = interpolate(mode="bicubic", align_corners=False), negate, then
    # (d - near) / (far - near) - 0.5. near 0, far 2, dis_noise 0.
    subprocess.run([str(_demo()), "--preset", "extreme-parkour", "-n", "16", "--repeats", "1", "--threads", "2",
                    "--out", str(tmp_path)], check=True, capture_output=True)
    depth = np.load(tmp_path / "depth.npy")
    camera = np.load(tmp_path / "camera.npy")
    assert depth.shape == (16, 58, 87) and depth.dtype == np.float32
    assert camera.shape == (16, 60, 106)
    near, far = 0.0, 2.0
    img = -torch.from_numpy(camera)
    img = img[:, :-2, 4:-4]
    img = torch.clip(img, -far, -near)
    img = F.interpolate(img[:, None], size=(58, 87), mode="bicubic", align_corners=False)[:, 0]
    img = img * -1
    img = (img - near) / (far - near) - 0.5
    want = img.numpy()
    assert np.isfinite(depth).all()
    assert np.abs(depth - want).max() < 1e-5
    # The images are rich (terrain near and far, steps), and bicubic overshoots +-0.5 at the steps
    # as extreme-parkour's does (no clamp after the resize).
    assert want.min() < -0.3 and want.max() >= 0.5
    assert ((want > 0.5) | (want < -0.5)).any() == ((depth > 0.5) | (depth < -0.5)).any()


def _sensor(ctx: wr.Context, n: int, pipeline: wr.Pipeline | None = None, **camera: float) -> wr.Sensor:
    scene = wr.Scene.from_obj(ctx, SMALL_TERRAIN)
    cam = wr.Camera.pinhole(width=53, height=31, hfov=80.0, mount_position=(0.2, 0.0, 0.05), **camera)
    return wr.Sensor(scene, cam, num_envs=n, pipeline=pipeline)


def test_simulator_state_is_read_in_place_and_equals_packed_poses() -> None:
    ctx = wr.Context("cpu", threads=2)
    poses = random_poses(6, 3, order="xyzw")
    sensor = _sensor(ctx, 6, quat_order="xyzw")
    want = sensor.render(poses)
    root = np.full((6, 13), 9.0, np.float32)  # IsaacGym root states: position, xyzw, velocities
    root[:, :7] = poses
    np.testing.assert_array_equal(sensor.render(root), want)
    rigid = np.full((6, 4, 13), -3.0, np.float32)  # rigid-body states, the camera on body 2
    rigid[:, 2, :7] = poses
    np.testing.assert_array_equal(sensor.render(rigid, inputs=wr.RenderInputs(body=2)), want)
    with pytest.raises(wr.Error, match="inputs.body"):
        sensor.render(rigid)
    # torch too, zero-copy: the output is the caller's.
    out = torch.empty(sensor.shape)
    assert sensor.render(torch.from_numpy(root), out=out) is out
    np.testing.assert_array_equal(out.numpy(), want)


def test_the_pipeline_crops_resamples_normalises_and_delays() -> None:
    ctx = wr.Context("cpu", threads=2)
    n = 5
    plain = _sensor(ctx, n, miss_value=2.0)
    pipe = wr.Pipeline(crop=(2, 1, 49, 28), out_size=(40, 20), resample="bicubic", clip=(0.0, 2.0),
                       normalize=(0.0, 2.0, -0.5), history=3)
    sensor = _sensor(ctx, n, pipe, miss_value=2.0)
    assert sensor.shape == (n, 20, 40) and sensor.dtype == "float32"
    frames = [random_poses(n, 10 + t) for t in range(4)]
    images = [torch.from_numpy(plain.render(p)) for p in frames]

    def reference(img: torch.Tensor) -> np.ndarray:
        c = torch.clip(img[:, 1:29, 2:51], 0.0, 2.0)
        r = F.interpolate(c[:, None], size=(20, 40), mode="bicubic", align_corners=False)[:, 0]
        return ((r - 0.0) / 2.0 - 0.5).numpy()

    latency = torch.tensor([0, 1, 2, 0, 2], dtype=torch.int32)
    out = None
    for t, p in enumerate(frames):
        out = sensor.render(torch.from_numpy(p), out=out, frame=t, inputs=wr.RenderInputs(latency=latency))
        for e in range(n):
            ago = max(t - int(latency[e]), 0)  # the first frame filled the history
            np.testing.assert_allclose(out[e].numpy(), reference(images[ago])[e], atol=1e-5)
    # A masked env keeps its output; a reset fills the history with this frame.
    before = out.clone()
    update = torch.tensor([True, False, True, True, True])
    reset = torch.tensor([False, False, True, False, False])
    p = random_poses(n, 99)
    sensor.render(torch.from_numpy(p), out=out, frame=4,
                  inputs=wr.RenderInputs(latency=latency, update_mask=update, reset_mask=reset))
    assert torch.equal(out[1], before[1])
    np.testing.assert_allclose(out[2].numpy(), reference(torch.from_numpy(plain.render(p)))[2], atol=1e-5)
    mem = sensor.memory()
    assert mem["per_env_bytes"] == 3 * 20 * 40 * 4 + 4
    assert mem["tags"]["history"]["host_bytes"] == n * (3 * 20 * 40 * 4 + 4)


def test_dtypes_and_per_env_cameras() -> None:
    ctx = wr.Context("cpu", threads=2)
    n = 4
    poses = random_poses(n, 5)
    f32 = _sensor(ctx, n).render(poses)
    half = _sensor(ctx, n, wr.Pipeline(dtype="float16")).render(torch.from_numpy(poses))
    assert half.dtype == torch.float16
    np.testing.assert_array_equal(half.numpy(), f32.astype(np.float16))
    mm = _sensor(ctx, n, wr.Pipeline(dtype="uint16")).render(poses)
    assert mm.dtype == np.uint16
    finite = np.isfinite(f32)
    np.testing.assert_array_equal(mm[finite], np.round(f32[finite] * 1000).astype(np.uint16))
    assert (mm[~finite] == 0).all()
    # Per-env intrinsics and mounts: env e as a one-env sensor built with its own camera.
    k = np.array([[30, 31, 26.5, 15.5], [45, 40, 20, 18.25], [25.5, 25.5, 26, 14], [60, 58, 30, 12]], np.float32)
    mounts = np.zeros((n, 7), np.float32)
    mounts[:, 0] = 0.1 * np.arange(n)
    mounts[:, 3] = 1.0
    sensor = _sensor(ctx, n, wr.Pipeline(history=2))
    got = sensor.render(poses, inputs=wr.RenderInputs(intrinsics=k, mounts=mounts))
    scene = sensor.scene
    for e in range(n):
        cam = wr.Camera(width=53, height=31, fx=float(k[e, 0]), fy=float(k[e, 1]), cx=float(k[e, 2]),
                        cy=float(k[e, 3]), mount_position=(float(mounts[e, 0]), 0.0, 0.0))
        one = wr.Sensor(scene, cam, num_envs=1).render(poses[e:e + 1])
        np.testing.assert_array_equal(got[e], one[0])


def test_bad_poses_isolated_and_reported() -> None:
    ctx = wr.Context("cpu", threads=2)
    n = 4
    poses = random_poses(n, 6)
    poses[1, 0] = np.nan
    sensor = _sensor(ctx, n, wr.Pipeline(isolate_bad_poses=True))
    mask = np.zeros(n, np.bool_)
    count = np.zeros(1, np.int32)
    out = sensor.render(poses, inputs=wr.RenderInputs(bad_env_mask=mask, bad_env_count=count))
    assert mask.tolist() == [False, True, False, False] and count[0] == 1
    assert np.isnan(out[1]).all() and np.isfinite(out[0]).any()
    strict = _sensor(ctx, n, wr.Pipeline(history=2))
    with pytest.raises(wr.Error, match="body_poses of env 1"):
        strict.render(poses)
    with pytest.raises(wr.Error, match="resample"):
        wr.Pipeline(resample="lanczos")._options()


def test_noise_varies_by_default_and_a_frame_replays() -> None:
    # Without frame= each render takes the sensor's next frame number, so the noise of two steps
    # differs; frame=k replays frame k's bits and leaves the count alone.
    ctx = wr.Context("cpu", threads=1)
    s = _sensor(ctx, 4, wr.Pipeline(noise=wr.Noise(seed=3, range_sigma=(0.01, 0.0, 0.0))))
    poses = random_poses(4)
    assert s.frames_rendered == 0
    first = s.render(poses)
    second = s.render(poses)
    assert s.frames_rendered == 2
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(s.render(poses, frame=0), first)
    np.testing.assert_array_equal(s.render(poses, frame=1), second)
    assert s.frames_rendered == 2
    np.testing.assert_array_equal(s.render(poses), s.render(poses, frame=2))


def test_a_scalar_latency_and_k_matrices_are_the_per_env_arrays() -> None:
    # latency=1 is latency=[1] * n (its array made once and kept); (n, 3, 3) K matrices are their
    # (fx, fy, cx, cy); a K with a skew is refused by env.
    ctx = wr.Context("cpu", threads=2)
    n = 3
    frames = [random_poses(n, 40 + t) for t in range(3)]
    a, b = (_sensor(ctx, n, wr.Pipeline(history=2)) for _ in range(2))
    for t, p in enumerate(frames):
        got = a.render(p, frame=t, inputs=wr.RenderInputs(latency=1))
        want = b.render(p, frame=t, inputs=wr.RenderInputs(latency=np.ones(n, np.int32)))
        np.testing.assert_array_equal(got, want)
    assert len(a._latency_arrays) == 1  # one array for every render with latency=1
    with pytest.raises(wr.Error, match=r"latency = -1: frames ago, must be 0 or more"):
        a.render(frames[0], inputs=wr.RenderInputs(latency=-1))
    k4 = np.array([[30, 31, 26.5, 15.5], [45, 40, 20, 18.25], [25.5, 25.5, 26, 14]], np.float32)
    k33 = np.zeros((n, 3, 3), np.float64)
    k33[:, 0, 0], k33[:, 1, 1], k33[:, 0, 2], k33[:, 1, 2], k33[:, 2, 2] = k4[:, 0], k4[:, 1], k4[:, 2], k4[:, 3], 1
    c, d = (_sensor(ctx, n, wr.Pipeline(dtype="float16")) for _ in range(2))
    np.testing.assert_array_equal(c.render(frames[0], inputs=wr.RenderInputs(intrinsics=k33)),
                                  d.render(frames[0], inputs=wr.RenderInputs(intrinsics=k4)))
    np.testing.assert_array_equal(c.render(torch.from_numpy(frames[0]),
                                           inputs=wr.RenderInputs(intrinsics=torch.from_numpy(k33))).numpy(),
                                  d.render(frames[0], inputs=wr.RenderInputs(intrinsics=k4)))
    k33[2, 0, 1] = 0.5
    with pytest.raises(wr.Error, match=r"intrinsics\[2\] = .*no skew"):
        c.render(frames[0], inputs=wr.RenderInputs(intrinsics=k33))


def test_a_named_layout_carries_its_quaternion_order() -> None:
    ctx = wr.Context("cpu", threads=1)
    n = 2
    p = random_poses(n, 8)  # w x y z
    root = np.zeros((n, 13), np.float32)
    root[:, :3] = p[:, :3]
    root[:, 3:6], root[:, 6] = p[:, 4:7], p[:, 3]  # x y z w, IsaacGym's
    xyzw = _sensor(ctx, n, quat_order="xyzw")
    np.testing.assert_array_equal(xyzw.render(root, layout="isaacgym_root_states"), _sensor(ctx, n).render(p))
    with pytest.raises(wr.Error, match=r"poses are xyzw, but this sensor reads wxyz"):
        _sensor(ctx, n).render(root, layout="isaacgym_root_states")
    with pytest.raises(wr.Error, match=r"layout = 'isaaclab_root_state_w' has rows of 13 floats, but poses has shape"):
        xyzw.render(p, layout="isaaclab_root_state_w")
    with pytest.raises(wr.Error, match=r"layout = 'root': must be one of"):
        xyzw.render(root, layout="root")
