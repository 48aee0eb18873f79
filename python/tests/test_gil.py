"""GPU work runs with the GIL released: another Python thread keeps running meanwhile."""
import threading
import time

import numpy as np

import voxen


def test_integrate_rays_and_sync_let_other_threads_run(context):
    rng = np.random.default_rng(1)
    n = 100_000
    origins = np.zeros((n, 3))
    ends = rng.normal(size=(n, 3)) * 3.0
    mapper = voxen.Mapper(resolution=0.05, context=context)
    mapper.integrate_rays(origins[:10], ends[:10])  # the device and pipelines ready first
    done = threading.Event()
    timing = {}

    def work():
        start = time.perf_counter()
        mapper.integrate_rays(origins, ends)  # returns once submitted
        mapper.sync()  # the GPU's work: waited for with the GIL released too
        timing["call"] = time.perf_counter() - start
        done.set()

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    gaps = np.diff(ticks) if len(ticks) > 1 else np.array([timing["call"]])
    # Holding the GIL through the call would stall this loop for the whole call.
    assert timing["call"] > 0.05, "too little work to tell"
    assert gaps.max() < 0.5 * timing["call"], (gaps.max(), timing["call"])
