"""Whether a call lets other Python threads run: the GIL released while it works."""
import threading
import time

import numpy as np


def let_other_threads_run(call):
    """Runs call() on a worker thread while this thread ticks every millisecond; returns the
    call's duration and the longest gap between ticks (the whole call when it held the GIL)."""
    done = threading.Event()
    timing = {}

    def work():
        start = time.perf_counter()
        call()
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
    return timing["call"], gaps.max()
