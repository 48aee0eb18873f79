"""Two Python threads driving voxen at once, for test_threads.py, which runs this in a
subprocess (a crash must not take pytest with it). Both threads start together and make
`rounds` rounds of GPU calls; a call refused because the other thread holds the Context
raises voxen.Error, which is recorded, and the thread goes on. Prints one JSON line:
calls (completed), refused (messages), validation (the contexts' validation messages).

Usage: thread_race.py SCENARIO ROUNDS, or thread_race.py held (refused_while_held)
  default   two Mappers on the shared default Context
  explicit  two Mappers on one explicit Context
  same      one Mapper from both threads
  tree      a TransformTree and a Mapper on the default Context
  churn     one thread integrates; the other makes, uses and frees Mappers on the same Context
  separate  each thread its own Context (the remedy the message names: nothing is refused)
"""
import json
import sys
import threading
import time

import numpy as np

import voxen


def mapper_rounds(mapper, seed):
    rng = np.random.default_rng(seed)

    def one_round():
        ends = rng.normal(size=(10_000, 3)) * 2.0
        mapper.integrate_rays(np.zeros_like(ends), ends)
        mapper.occupancy(ends[:64])
        mapper.sync()

    return one_round


def tree_rounds(tree, seed):
    rng = np.random.default_rng(seed)
    ids = tree.add(None, np.tile(np.eye(4), (10_000, 1, 1)))

    def one_round():
        moved = np.tile(np.eye(4), (len(ids), 1, 1))
        moved[:, :3, 3] = rng.uniform(-1, 1, size=(len(ids), 3))
        tree.set_local(ids, moved)
        tree.process()
        tree.world(ids[:8])

    return one_round


def churn_rounds(context, seed):
    rng = np.random.default_rng(seed)

    def one_round():
        mapper = voxen.Mapper(resolution=0.1, context=context)
        try:
            ends = rng.normal(size=(5_000, 3)) * 2.0
            mapper.integrate_rays(np.zeros_like(ends), ends)
            mapper.sync()
        finally:
            del mapper  # frees its GPU buffers: waits while the other thread holds the Context

    return one_round


def scenario(name):
    """The two threads' rounds and the contexts whose validation messages count."""
    default = voxen.Mapper().context
    if name == "default":
        a, b = voxen.Mapper(resolution=0.1), voxen.Mapper(resolution=0.1)
        return [mapper_rounds(a, 1), mapper_rounds(b, 2)], [default]
    if name == "explicit":
        shared = voxen.Context(validation=True)
        a, b = voxen.Mapper(resolution=0.1, context=shared), voxen.Mapper(resolution=0.1, context=shared)
        return [mapper_rounds(a, 1), mapper_rounds(b, 2)], [shared]
    if name == "same":
        one = voxen.Mapper(resolution=0.1)
        return [mapper_rounds(one, 1), mapper_rounds(one, 2)], [default]
    if name == "tree":
        return [tree_rounds(voxen.TransformTree(), 1), mapper_rounds(voxen.Mapper(resolution=0.1), 2)], [default]
    if name == "churn":
        return [mapper_rounds(voxen.Mapper(resolution=0.1), 1), churn_rounds(None, 2)], [default]
    if name == "separate":
        first, second = voxen.Context(validation=True), voxen.Context(validation=True)
        a, b = voxen.Mapper(resolution=0.1, context=first), voxen.Mapper(resolution=0.1, context=second)
        return [mapper_rounds(a, 1), mapper_rounds(b, 2)], [first, second]
    sys.exit(f"unknown scenario {name}")


def refused_while_held():
    """The main thread calls occupancy() on one Mapper of the default Context while a thread
    named 'holder' integrates with another, until a call is refused: that message, and
    whether both Mappers work again afterwards."""
    busy, other = voxen.Mapper(resolution=0.1), voxen.Mapper(resolution=0.1)
    ends = np.random.default_rng(3).normal(size=(20_000, 3)) * 2.0
    stop = threading.Event()

    def hold():
        while not stop.is_set():
            try:
                busy.integrate_rays(np.zeros_like(ends), ends)
                busy.sync()
            except voxen.Error:  # refused while the main thread's call held the Context
                pass

    holder = threading.Thread(target=hold, name="holder")
    holder.start()
    refusal = None
    try:
        deadline = time.monotonic() + 120.0
        while time.monotonic() < deadline:  # until a call lands while the holder is in one (~ms each)
            try:
                other.occupancy(ends[:4])
            except voxen.Error as error:
                refusal = error
                break
            # Leave the Context free for a moment: back to back, this thread's own calls (the
            # GIL released inside them) can hold it nearly all the time, so the holder is the one
            # refused, round after round, and this loop never meets it at work.
            time.sleep(0.003)
    finally:
        stop.set()
        holder.join()
    both_work = other.occupancy(ends[:4]).shape == (4,) and busy.stats()["rays"] > 0
    print(json.dumps({"message": refusal and str(refusal), "value_error": isinstance(refusal, ValueError),
                      "both_work": both_work, "validation": busy.context.validation_messages}))


def main():
    if sys.argv[1] == "held":
        refused_while_held()
        return
    name, rounds = sys.argv[1], int(sys.argv[2])
    work, contexts = scenario(name)
    start = threading.Barrier(len(work))
    calls, refused, lock = [0], [], threading.Lock()

    def run(one_round):
        start.wait()
        for _ in range(rounds):
            try:
                one_round()
                with lock:
                    calls[0] += 1
            except voxen.Error as error:
                with lock:
                    refused.append(str(error))

    threads = [threading.Thread(target=run, args=(w,), name=f"worker-{i}") for i, w in enumerate(work)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    validation = [m for c in contexts for m in c.validation_messages]
    print(json.dumps({"calls": calls[0], "refused": refused, "validation": validation}))


if __name__ == "__main__":
    main()
