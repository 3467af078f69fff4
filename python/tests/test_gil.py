"""The GIL is released while the library works: another Python thread makes progress during a
long render (and scene build), and two threads may render at once."""

from __future__ import annotations

import threading
import time

import numpy as np

import warp_raycaster as wr
from conftest import TERRAIN, random_poses


class Counter(threading.Thread):
    """Counts as fast as the GIL lets it, until stopped."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.count = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.count += 1


def progress_during(call) -> tuple:
    counter = Counter()
    counter.start()
    time.sleep(0.05)  # running
    before = counter.count
    start = time.perf_counter()
    call()
    seconds = time.perf_counter() - start
    during = counter.count - before
    counter.stop.set()
    counter.join()
    return during, seconds


def test_another_thread_runs_during_a_long_render() -> None:
    ctx = wr.Context("cpu", threads=1)
    scene = wr.Scene.from_obj(ctx, TERRAIN)
    sensor = wr.Sensor(scene, wr.Camera.pinhole(106, 60, 87.0), num_envs=1024)
    poses = random_poses(1024, extent=40.0)
    out = np.empty(sensor.shape, np.float32)
    during, seconds = progress_during(lambda: sensor.render(poses, out=out))
    # Holding the GIL, the counter could run at most in the one switch interval before the
    # call (sys.getswitchinterval(), 5 ms); released, it counts for the whole render.
    assert seconds > 0.1, "the render was too short to tell"
    assert during > 10000, f"the counter advanced {during} times in a {seconds:.2f} s render"


def test_another_thread_runs_during_a_scene_build() -> None:
    ctx = wr.Context("cpu", threads=1)
    during, seconds = progress_during(lambda: wr.Scene.from_obj(ctx, TERRAIN))
    assert during > 10000, f"the counter advanced {during} times in a {seconds:.2f} s build"


def test_two_threads_render_at_once(ctx: wr.Context, scene: wr.Scene, camera: wr.Camera) -> None:
    sensors = [wr.Sensor(scene, camera, num_envs=16) for _ in range(2)]
    poses = [random_poses(16, seed=s) for s in range(2)]
    expected = [s.render(p) for s, p in zip(sensors, poses)]
    results = [[], []]

    def work(i: int) -> None:
        for _ in range(20):
            results[i].append(sensors[i].render(poses[i]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(2):
        assert len(results[i]) == 20
        for r in results[i]:
            np.testing.assert_array_equal(r, expected[i])


def test_one_sensor_from_two_threads_is_serialised(scene: wr.Scene, camera: wr.Camera) -> None:
    # The C API allows one render per sensor at a time; the binding queues the second.
    sensor = wr.Sensor(scene, camera, num_envs=16)
    poses = [random_poses(16, seed=s) for s in range(2)]
    expected = [sensor.render(p) for p in poses]
    outs = [np.empty(sensor.shape, np.float32) for _ in range(2)]
    ok = [True, True]

    def work(i: int) -> None:
        for _ in range(20):
            sensor.render(poses[i], out=outs[i])
            ok[i] &= bool(np.array_equal(outs[i], expected[i]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ok == [True, True]
