"""MuJoCo's own renderer against the pixel convention integrations/mujoco/model/model_scene.h states for MJCF
cameras (and wr_mujoco.cpp's Camera::from_model implements):

    fovy:        fy = (height / 2) / tan(fovy / 2), fx = fy, cx = width / 2, cy = height / 2
    sensorsize:  fx = focal_x width / W, fy = focal_y height / H,
                 cx = width / 2 - principal_x width / W, cy = height / 2 - principal_y height / H

with rows top to bottom, a point (x right, y up, -z forward) of the camera's frame at pixel
(cx + fx x / -z, cy - fy y / -z). Small spheres placed in the camera's frame are rendered (depth) by
mujoco.Renderer and each one's pixels must centre on the pixel the formula gives. This is the
check of the principal point's sign, which the C++ tests take from mjv_updateCamera's frustum and
render_gl3.c's use of it. Exit 77 (CTest: skipped) where no OpenGL context can be made.
"""

from __future__ import annotations

import math
import os
import sys

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np  # noqa: E402

try:
    import mujoco  # noqa: E402
except ImportError as e:  # pragma: no cover
    print(f"skipped: mujoco is not importable: {e}")
    sys.exit(77)

WIDTH, HEIGHT = 256, 192
CAMERAS = {
    "fovy": 'fovy="50"',
    "focal": 'sensorsize="0.024 0.016" focal="0.016 0.012"',
    "principal": 'sensorsize="0.02 0.015" focal="0.012 0.011" principal="0.002 -0.0015"',
    "pixels": 'sensorsize="4 3" focalpixel="160 176" principalpixel="24 -16"',
}
# Points in the camera's frame: x right, y up, z backwards (MuJoCo looks along -z).
POINTS = [(0.0, 0.0, -3.0), (0.5, 0.3, -3.0), (-0.6, 0.2, -2.5), (0.3, -0.4, -2.0), (-0.2, -0.3, -4.0)]


def intrinsics(m: mujoco.MjModel) -> tuple[float, float, float, float]:
    size, intr = m.cam_sensorsize[0], m.cam_intrinsic[0]
    if size[0] > 0 and size[1] > 0:
        return (intr[0] / size[0] * WIDTH, intr[1] / size[1] * HEIGHT,
                WIDTH / 2 - intr[2] / size[0] * WIDTH, HEIGHT / 2 - intr[3] / size[1] * HEIGHT)
    fy = HEIGHT / 2 / math.tan(math.radians(m.cam_fovy[0]) / 2)
    return fy, fy, WIDTH / 2, HEIGHT / 2


def main() -> int:
    worst = 0.0
    for name, attrs in CAMERAS.items():
        for point in POINTS:
            xml = f"""<mujoco><visual><global offwidth="{WIDTH}" offheight="{HEIGHT}"/></visual><worldbody>
              <geom type="sphere" size="0.1" pos="{point[0]} {point[1]} {point[2]}"/>
              <body><camera name="c" {attrs} resolution="{WIDTH} {HEIGHT}"/></body></worldbody></mujoco>"""
            m = mujoco.MjModel.from_xml_string(xml)
            d = mujoco.MjData(m)
            mujoco.mj_forward(m, d)
            try:
                renderer = mujoco.Renderer(m, HEIGHT, WIDTH)
            except Exception as e:  # no EGL / OSMesa / GLFW context here
                print(f"skipped: no OpenGL context for mujoco.Renderer ({os.environ['MUJOCO_GL']}): {e}")
                return 77
            renderer.enable_depth_rendering()
            renderer.update_scene(d, camera="c")
            depth = renderer.render()
            renderer.close()
            rows, cols = np.nonzero(depth < 10)
            if len(rows) == 0:
                print(f"FAIL {name}: the sphere at {point} is not in the image")
                return 1
            fx, fy, cx, cy = intrinsics(m)
            x, y, z = point
            u, v = cx + fx * x / -z, cy - fy * y / -z  # pixel-edge coordinates
            du, dv = cols.mean() + 0.5 - u, rows.mean() + 0.5 - v
            worst = max(worst, abs(du), abs(dv))
            print(f"{name:9s} point {point}: renderer centre ({cols.mean() + 0.5:.2f}, {rows.mean() + 0.5:.2f}), "
                  f"formula ({u:.2f}, {v:.2f})")
            if abs(du) > 0.5 or abs(dv) > 0.5:  # a sign or offset slip is tens of pixels
                print(f"FAIL {name}: the renderer puts the sphere {du:+.2f}, {dv:+.2f} pixels from the formula's pixel")
                return 1
    print(f"ok: every sphere within {worst:.2f} pixels of the formula")
    return 0


if __name__ == "__main__":
    sys.exit(main())
