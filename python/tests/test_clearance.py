"""Mapper.compute_clearance and Mapper.clearance against the CPU reference and `voxen clearance`."""
import subprocess

import numpy as np
import pytest

import voxen


def mapped(context, scene, backend):
    mapper = voxen.Mapper(resolution=0.1, context=context, backend=backend)
    mapper.integrate_rays(*scene)
    return mapper


def probes():
    return np.random.default_rng(12).uniform(-2.2, 2.2, size=(3000, 3))


def test_gpu_equals_cpu_reference(context, scene):
    gpu, cpu = mapped(context, scene, "gpu"), mapped(context, scene, "cpu")
    a = gpu.compute_clearance(1.0, unknown_free=True)
    b = cpu.compute_clearance(1.0, unknown_free=True)
    assert set(a) == {"regions", "seconds", "batches", "cache_regions", "sub_voxel"}
    assert a["sub_voxel"] == 0  # no TSDF: nothing refined
    assert a["regions"] == b["regions"] > 0
    points = probes()
    value_gpu, gradient_gpu = gpu.clearance(points, gradient=True)
    value_cpu, gradient_cpu = cpu.clearance(points, gradient=True)
    assert value_gpu.dtype == np.float32 and value_gpu.shape == (3000,)
    assert gradient_gpu.dtype == np.float32 and gradient_gpu.shape == (3000, 3)
    np.testing.assert_array_equal(value_gpu, value_cpu)
    np.testing.assert_array_equal(gradient_gpu, gradient_cpu)
    np.testing.assert_array_equal(gpu.clearance(points), value_gpu)
    # Both kinds of sample occur: distances, and NaN where no obstacle is within 1 m.
    assert np.isfinite(value_gpu).sum() > 100 and np.isnan(value_gpu).sum() > 100
    assert (np.isnan(value_gpu) == np.isnan(gradient_gpu).any(axis=1)).all()
    assert (value_gpu[np.isfinite(value_gpu)] >= 0.0).all()


def test_exact_distances_at_voxel_centres(context):
    """One occupied voxel: the clearance at voxel centres along x is the distance to it."""
    mapper = voxen.Mapper(resolution=0.1, context=context, backend="cpu")
    mapper.integrate_rays(np.array([[0.05, 0.05, 0.05]]), np.array([[1.05, 0.05, 0.05]]))
    mapper.compute_clearance(0.5, unknown_free=True)
    centres = np.array([[1.05 - 0.1 * k, 0.05, 0.05] for k in range(4)])
    np.testing.assert_allclose(mapper.clearance(centres), [0.0, 0.1, 0.2, 0.3], rtol=1e-6)
    # Next to the obstacle the gradient points away from it (-x).
    _, gradient = mapper.clearance(np.array([[0.85, 0.05, 0.05]]), gradient=True)
    assert gradient[0, 0] < 0 and abs(gradient[0, 0]) > abs(gradient[0, 1:]).max()
    assert np.isnan(mapper.clearance(np.array([[50.0, 50.0, 50.0]])))[0]  # no region there


@pytest.mark.parametrize("unknown_free", [False, True])
def test_same_layer_as_the_cli(context, scene, tmp_path, voxen_cli, unknown_free):
    mapper = mapped(context, scene, "cpu")
    mapper.save(tmp_path / "map.vxm")
    command = [voxen_cli, "clearance", str(tmp_path / "map.vxm"), "--output", str(tmp_path / "cli.vxm"), "--range", "0.7",
               "--ignore-below", "-1.5", "--quiet"]
    cli = subprocess.run(command + (["--unknown-free"] if unknown_free else []), capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    stats = mapper.compute_clearance(0.7, unknown_free=unknown_free, ignore_below=-1.5)
    assert stats["regions"] > 0
    from_cli = voxen.load(tmp_path / "cli.vxm", context=context, backend="cpu")
    points = probes()
    ours, theirs = mapper.clearance(points, gradient=True), from_cli.clearance(points, gradient=True)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])


def test_incremental_and_techniques(context, scene):
    mapper = mapped(context, scene, "gpu")
    first = mapper.compute_clearance(0.5)
    assert mapper.compute_clearance(0.5)["regions"] == 0  # nothing out of date
    for technique in ("roi", "neighbour", "openlist"):
        assert mapper.compute_clearance(0.5, technique=technique)["regions"] == first["regions"]
        values = mapper.clearance(probes())
        assert np.isfinite(values).any()


def test_bad_settings(context, scene):
    mapper = mapped(context, scene, "cpu")
    with pytest.raises(voxen.Error, match="no clearance layer"):
        mapper.clearance(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="technique must be \"exact\", \"roi\", \"neighbour\" or \"openlist\"; got \"fast\""):
        mapper.compute_clearance(1.0, technique="fast")
    with pytest.raises(ValueError, match="has no effect with backend=\"cpu\""):
        mapper.compute_clearance(1.0, technique="roi")
    for bad in (float("nan"), -1.0, 0.0):
        with pytest.raises(voxen.SettingError, match="range"):
            mapper.compute_clearance(bad)
    with pytest.raises(voxen.SettingError, match="axis scale"):
        mapper.compute_clearance(1.0, axis_scale=(1.0, 0.0, 1.0))
    with pytest.raises(ValueError, match="axis_scale must be three numbers"):
        mapper.compute_clearance(1.0, axis_scale=(1.0, 1.0))
    with pytest.raises(voxen.SettingError, match="a height of nan"):
        mapper.compute_clearance(1.0, ignore_below=float("nan"))


def test_bad_and_empty_points(context, scene):
    mapper = mapped(context, scene, "gpu")
    mapper.compute_clearance(0.5)
    assert mapper.clearance(np.empty((0, 3))).shape == (0,)
    values, gradients = mapper.clearance(np.empty((0, 3)), gradient=True)
    assert values.shape == (0,) and gradients.shape == (0, 3)
    with pytest.raises(ValueError, match=r"points must be an array of shape \(N, 3\).*shape \(2, 2\)"):
        mapper.clearance(np.zeros((2, 2)))
    with pytest.raises(voxen.InputError, match=r"points\[1\]"):
        mapper.clearance(np.array([[0.0, 0.0, 0.0], [np.inf, 0.0, 0.0]]))
    strided = probes()[::3]
    np.testing.assert_array_equal(mapper.clearance(strided), mapper.clearance(np.ascontiguousarray(strided)))
