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


def assert_lets_other_threads_run(call, enough_seconds=0.2, most_calls=200):
    """Runs call() again and again until enough_seconds have passed, so that a fast machine
    still gives enough to judge (call must be repeatable and do the same work each time). A call
    that held the GIL would stall the ticking loop for at least one whole call; one that
    releases it leaves only shorter gaps."""
    durations = []

    def repeated():
        start = time.perf_counter()
        for _ in range(most_calls):
            before = time.perf_counter()
            call()
            durations.append(time.perf_counter() - before)
            if time.perf_counter() - start >= enough_seconds:
                return

    _, longest_gap = let_other_threads_run(repeated)
    one_call = float(np.median(durations))
    assert one_call > 0.01, ("too little work to tell", durations)
    # A call that held the GIL stalls the ticks for at least one whole call; a gap of half a
    # call happens on two busy cores without it (the ticking thread waiting for a core).
    assert longest_gap < 0.8 * one_call, (longest_gap, durations)
