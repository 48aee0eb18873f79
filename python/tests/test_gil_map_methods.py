"""integrate_cloud, compute_clearance and render run with the GIL released, as integrate_rays does."""
import threading
import time

import numpy as np

import voxen


def assert_other_threads_run(call):
    done = threading.Event()
    timing = {}

    def work():
        try:
            start = time.perf_counter()
            call()
            timing["call"] = time.perf_counter() - start
        except BaseException as error:  # raised again below: the loop must not wait for ever
            timing["error"] = error
        finally:
            done.set()

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    if "error" in timing:
        raise timing["error"]
    gaps = np.diff(ticks) if len(ticks) > 1 else np.array([timing["call"]])
    # Holding the GIL through the call would stall this loop for the whole call.
    assert timing["call"] > 0.05, "too little work to tell"
    assert gaps.max() < 0.5 * timing["call"], (gaps.max(), timing["call"])


def test_integrate_cloud_lets_other_threads_run(context):
    rng = np.random.default_rng(1)
    n = 50_000
    points = rng.normal(size=(n, 3)) * 2.0
    times = np.linspace(0.0, 1.0, n)
    trajectory = np.array([[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    mapper = voxen.Mapper(resolution=0.1, context=context)
    mapper.integrate_cloud(points[:10], times[:10], trajectory)  # the device and pipelines ready first
    assert_other_threads_run(lambda: mapper.integrate_cloud(points, times, trajectory))
    assert_other_threads_run(lambda: mapper.compute_clearance(0.3))


def test_render_lets_other_threads_run(context, scene):
    mapper = voxen.Mapper(resolution=0.1, context=context)
    mapper.integrate_rays(*scene)
    assert_other_threads_run(lambda: mapper.render(320, 240))
