"""A Context is used by one thread at a time: a second thread's call raises voxen.Error
naming the rule, never a crash. (Before this rule, two Mappers on one Context integrating
from two threads aborted in vkCreateBuffer or segfaulted: the engine is not yet safe to
drive from two threads, and the bindings release the GIL during GPU work.)

Each race runs in a subprocess (thread_race.py), so that a crash fails the test instead of
killing pytest; rounds of GPU calls in both threads at once make the threads overlap."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
RULE = ("a voxen.Context, with every Mapper and TransformTree on it, is used by one thread at a time: give each "
        "thread its own Context (voxen.Mapper(context=voxen.Context())), or hold a threading.Lock around the calls")
ROUNDS = 6


def race(scenario, rounds=ROUNDS):
    run = subprocess.run([sys.executable, str(HERE / "thread_race.py"), scenario, str(rounds)], capture_output=True,
                         text=True, timeout=240, env=dict(os.environ, VOXEN_VALIDATION="1"))
    # A negative return code is a signal (SIGABRT -6, SIGSEGV -11): the interpreter died.
    assert run.returncode == 0, f"{scenario}: exit status {run.returncode}\n{run.stderr[-3000:]}"
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("scenario", ["default", "explicit", "same", "tree", "churn"])
def test_two_threads_on_one_context_are_refused_by_name(scenario):
    result = race(scenario)
    assert result["validation"] == []
    # Both threads ran every round: each round either completed or was refused.
    assert result["calls"] + len(result["refused"]) == 2 * ROUNDS
    assert result["calls"] > 0
    # The threads overlapped (rounds of ~20 ms each, started together), and every overlap was
    # refused with the rule.
    assert result["refused"], f"{scenario}: the threads never overlapped; nothing was tested"
    for message in result["refused"]:
        assert message.startswith("voxen.") and RULE in message, message
        assert "is running on thread 'worker-" in message, message


def test_each_thread_with_its_own_context_runs_without_refusal():
    result = race("separate")
    assert result == {"calls": 2 * ROUNDS, "refused": [], "validation": []}


def test_the_message_names_the_call_the_holder_and_the_default_context():
    """A Mapper on the default Context is refused while a thread named 'holder' works on
    another one: the message says which call, on which thread, and that the Context is the
    shared default one; afterwards both Mappers work."""
    run = subprocess.run([sys.executable, str(HERE / "thread_race.py"), "held"], capture_output=True, text=True,
                         timeout=240, env=dict(os.environ, VOXEN_VALIDATION="1"))
    assert run.returncode == 0, f"exit status {run.returncode}\n{run.stderr[-3000:]}"
    result = json.loads(run.stdout.strip().splitlines()[-1])
    message = result["message"]
    assert message, "no call was refused while another thread integrated"
    assert message.startswith("voxen.Mapper.occupancy: the voxen.Context it runs on (the shared default Context")
    assert "is running on thread 'holder'" in message and "on another Mapper" in message
    assert "Mapper.integrate_rays is running" in message or "Mapper.sync is running" in message
    assert RULE in message
    assert not result["value_error"]  # not a bad argument: a voxen.Error, a RuntimeError
    assert result["both_work"] and result["validation"] == []
