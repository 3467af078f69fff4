"""warp_raycaster.mujoco against MuJoCo's own mj_ray, per pixel: MJCF snippets of every geom type
(static and moving) and the bundled robot model, posed from a list of MjData, from batch arrays
(NumPy, torch) and from mujoco_warp's Data on the CPU; the images from all inputs identical where
the poses are; the sensor's buffers reused (nothing allocated per render, the inputs untouched);
each bad input named. mj_ray traces in double, the library in float: exact shapes agree within
1e-4 relative, curved primitives within their tessellation tolerance."""

from __future__ import annotations

import numpy as np
import pytest

import warp_raycaster as wr

mujoco = pytest.importorskip("mujoco")
wrm = pytest.importorskip("warp_raycaster.mujoco")

from conftest import REPO  # noqa: E402

STAR = ("0 0 0.35  0 0 -0.35  0.5 0 0  0.14 0.14 0  0 0.5 0  -0.14 0.14 0  -0.5 0 0  -0.14 -0.14 0  0 -0.5 0  "
        "0.14 -0.14 0")
STAR_FACES = " ".join(f"{2 + k} {2 + (k + 1) % 8} 0 {2 + (k + 1) % 8} {2 + k} 1" for k in range(8))


def hfield_elevation(nrow: int, ncol: int) -> str:
    e = np.random.default_rng(7).uniform(0.0, 1.0, nrow * ncol)
    return " ".join(f"{x:.5f}" for x in e)


def exact_model() -> str:
    """Every exact shape, static and moving: box, mesh, hfield (with its base), plane; a camera on a
    moving body with a geom of its own (exclude_own_body) and a fixed camera."""
    return f"""<mujoco><asset>
      <mesh name="star" scale="1.2 1.5 1.1" vertex="{STAR}" face="{STAR_FACES}"/>
      <hfield name="hills" nrow="9" ncol="11" size="1.2 1.0 0.4 0.2" elevation="{hfield_elevation(9, 11)}"/>
      </asset><worldbody>
      <camera name="fixed" pos="0.3 -3.6 2.6" xyaxes="1 0 0 0 0.6 0.8" resolution="64 48" fovy="60"/>
      <geom name="floor" type="plane" size="5 5 0.1" pos="0 0 -0.2"/>
      <geom name="block" type="box" size="0.4 0.3 0.25" pos="-1.5 0.8 0.1" euler="0 0 20"/>
      <geom name="terrain" type="hfield" hfield="hills" pos="1.3 1.2 0" euler="0 0 15"/>
      <geom name="rock" type="mesh" mesh="star" pos="-0.6 -1.2 0.2"/>
      <body name="mover" pos="0.2 0.1 0.6"><freejoint/>
        <geom type="box" size="0.25 0.2 0.15"/>
        <geom type="mesh" mesh="star" pos="0.4 0.4 0.3" euler="30 0 0"/>
      </body>
      <body name="head" pos="0 -2.2 1.2" euler="60 0 0"><freejoint/>
        <geom name="visor" type="box" size="0.1 0.1 0.1" pos="0 0 0.05"/>
        <camera name="eye" pos="0 0 0" resolution="48 36" fovy="70"/>
      </body>
      <body name="bump" pos="1.0 -0.8 0.4"><freejoint/><geom type="hfield" hfield="hills"/></body>
    </worldbody></mujoco>"""


def curved_model() -> str:
    return """<mujoco><worldbody>
      <camera name="fixed" pos="0.1 -2.6 1.6" xyaxes="1 0 0 0 0.55 0.83" resolution="64 48" fovy="55"/>
      <geom type="box" size="3 3 0.05" pos="0 0 -0.05"/>
      <geom type="sphere" size="0.3" pos="-0.9 0.4 0.3"/>
      <body pos="0.3 0.2 0.5"><freejoint/>
        <geom type="capsule" size="0.15 0.3" euler="0 80 0"/>
        <geom type="cylinder" size="0.2 0.15" pos="0.5 0.5 0"/>
        <geom type="ellipsoid" size="0.3 0.2 0.15" pos="-0.5 0.6 0.1"/>
        <geom type="sphere" size="0.2" pos="0.1 -0.6 0"/>
      </body>
    </worldbody></mujoco>"""


def states(m, n: int, seed: int):
    """n MjData: the free bodies moved and turned differently in each (env 0 at qpos0)."""
    rng = np.random.default_rng(seed)
    datas = []
    for e in range(n):
        d = mujoco.MjData(m)
        for j in range(m.njnt):
            if e == 0 or m.jnt_type[j] != mujoco.mjtJoint.mjJNT_FREE:
                continue
            a = m.jnt_qposadr[j]
            d.qpos[a:a + 3] += rng.uniform(-0.25, 0.25, 3)
            q = np.array([1.0, *rng.uniform(-0.6, 0.6, 3)])
            d.qpos[a + 3:a + 7] = q / np.linalg.norm(q)
        mujoco.mj_forward(m, d)
        datas.append(d)
    return datas


def warp_data(wp, mjw, m, datas, device: str):
    """mujoco_warp's Data of len(datas) worlds on `device`, each world at its MjData's qpos, with the
    positions computed (kinematics, com_pos, camlight: geom, site and camera poses)."""
    wp.config.quiet = True
    with wp.ScopedDevice(device):
        model = mjw.put_model(m)
        data = mjw.put_data(m, datas[0], nworld=len(datas))
        data.qpos.assign(np.stack([d.qpos for d in datas]).astype(np.float32))
        mjw.kinematics(model, data)
        mjw.com_pos(model, data)
        mjw.camlight(model, data)
    return data


def mj_image(m, d, sensor: "wrm.CameraSensor", bodyexclude: int = -1, geomgroup=None) -> np.ndarray:
    """mj_ray's distance (inf on a miss) for every pixel ray of the sensor's camera, the rays as the
    library states them: d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy) in the
    camera frame forward = -cam_z, left = -cam_x, up = +cam_y (MuJoCo's camera axes)."""
    c = sensor.camera
    u, v = np.meshgrid(np.arange(c.width) + 0.5, np.arange(c.height) + 0.5)
    dc = np.stack([np.ones_like(u), -(u - c.cx) / c.fx, -(v - c.cy) / c.fy], -1).reshape(-1, 3)
    dc /= np.linalg.norm(dc, axis=1, keepdims=True)
    r = d.cam_xmat[sensor.id].reshape(3, 3)
    world = dc[:, :1] * -r[:, 2] + dc[:, 1:2] * -r[:, 0] + dc[:, 2:3] * r[:, 1]
    n = len(world)
    geomid = np.zeros(n, np.int32)
    dist = np.zeros(n, np.float64)
    groups = None if geomgroup is None else np.asarray(geomgroup, np.uint8)
    mujoco.mj_multiRay(m, d, d.cam_xpos[sensor.id].copy(), np.ascontiguousarray(world).reshape(-1), groups, 1,
                       bodyexclude, geomid, dist, None, n, mujoco.mjMAXVAL)
    return np.where(dist < 0, np.inf, dist).reshape(c.height, c.width)


def mj_pattern(m, d, frame: "wrm.Frame", pattern: wr.Pattern, bodyexclude: int = -1):
    """mj_ray's distance (inf on a miss) and geom (-1) for each ray of `pattern` at the frame's site in d."""
    starts, dirs = pattern.rays()
    r = d.site_xmat[frame.id].reshape(3, 3)
    origins = d.site_xpos[frame.id] + starts.astype(np.float64) @ r.T
    world = dirs.astype(np.float64) @ r.T
    geomid = np.zeros(1, np.int32)
    t, geoms = [], []
    for o, v in zip(origins, world):
        t.append(mujoco.mj_ray(m, d, o, v, None, 1, bodyexclude, geomid))
        geoms.append(int(geomid[0]))
    t = np.asarray(t)
    return np.where(t < 0, np.inf, t), geoms


def agreement(t_wr: np.ndarray, t_mj: np.ndarray, atol: float = 0.0) -> float:
    """The fraction of pixels where both miss, or both hit within 1e-4 relative (plus atol)."""
    both_miss = ~np.isfinite(t_wr) & ~np.isfinite(t_mj)
    both_hit = np.isfinite(t_wr) & np.isfinite(t_mj)
    assert both_hit.sum() > t_mj.size // 4, "the comparison would be of misses alone"
    close = np.zeros_like(both_hit)
    close[both_hit] = np.abs(t_wr[both_hit] - t_mj[both_hit]) <= 1e-4 * t_mj[both_hit] + atol
    return float((both_miss | close).mean())


@pytest.fixture(scope="module")
def cpu() -> wr.Context:
    return wr.Context("cpu", threads=2)


def test_every_exact_geom_type_agrees_with_mj_ray_from_a_list_of_mjdata(cpu: wr.Context) -> None:
    m = mujoco.MjModel.from_xml_string(exact_model())
    datas = states(m, 3, seed=1)
    scene = wrm.Scene(cpu, m)
    # Static: floor, block, terrain, rock; moving: the mover's two geoms, the visor, the bump.
    assert (scene.num_static_geoms, scene.num_slots) == (4, 4)
    for name in ("fixed", "eye"):
        cam = scene.camera(name, num_envs=3, depth="range", exclude_own_body=(name == "eye"))
        images = cam.render(datas)
        assert images.shape == (3, cam.camera.height, cam.camera.width)
        head = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "head") if name == "eye" else -1
        for e, d in enumerate(datas):
            assert agreement(images[e], mj_image(m, d, cam, bodyexclude=head)) >= 0.999, (name, e)


def test_curved_primitives_agree_with_mj_ray_within_the_tolerance(cpu: wr.Context) -> None:
    m = mujoco.MjModel.from_xml_string(curved_model())
    datas = states(m, 2, seed=2)
    tolerance = 1e-3
    cam = wrm.Scene(cpu, m, tolerance=tolerance).camera("fixed", num_envs=2, depth="range")
    images = cam.render(datas)
    for e, d in enumerate(datas):
        t_mj = mj_image(m, d, cam)
        # Inscribed triangles: never nearer than the true surface, by at most the tolerance (over the
        # cosine of the incidence; grazing pixels at silhouettes may hit one and miss the other).
        assert agreement(images[e], t_mj, atol=4 * tolerance) >= 0.99, e
        both = np.isfinite(images[e]) & np.isfinite(t_mj)
        assert np.median(np.abs(images[e][both] - t_mj[both])) <= tolerance


def test_geomgroup_and_plane_depth(cpu: wr.Context) -> None:
    m = mujoco.MjModel.from_xml_string(exact_model().replace('name="block" type="box"',
                                                              'name="block" group="3" type="box"'))
    datas = states(m, 1, seed=3)
    groups = (1, 1, 1, 0, 1, 1)
    scene = wrm.Scene(cpu, m, geomgroup=groups)
    assert scene.num_static_geoms == 3
    plane = scene.camera("fixed", num_envs=1).render(datas[0])
    rng = scene.camera("fixed", num_envs=1, depth="range")
    t_mj = mj_image(m, datas[0], rng, geomgroup=groups)
    assert agreement(rng.render(datas)[0], t_mj) >= 0.999
    # plane depth = range x the cosine of the pixel ray to the optical axis
    c = rng.camera
    u, v = np.meshgrid(np.arange(c.width) + 0.5, np.arange(c.height) + 0.5)
    cos = 1.0 / np.sqrt(1.0 + ((u - c.cx) / c.fx) ** 2 + ((v - c.cy) / c.fy) ** 2)
    hit = np.isfinite(t_mj)
    np.testing.assert_allclose(plane[0][hit], (t_mj * cos)[hit], rtol=2e-4)


def test_the_bundled_robot_agrees_with_mj_ray_and_with_the_cpp_adapters_rules(cpu: wr.Context) -> None:
    m = mujoco.MjModel.from_xml_path(str(REPO / "assets" / "mujoco" / "quadruped_parkour.xml"))
    datas = states(m, 2, seed=4)
    scene = wrm.Scene(cpu, m)
    cam = scene.camera("head", num_envs=2, width=40, height=24, depth="range")
    images = cam.render(datas)
    for e, d in enumerate(datas):
        # The model's own geomgroup: what its header says the head camera sees.
        assert agreement(images[e], mj_image(m, d, cam), atol=2e-3) >= 0.99, e


def test_the_same_images_from_mjdata_batch_arrays_and_tensors(cpu: wr.Context) -> None:
    torch = pytest.importorskip("torch")
    m = mujoco.MjModel.from_xml_string(exact_model())
    datas = states(m, 3, seed=5)
    cam = wrm.Scene(cpu, m).camera("fixed", num_envs=3)
    from_list = cam.render(datas).copy()
    arrays = {k: np.stack([getattr(d, k) for d in datas]) for k in ("geom_xpos", "geom_xmat", "cam_xpos", "cam_xmat")}
    from_numpy = cam.render(**arrays).copy()
    np.testing.assert_array_equal(from_list, from_numpy)
    square = dict(arrays, geom_xmat=arrays["geom_xmat"].reshape(3, -1, 3, 3),
                  cam_xmat=arrays["cam_xmat"].reshape(3, -1, 3, 3))
    np.testing.assert_array_equal(cam.render(**square), from_list)
    tensors = {k: torch.from_numpy(a) for k, a in arrays.items()}
    np.testing.assert_array_equal(cam.render(**tensors), from_list)
    # float32 inputs (as mujoco_warp keeps them): the same geometry, rounded poses.
    f32 = {k: a.astype(np.float32) for k, a in arrays.items()}
    np.testing.assert_allclose(cam.render(**f32), from_list, rtol=1e-4)


def test_mujoco_warp_data_on_the_cpu(cpu: wr.Context) -> None:
    wp = pytest.importorskip("warp")
    mjw = pytest.importorskip("mujoco_warp")
    m = mujoco.MjModel.from_xml_string(exact_model())
    datas = states(m, 3, seed=6)
    data = warp_data(wp, mjw, m, datas, "cpu")
    cam = wrm.Scene(cpu, m).camera("fixed", num_envs=3, depth="range")
    before = data.geom_xpos.numpy().copy()
    from_warp = cam.render(data).copy()
    # The Warp arrays as NumPy copies give the same bits: the Data was read in place.
    same = cam.render(geom_xpos=data.geom_xpos.numpy(), geom_xmat=data.geom_xmat.numpy(),
                      cam_xpos=data.cam_xpos.numpy(), cam_xmat=data.cam_xmat.numpy())
    np.testing.assert_array_equal(from_warp, same)
    np.testing.assert_array_equal(data.geom_xpos.numpy(), before)
    # mujoco_warp's float32 kinematics against MuJoCo's mj_ray on its double states.
    for e, d in enumerate(datas):
        assert agreement(from_warp[e], mj_image(m, d, cam), atol=1e-4) >= 0.99, e
    # The same poses in all three inputs (MjData's, rounded to float32 where the others hold float32):
    # the same images, bit for bit.
    names = ("geom_xpos", "geom_xmat", "cam_xpos", "cam_xmat")
    for d in datas:
        for k in names:
            getattr(d, k)[:] = getattr(d, k).astype(np.float32)
    with wp.ScopedDevice("cpu"):
        for k in names:
            getattr(data, k).assign(np.stack([getattr(d, k) for d in datas]).astype(np.float32).reshape(
                getattr(data, k).numpy().shape))
    from_mjdata = cam.render(datas).copy()
    np.testing.assert_array_equal(cam.render(data), from_mjdata)
    np.testing.assert_array_equal(cam.render(**{k: np.stack([getattr(d, k) for d in datas]) for k in names}),
                                  from_mjdata)


def test_renders_reuse_the_sensors_buffers_and_leave_the_inputs_alone(cpu: wr.Context) -> None:
    m = mujoco.MjModel.from_xml_string(exact_model())
    datas = states(m, 2, seed=7)
    cam = wrm.Scene(cpu, m).camera("fixed", num_envs=2)
    out = np.empty(cam.shape, np.float32)
    xpos = [d.geom_xpos.copy() for d in datas]
    poses = cam.poses(datas)
    pointer = poses.__array_interface__["data"][0]
    result = cam.render(datas, out=out)
    assert result is out or np.shares_memory(result, out)
    assert cam.poses(datas).__array_interface__["data"][0] == pointer
    for d, x in zip(datas, xpos):
        np.testing.assert_array_equal(d.geom_xpos, x)


def test_a_site_frame_for_a_height_scan(cpu: wr.Context) -> None:
    m = mujoco.MjModel.from_xml_string(exact_model().replace(
        '<camera name="eye"', '<site name="scan" pos="0 0 0.3"/><camera name="eye"'))
    datas = states(m, 2, seed=8)
    scene = wrm.Scene(cpu, m)
    frame = scene.frame(site="scan", num_envs=2, exclude_own_body=True)
    assert frame.exclude_groups == (scene.body_group(frame.body),)
    poses = frame.poses(datas)
    for e, d in enumerate(datas):
        np.testing.assert_allclose(poses[e, :3], d.site_xpos[frame.id], rtol=1e-6)
        q = np.zeros(4)
        mujoco.mju_mat2Quat(q, d.site_xmat[frame.id])
        q *= np.sign(q[0]) * np.sign(poses[e, 3]) if q[0] != 0 else 1.0
        np.testing.assert_allclose(poses[e, 3:], q, atol=1e-6)
    assert frame.instance_poses(datas).shape == (2, scene.num_slots, 7)


def test_a_height_scan_and_a_lidar_on_a_site_agree_with_mj_ray(cpu: wr.Context) -> None:
    m = mujoco.MjModel.from_xml_string(exact_model().replace(
        '<camera name="eye"', '<site name="scan" pos="0.05 0.02 0.3" euler="0 10 25"/><camera name="eye"'))
    datas = states(m, 2, seed=10)
    scene = wrm.Scene(cpu, m)
    frame = scene.frame(site="scan", num_envs=2, exclude_own_body=True)
    head = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "head")
    for pattern in (wr.Pattern.grid((1.2, 0.8), 0.1), wr.Pattern.spherical(channels=8, horizontal_resolution=3.0)):
        sensor = wr.RaySensor(scene.scene, pattern, 2, exclude_groups=frame.exclude_groups)
        t = sensor.render(frame.poses(datas), inputs=wr.RenderInputs(instance_poses=frame.instance_poses(datas)))
        for e, d in enumerate(datas):
            ref, _ = mj_pattern(m, d, frame, pattern, head)
            hit = np.isfinite(ref)
            assert hit.mean() > 0.25  # a LiDAR's upper rays see the sky
            np.testing.assert_array_equal(np.isfinite(t[e]), hit)
            np.testing.assert_allclose(t[e][hit], ref[hit], rtol=1e-4, atol=1e-5)


def test_a_static_hfield_as_a_grid_terrain_agrees_with_mj_ray(cpu: wr.Context) -> None:
    # The exact model with its static hfield unturned (the grid's axes are the world's) and a scan site
    # above it, whose rays meet the hfield and, past its edges, the floor beside it (none on a sample row
    # or column, where mj_ray's own hfield test can miss a cell).
    m = mujoco.MjModel.from_xml_string(exact_model().replace('pos="1.3 1.2 0" euler="0 0 15"', 'pos="1.3 1.2 0"')
                                       .replace('<camera name="fixed"', '<site name="scan" pos="1.33 1.213 1.5"/>'
                                                '<camera name="fixed"'))
    datas = states(m, 2, seed=12)
    scene = wrm.Scene(cpu, m, terrain="grid")
    assert scene.grid_geom == mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "terrain")
    assert scene.scene.terrain_kind == "grid"
    assert (scene.num_static_geoms, scene.num_slots) == (4, 4)
    np.testing.assert_array_equal(scene.global_poses, [[0, 0, 0, 1, 0, 0, 0]])
    assert "as a grid" in repr(scene)
    for name in ("fixed", "eye"):
        cam = scene.camera(name, num_envs=2, depth="range", exclude_own_body=(name == "eye"))
        images = cam.render(datas)
        head = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "head") if name == "eye" else -1
        for e, d in enumerate(datas):
            assert agreement(images[e], mj_image(m, d, cam, bodyexclude=head)) >= 0.999, (name, e)
    # A height scan over the grid and the static geoms beside it, per ray against mj_ray.
    frame = scene.frame(site="scan", num_envs=2)
    pattern = wr.Pattern.grid((2.6, 1.9), 0.1)
    sensor = wr.RaySensor(scene.scene, pattern, 2)
    t = sensor.render(frame.poses(datas), inputs=wr.RenderInputs(instance_poses=frame.instance_poses(datas),
                                                                 global_poses=frame.scene.global_poses))
    for e, d in enumerate(datas):
        ref, geoms = mj_pattern(m, d, frame, pattern)
        assert geoms.count(scene.grid_geom) > len(geoms) // 2 and geoms.count(0) > 0  # the grid and the floor
        np.testing.assert_array_equal(np.isfinite(t[e]), np.isfinite(ref))
        np.testing.assert_allclose(t[e], ref, rtol=1e-4, atol=1e-5)
    # The same images as the model's one BVH, within rounding (the grid makes its vertices itself).
    bvh = wrm.Scene(cpu, m, terrain="bvh")
    assert bvh.grid_geom == -1 and bvh.global_poses is None and bvh.scene.terrain_kind == "bvh"
    a = scene.camera("fixed", num_envs=2, depth="range").render(datas)
    b = bvh.camera("fixed", num_envs=2, depth="range").render(datas)
    np.testing.assert_array_equal(np.isfinite(a), np.isfinite(b))
    np.testing.assert_allclose(a[np.isfinite(a)], b[np.isfinite(b)], rtol=1e-5)
    # What cannot be a grid: a turned hfield, a model without one, a bad name.
    with pytest.raises(wr.Error, match="'terrain' \\(hfield\\) is turned.*WR_TERRAIN_BVH"):
        wrm.Scene(cpu, mujoco.MjModel.from_xml_string(exact_model()), terrain="grid")
    with pytest.raises(wr.Error, match="no static hfield"):
        wrm.Scene(cpu, mujoco.MjModel.from_xml_string(curved_model()), terrain="grid")
    with pytest.raises(wr.Error, match="terrain = 'mesh': must be 'auto', 'bvh' or 'grid'"):
        wrm.Scene(cpu, m, terrain="mesh")


def test_errors_name_their_argument(cpu: wr.Context) -> None:
    m = mujoco.MjModel.from_xml_string(exact_model())
    datas = states(m, 2, seed=9)
    scene = wrm.Scene(cpu, m)
    with pytest.raises(wr.Error, match="no camera named 'nose'.*'fixed', 'eye'"):
        scene.camera("nose")
    with pytest.raises(wr.Error, match="camera 7 is out of range"):
        scene.camera(7)
    cam = scene.camera("fixed", num_envs=2)
    with pytest.raises(wr.Error, match="data has 1 MjData: the sensor has num_envs = 2"):
        cam.render(datas[:1])
    arrays = {k: np.stack([getattr(d, k) for d in datas]) for k in ("geom_xpos", "geom_xmat", "cam_xpos", "cam_xmat")}
    with pytest.raises(wr.Error, match=r"geom_xmat has shape \(2, 8, 8\)"):
        cam.render(**dict(arrays, geom_xmat=np.zeros((2, 8, 8))))
    with pytest.raises(wr.Error, match="cam_xpos has dtype int32, expected float32 or float64"):
        cam.render(**dict(arrays, cam_xpos=arrays["cam_xpos"].astype(np.int32)))
    with pytest.raises(wr.Error, match="geom_xpos is not C-contiguous"):
        cam.render(**dict(arrays, geom_xpos=np.asfortranarray(arrays["geom_xpos"])))
    with pytest.raises(wr.Error, match=r"geom_xpos has shape \(2, 5, 3\): the model has 8 of them"):
        cam.render(**dict(arrays, geom_xpos=arrays["geom_xpos"][:, :5].copy()))
    with pytest.raises(wr.Error, match="give data or the pose arrays, not both"):
        cam.render(datas, geom_xpos=arrays["geom_xpos"])
    with pytest.raises(wr.Error, match="exclude_own_body.*welded to the world|exclude_own_body"):
        scene.frame(body="world", exclude_own_body=True)
    with pytest.raises(wr.Error, match="expected a mujoco.MjModel"):
        wrm.Scene(cpu, object())
    with pytest.raises(wr.Error, match="geomgroup has 3 values"):
        wrm.Scene(cpu, m, geomgroup=(1, 1, 1))
    with pytest.raises(wr.Error, match="options.tolerance"):
        wrm.Scene(cpu, m, tolerance=0.0)


def test_mujoco_warp_data_on_a_gpu_equals_the_cpu() -> None:
    """Where a GPU is lent: mujoco_warp's Data on it, the poses gathered and the image rendered there,
    equal to a CPU context's render of the same arrays bit for bit (the library's CPU / GPU parity)."""
    torch = pytest.importorskip("torch")
    wp = pytest.importorskip("warp")
    mjw = pytest.importorskip("mujoco_warp")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    try:
        gpu = wr.Context("cuda", device=0)
    except wr.Error as e:
        pytest.skip(f"no CUDA context: {e}")
    m = mujoco.MjModel.from_xml_string(exact_model())
    datas = states(m, 3, seed=11)
    data = warp_data(wp, mjw, m, datas, "cuda:0")
    on_gpu = wrm.Scene(gpu, m).camera("fixed", num_envs=3, depth="range").render(data)
    torch.cuda.synchronize()
    host = {k: getattr(data, k).numpy() for k in ("geom_xpos", "geom_xmat", "cam_xpos", "cam_xmat")}
    on_cpu = wrm.Scene(wr.Context("cpu"), m).camera("fixed", num_envs=3, depth="range").render(**host)
    np.testing.assert_array_equal(on_gpu.cpu().numpy(), on_cpu)
