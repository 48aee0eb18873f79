"""integrate_cloud, compute_clearance and render run with the GIL released, as integrate_rays does."""
import itertools

import numpy as np

import voxen
from gil_probe import assert_lets_other_threads_run


def test_integrate_cloud_lets_other_threads_run(context):
    rng = np.random.default_rng(1)
    n = 50_000
    points = rng.normal(size=(n, 3)) * 2.0
    times = np.linspace(0.0, 1.0, n)
    trajectory = np.array([[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    mapper = voxen.Mapper(resolution=0.1, context=context)
    mapper.integrate_cloud(points[:10], times[:10], trajectory)  # the device and pipelines ready first
    assert_lets_other_threads_run(lambda: (mapper.integrate_cloud(points, times, trajectory), mapper.sync()))
    # Ranges in turn: each call's settings differ from the last, so every call computes every
    # region again (the same settings would find nothing out of date and return at once, and
    # whether a second call ran would depend on how fast the first was).
    ranges = itertools.cycle([0.3, 0.35])
    assert_lets_other_threads_run(lambda: mapper.compute_clearance(next(ranges)))


def test_render_lets_other_threads_run(context, scene):
    mapper = voxen.Mapper(resolution=0.1, context=context)
    mapper.integrate_rays(*scene)
    assert_lets_other_threads_run(lambda: mapper.render(320, 240))
