"""Scene.from_heightfield against MuJoCo's own mj_ray on the same hfield geom: MuJoCo's model
(hfield_data, hfield_size, the geom's position) mapped as wr.h states, rays traced by both, every
ray compared (the issue's 1e-4 relative). MuJoCo traces in double, the library in float."""

from __future__ import annotations

import numpy as np
import pytest

import warp_raycaster as wr

mujoco = pytest.importorskip("mujoco")


def hfield_model(nrow: int, ncol: int, size, pos, seed: int):
    elevation = np.random.default_rng(seed).uniform(0.0, 1.0, nrow * ncol)
    xml = f"""<mujoco><asset><hfield name="h" nrow="{nrow}" ncol="{ncol}" size="{' '.join(map(str, size))}"
      elevation="{' '.join(f'{e:.6f}' for e in elevation)}"/></asset>
      <worldbody><geom type="hfield" hfield="h" pos="{' '.join(map(str, pos))}"/></worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    return m, d


def scene_of(ctx: wr.Context, m, d, *, base: bool) -> wr.Scene:
    # wr.h: origin = geom position + (-size[0], -size[1], 0), spacing 2 size / (n - 1),
    # z_scale = size[2], base_depth = size[3]; heights[iy, ix] = hfield_data as (nrow, ncol).
    nrow, ncol = int(m.hfield_nrow[0]), int(m.hfield_ncol[0])
    size = m.hfield_size[0]
    pos = d.geom_xpos[0]
    heights = np.asarray(m.hfield_data, np.float32).reshape(nrow, ncol)
    return wr.Scene.from_heightfield(ctx, heights, (2 * size[0] / (ncol - 1), 2 * size[1] / (nrow - 1)),
                                     z_scale=size[2], origin=(pos[0] - size[0], pos[1] - size[1], pos[2]),
                                     base_depth=size[3] if base else 0.0)


def mj_rays(m, d, origins: np.ndarray, directions: np.ndarray) -> np.ndarray:
    geomid = np.zeros(1, np.int32)
    t = np.array([mujoco.mj_ray(m, d, o.astype(np.float64), v.astype(np.float64), None, 1, -1, geomid)
                  for o, v in zip(origins, directions)])
    return np.where(t < 0, np.inf, t)


def compare(t_wr: np.ndarray, t_mj: np.ndarray) -> None:
    assert (np.isfinite(t_wr) == np.isfinite(t_mj)).all(), "one hits where the other misses"
    hit = np.isfinite(t_mj)
    assert hit.sum() > len(t_mj) // 4  # the comparison is not of misses alone
    np.testing.assert_allclose(t_wr[hit], t_mj[hit], rtol=1e-4)


@pytest.mark.parametrize("nrow, ncol", [(5, 5), (4, 7), (9, 3)])
def test_rays_onto_the_surface_agree_with_mj_ray(ctx: wr.Context, nrow: int, ncol: int) -> None:
    m, d = hfield_model(nrow, ncol, (1.5, 1.0, 0.8, 0.3), (0.5, -0.2, 0.1), seed=nrow * 10 + ncol)
    scene = scene_of(ctx, m, d, base=False)
    rng = np.random.default_rng(nrow + ncol)
    n = 3000
    # From above, down and obliquely, aimed at points of the top surface well inside its border
    # (MuJoCo's side walls are a separate test: the surface alone is compared here).
    target = np.stack([rng.uniform(-0.9, 1.9, n), rng.uniform(-1.0, 0.6, n), np.full(n, 0.5)], -1)
    directions = np.stack([rng.uniform(-0.3, 0.3, n), rng.uniform(-0.3, 0.3, n), -np.ones(n)], -1)
    origins = target - 3.0 * directions
    origins, directions = origins.astype(np.float32), directions.astype(np.float32)
    t_wr, _ = scene.intersect(origins, directions)
    compare(t_wr, mj_rays(m, d, origins, directions))


@pytest.mark.parametrize("nrow, ncol", [(6, 6), (4, 7)])
def test_the_solid_with_its_base_agrees_with_mj_ray(ctx: wr.Context, nrow: int, ncol: int) -> None:
    m, d = hfield_model(nrow, ncol, (1.2, 1.2, 0.6, 0.4), (0.0, 0.0, 0.0), seed=3)
    scene = scene_of(ctx, m, d, base=True)
    rng = np.random.default_rng(5)
    n = 3000
    # From outside the field's box on every side, towards points inside it: walls, base,
    # surface and misses over the top.
    target = np.stack([rng.uniform(-1.1, 1.1, n), rng.uniform(-1.1, 1.1, n), rng.uniform(-0.35, 0.55, n)], -1)
    angle = rng.uniform(0, 2 * np.pi, n)
    directions = np.stack([np.cos(angle), np.sin(angle), rng.uniform(-0.4, 0.4, n)], -1)
    origins = target - 4.0 * directions
    origins, directions = origins.astype(np.float32), directions.astype(np.float32)
    t_wr, _ = scene.intersect(origins, directions)
    compare(t_wr, mj_rays(m, d, origins, directions))
