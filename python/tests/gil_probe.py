"""Whether a call lets other Python threads run: the GIL released while it works."""
import threading
import time

import numpy as np


def let_other_threads_run(call):
    """Runs call() on a worker thread while this thread ticks every millisecond; returns the
    call's duration and the longest gap between ticks (the whole call when it held the GIL).
    An exception of the call is raised here (the ticking loop must not wait for ever)."""
    done = threading.Event()
    timing = {}

    def work():
        try:
            start = time.perf_counter()
            call()
            timing["call"] = time.perf_counter() - start
        except BaseException as error:
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
    return timing["call"], gaps.max()


def assert_lets_other_threads_run(call):
    call_seconds, longest_gap = let_other_threads_run(call)
    assert call_seconds > 0.05, "too little work to tell"
    # Holding the GIL through the call would stall the ticking loop for the whole call.
    assert longest_gap < 0.5 * call_seconds, (longest_gap, call_seconds)
