"""The engine plugin through MuJoCo's Python bindings (what mujoco.viewer users load it with).

usage: check_plugin_python.py <libwr_mujoco_plugin.so> <examples/depth_camera.xml> <examples/height_scan_lidar.xml>

mujoco.mj_loadPluginLibrary registers warp_raycaster.depth; the example model, made 65 x 49 so
that its centre pixel is the optical axis, steps and reads its image from d.sensor(...).data;
the centre pixel is mj_ray's distance along the axis; a bad attribute is a ValueError carrying the
plugin's message. warp_raycaster.rays: the height scan example steps, and its centre ray's height is
the site's z - mj_ray's hit straight down - 0.5. Exit status 0 when all of that holds.
"""

import sys

import numpy as np

import mujoco


def check(cond, what):
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def check_rays(example):
    m = mujoco.MjModel.from_xml_path(example)
    d = mujoco.MjData(m)
    for _ in range(50):
        mujoco.mj_step(m, d)
    heights = d.sensor("height_scan").data.reshape(11, 17)  # y rows, x fastest
    check(heights.shape == (11, 17) and np.isfinite(heights).all(), "187 heights, every one hit")
    site = m.site("height_scan").id
    geom = np.zeros(1, dtype=np.int32)
    t = mujoco.mj_ray(m, d, d.site_xpos[site], np.array([0.0, 0.0, -1.0]), None, 1,
                      m.site_bodyid[site], geom)
    want = t - 0.5  # site z - (site z - t) - 0.5
    print(f"centre height {heights[5, 8]:.6f}, mj_ray {want:.6f}")
    check(t > 0 and abs(heights[5, 8] - want) <= 1e-4, "the centre ray's height is mj_ray's")
    check(d.sensor("lidar").data.shape == (16 * 90,), "the LiDAR's 16 x 90 distances")


def main(plugin, example, rays_example):
    mujoco.mj_loadPluginLibrary(plugin)
    with open(example) as f:
        xml = f.read()
    xml = xml.replace('key="width" value="64"', 'key="width" value="65"')
    xml = xml.replace('key="height" value="48"', 'key="height" value="49"')

    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    for _ in range(100):
        mujoco.mj_step(m, d)
    image = d.sensor("head_depth").data.reshape(49, 65)
    check(np.isfinite(image).all(), "every pixel of the example's view hits something within far")

    cam = m.camera("head").id
    forward = -d.cam_xmat[cam].reshape(3, 3)[:, 2]  # MuJoCo cameras look along their -Z
    geom = np.zeros(1, dtype=np.int32)
    t = mujoco.mj_ray(m, d, d.cam_xpos[cam], forward, None, 1, m.cam_bodyid[cam], geom)
    centre = image[24, 32]
    print(f"centre pixel {centre:.6f} m, mj_ray {t:.6f} m (geom {geom[0]})")
    check(t > 0 and m.geom_type[geom[0]] == mujoco.mjtGeom.mjGEOM_BOX, "the axis hits a box")
    check(abs(centre - t) <= 1e-4 * t, "the centre pixel is mj_ray's distance")

    bad = xml.replace('key="depth_kind" value="plane"', 'key="depth_kind" value="foo"')
    try:
        mujoco.MjModel.from_xml_string(bad)
    except ValueError as e:
        print("refused:", str(e).splitlines()[0])
        check("warp_raycaster.depth: sensor 0 'head_depth': attribute depth_kind = 'foo': must be plane or range"
              in str(e), "the error names the sensor and the attribute")
    else:
        check(False, "depth_kind = 'foo' compiled")
    check_rays(rays_example)
    print("ok")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(64)
    main(sys.argv[1], sys.argv[2], sys.argv[3])
