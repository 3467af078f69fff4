"""The package ships type stubs of its extension (nanobind's stubgen) and is marked typed."""

from __future__ import annotations

import pathlib

import warp_raycaster as wr


def test_stubs_are_installed_beside_the_extension() -> None:
    package = pathlib.Path(wr.__file__).parent
    stub = (package / "_wr.pyi").read_text()
    for declaration in ("class Sensor:", "def render(self, poses: object", "class Scene:", "def intersect(",
                        "class CameraDesc:", "class Status(enum.IntEnum):", "def create_instanced(",
                        "def instance_counts(self) -> tuple[int, int]:", "def intersect_ex(",
                        "instance_poses: object | None = None", "**arrays", "def exclude_groups(self) -> int:"):
        assert declaration in stub, declaration
    assert (package / "py.typed").exists()


def test_public_api_has_docstrings() -> None:
    for obj in (wr.Context, wr.Scene, wr.Scene.from_obj, wr.Scene.instanced, wr.Scene.instance_counts,
                wr.Scene.intersect, wr.Camera, wr.Camera.pinhole,
                wr.Sensor, wr.Sensor.render, wr.Sensor.render_hits, wr.Hits, wr.RenderInputs, wr.Error, wr.rl.poses_from_root_states, wr.rl.isaaclab_camera,
                wr.rl.isaacgym_camera, wr.rl.extreme_parkour_camera):
        assert obj.__doc__ and len(obj.__doc__) > 40, obj
