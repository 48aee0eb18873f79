"""Answers that say what is known (issue 38, item 3): return_status on occupancy, classify
and clearance, and the raycast dict's "status", equal on the GPU and the CPU reference."""
import numpy as np
import pytest

import voxen


@pytest.mark.parametrize("backend", ["gpu", "cpu"])
def test_statuses_tell_unobserved_and_outside_from_free(context, scene, backend):
    mapper = voxen.Mapper(resolution=0.1, context=context, backend=backend)
    mapper.integrate_rays(*scene)
    origins, ends = scene
    points = np.array([origins[0],            # on a ray: observed free space
                       ends[0],               # a wall sample: observed
                       [50.0, 50.0, 50.0]])   # far from every region
    values, status = mapper.occupancy(points, return_status=True)
    assert status.tolist()[0] == "observed" and status.tolist()[1] == "observed"
    assert status[2] == "outside_map" and np.isnan(values[2])
    classes, status2 = mapper.classify(points, return_status=True)
    np.testing.assert_array_equal(status, status2)
    assert classes[2] == -1
    # Along the first ray to its wall sample (occupied), and from far outside the map.
    hits = mapper.raycast(np.array([origins[0], [50.0, 50.0, 50.0]]), np.array([ends[0] - origins[0], [1.0, 0, 0]]),
                          max_range=6.0)
    assert hits["status"][0] == "observed" and hits["hit"][0]
    assert hits["status"][1] == "outside_map" and not hits["hit"][1]
    mapper.compute_clearance(range=0.3, unknown_free=True)
    clearance, gradient, cstatus = mapper.clearance(np.array([[0.0, 0.0, 0.0], [50.0, 50.0, 50.0]]), gradient=True,
                                                   return_status=True)
    assert cstatus.tolist() == ["out_of_range", "outside_map"]  # the cube's centre is 2 m from its walls
    assert np.isnan(clearance).all() and np.isnan(gradient).all()


def test_gpu_and_cpu_statuses_agree(context, scene):
    maps = {}
    for backend in ("gpu", "cpu"):
        maps[backend] = voxen.Mapper(resolution=0.1, context=context, backend=backend)
        maps[backend].integrate_rays(*scene)
    points = np.random.default_rng(3).uniform(-4.0, 4.0, size=(3000, 3))  # many GPU batches' worth
    gpu = maps["gpu"].occupancy(points, return_status=True)[1]
    cpu = maps["cpu"].occupancy(points, return_status=True)[1]
    np.testing.assert_array_equal(gpu, cpu)
    assert {"observed", "unobserved", "outside_map"} <= set(gpu.tolist())
    snapshot = maps["gpu"].snapshot()
    np.testing.assert_array_equal(snapshot.occupancy(points, return_status=True)[1], gpu)
