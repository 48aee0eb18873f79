"""GPU work runs with the GIL released: another Python thread keeps running meanwhile."""
import numpy as np

import voxen
from gil_probe import assert_lets_other_threads_run


def test_integrate_rays_and_sync_let_other_threads_run(context):
    rng = np.random.default_rng(1)
    n = 100_000
    origins = np.zeros((n, 3))
    ends = rng.normal(size=(n, 3)) * 3.0
    mapper = voxen.Mapper(resolution=0.05, context=context)
    mapper.integrate_rays(origins[:10], ends[:10])  # the device and pipelines ready first
    assert_lets_other_threads_run(lambda: (mapper.integrate_rays(origins, ends), mapper.sync()))
