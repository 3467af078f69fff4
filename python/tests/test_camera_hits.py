"""A camera's render_hits (its pixels' points, normals, triangle and instance ids) against
Scene.intersect of the camera's own world rays (Sensor.world_rays), pixel for pixel, on a mesh
terrain with a box instance in view; and the normals against the test's own triangles."""

from __future__ import annotations

import numpy as np

import warp_raycaster as wr


def _terrain():
    # A 12 x 12 m floor of 2 x 2 m cells with heights, two triangles a cell (the test's own).
    n = 7
    xs = np.linspace(-6.0, 6.0, n, dtype=np.float32)
    rng = np.random.default_rng(3)
    z = rng.uniform(0.0, 0.4, (n, n)).astype(np.float32)
    vertices = np.stack(list(np.meshgrid(xs, xs, indexing="ij")) + [z], -1).reshape(-1, 3)
    tris = []
    for i in range(n - 1):
        for j in range(n - 1):
            a, b, c, d = i * n + j, i * n + j + 1, (i + 1) * n + j, (i + 1) * n + j + 1
            tris += [(a, d, b), (a, c, d)]
    return vertices, np.array(tris, np.uint32)


def test_camera_hits_equal_intersect_on_its_world_rays() -> None:
    ctx = wr.Context("cpu", threads=2)
    vertices, indices = _terrain()
    terrain = wr.Scene(ctx, vertices, indices)
    box_v = np.array([[x, y, z] for x in (-0.3, 0.3) for y in (-0.3, 0.3) for z in (0.0, 0.6)], np.float32)
    box_i = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
                      [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], np.uint32)
    box = wr.Scene(ctx, box_v, box_i)
    scene = wr.Scene.instanced(ctx, terrain, [box], slot_prototypes=[0])
    n = 3
    camera = wr.Camera.pinhole(32, 24, 90.0, mount_position=(0.2, 0.0, 0.0))
    camera = camera.replace(mount_rotation=(0.9659258, 0.0, 0.258819, 0.0))  # 30 degrees down
    sensor = wr.Sensor(scene, camera, n)
    poses = np.array([[-3.0 + e, -1.0 + 0.5 * e, 1.5, 1.0, 0.0, 0.0, 0.1 * e] for e in range(n)], np.float32)
    poses[:, 3:] /= np.linalg.norm(poses[:, 3:], axis=1, keepdims=True)
    boxes = np.array([[[p[0] + 2.5, p[1], 0.4, 1.0, 0.0, 0.0, 0.0]] for p in poses], np.float32)
    inputs = wr.RenderInputs(instance_poses=boxes)
    hits = sensor.render_hits(poses, inputs=inputs)
    assert isinstance(hits, wr.Hits) and hits.points.shape == (n, 24, 32, 3)
    for e in range(n):
        o, d = sensor.world_rays(poses[e])
        t, tri, inst = scene.intersect(o.reshape(-1, 3), d.reshape(-1, 3), instance_poses=boxes[e:e + 1],
                                       num_envs=1, instances=True)
        np.testing.assert_array_equal(hits.triangle_ids[e].reshape(-1), tri)
        np.testing.assert_array_equal(hits.instance_ids[e].reshape(-1), inst)
        hit = tri >= 0
        assert hit.sum() > 0.5 * hit.size and (inst >= 0).sum() > 20  # the floor and the box are seen
        points = hits.points[e].reshape(-1, 3)
        np.testing.assert_array_equal(points[hit], o.reshape(-1, 3)[hit] + t[hit, None] * d.reshape(-1, 3)[hit])
        assert np.isinf(points[~hit]).all()
        # The floor's normals: its own triangles' unit normals, facing the ray.
        normals = hits.normals[e].reshape(-1, 3)
        floor = hit & (inst < 0)
        tv = vertices[indices[tri[floor]]]
        want = np.cross(tv[:, 1] - tv[:, 0], tv[:, 2] - tv[:, 0])
        want /= np.linalg.norm(want, axis=1, keepdims=True)
        want *= np.where((want * d.reshape(-1, 3)[floor]).sum(1) > 0, -1.0, 1.0)[:, None]
        np.testing.assert_allclose(normals[floor], want, atol=1e-5)
