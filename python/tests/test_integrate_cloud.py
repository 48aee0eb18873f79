"""Mapper.integrate_cloud against `voxen map` (the CLI's file pipeline) on the same cloud."""
import json
import subprocess

import numpy as np
import pytest

import voxen


@pytest.fixture(scope="module")
def scan():
    """A sensor moving along x for 1 s inside a 4 m box; the points are on the box's walls."""
    rng = np.random.default_rng(31)
    n = 3000
    times = np.sort(rng.uniform(0.0, 1.0, size=n))
    directions = rng.normal(size=(n, 3))
    directions /= np.abs(directions).max(axis=1, keepdims=True)
    points = directions * 2.0
    trajectory = np.array([[0.0, -0.5, 0.0, 0.1], [0.4, 0.0, 0.2, 0.1], [1.0, 0.5, 0.0, -0.1]])
    return points, times, trajectory


def write_cloud(path, points, times):
    rows = np.empty(len(points), dtype=[("x", "<f8"), ("y", "<f8"), ("z", "<f8"), ("time", "<f8")])
    rows["x"], rows["y"], rows["z"] = points.T
    rows["time"] = times
    header = (
        "ply\nformat binary_little_endian 1.0\n"
        f"element vertex {len(points)}\n"
        "property double x\nproperty double y\nproperty double z\nproperty double time\nend_header\n"
    )
    path.write_bytes(header.encode() + rows.tobytes())


def write_trajectory(path, trajectory):
    path.write_text("".join(" ".join(repr(float(v)) for v in row) + "\n" for row in trajectory))


def oriented(trajectory):
    quaternions = np.tile([0.0, 0.0, 0.3826834323650898, 0.9238795325112867], (len(trajectory), 1))
    return np.hstack([trajectory, quaternions])


@pytest.mark.parametrize("columns", [4, 8])
def test_same_map_as_the_cli(context, scan, tmp_path, voxen_cli, columns):
    points, times, trajectory = scan
    if columns == 8:
        trajectory = oriented(trajectory)
    times = times.copy()
    times[:20] = 1.5  # outside the trajectory's span: skipped and counted by both
    write_cloud(tmp_path / "scan.ply", points, times)
    write_trajectory(tmp_path / "scan.txt", trajectory)
    cli = subprocess.run(
        [voxen_cli, "map", "--cloud", str(tmp_path / "scan.ply"), "--trajectory", str(tmp_path / "scan.txt"),
         "--output", str(tmp_path / "cli.vxm"), "--cpu", "--quiet", "--json"],
        capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    report = json.loads(cli.stdout)

    for backend in ("cpu", "gpu"):
        mapper = voxen.Mapper(context=context, backend=backend)
        stats = mapper.integrate_cloud(points, times, trajectory)
        assert stats["points"] == len(points)
        assert stats["skipped_outside_trajectory"] == 20 == report["skipped_outside_trajectory"]
        assert stats["rays"] == len(points) - 20 and stats["rejected_rays"] == 0
        assert mapper.stats()["voxel_updates"] > stats["rays"]
        mapper.save(tmp_path / f"{backend}.vxm")
        assert (tmp_path / f"{backend}.vxm").read_bytes() == (tmp_path / "cli.vxm").read_bytes(), backend


def test_orientation_does_not_change_the_rays(context, scan):
    points, times, trajectory = scan
    plain = voxen.Mapper(context=context, backend="cpu")
    plain.integrate_cloud(points, times, trajectory)
    turned = voxen.Mapper(context=context, backend="cpu")
    turned.integrate_cloud(points, times, oriented(trajectory))
    probes = np.random.default_rng(2).uniform(-2.5, 2.5, size=(2000, 3))
    np.testing.assert_array_equal(plain.occupancy(probes), turned.occupancy(probes))


def test_same_as_integrate_rays_from_the_interpolated_origins(context, scan):
    points, times, trajectory = scan
    # Poses at the points' own times: no interpolation, so the origins are known exactly.
    step = np.column_stack([times[::300], np.cos(times[::300]), np.sin(times[::300]), times[::300] * 0.1])
    index = np.searchsorted(times, step[:, 0])
    cloud = voxen.Mapper(context=context, backend="cpu")
    stats = cloud.integrate_cloud(points[index], times[index], step)
    rays = voxen.Mapper(context=context, backend="cpu")
    rays.integrate_rays(step[:, 1:4], points[index])
    assert stats["rays"] == len(index)
    probes = np.random.default_rng(3).uniform(-2.5, 2.5, size=(4000, 3))
    np.testing.assert_array_equal(cloud.occupancy(probes), rays.occupancy(probes))


def test_float32_and_strided_inputs(context, scan):
    points, times, trajectory = scan
    reference = voxen.Mapper(context=context, backend="cpu")
    reference.integrate_cloud(points.astype(np.float32).astype(np.float64), times.astype(np.float32).astype(np.float64),
                              trajectory)
    other = voxen.Mapper(context=context, backend="cpu")
    wide = np.zeros((len(trajectory), 8))
    wide[:, ::2] = trajectory
    other.integrate_cloud(points.astype(np.float32), times.astype(np.float32), np.asfortranarray(wide[:, ::2]))
    probes = np.random.default_rng(4).uniform(-2.5, 2.5, size=(2000, 3))
    np.testing.assert_array_equal(reference.occupancy(probes), other.occupancy(probes))


def test_integer_inputs_are_converted(context):
    """Points, times and a trajectory given as integers (whole metres, whole seconds) map as the
    same numbers in float64 do."""
    rng = np.random.default_rng(12)
    points = rng.integers(-3, 4, size=(800, 3))
    times = rng.integers(0, 11, size=800)
    trajectory = np.array([[0, -1, 0, 0], [5, 0, 1, 0], [10, 1, 0, 1]])
    reference = voxen.Mapper(resolution=0.25, context=context, backend="cpu")
    reference.integrate_cloud(points.astype(np.float64), times.astype(np.float64), trajectory.astype(np.float64))
    probes = rng.uniform(-3.5, 3.5, size=(2000, 3))
    for dtype in (np.int64, np.int32, np.int16):
        mapper = voxen.Mapper(resolution=0.25, context=context, backend="cpu")
        stats = mapper.integrate_cloud(points.astype(dtype), times.astype(dtype), trajectory.astype(dtype))
        assert stats["rays"] == 800
        np.testing.assert_array_equal(mapper.occupancy(probes), reference.occupancy(probes))


def test_empty_cloud(context, scan):
    mapper = voxen.Mapper(context=context)
    stats = mapper.integrate_cloud(np.empty((0, 3)), np.empty(0), scan[2])
    assert stats["points"] == 0 and stats["rays"] == 0 and stats["skipped_outside_trajectory"] == 0


def test_nan_points_and_times_are_counted(context, scan):
    points, times, trajectory = scan
    points, times = points.copy(), times.copy()
    points[5] = np.nan
    times[7] = np.nan
    stats = voxen.Mapper(context=context).integrate_cloud(points, times, trajectory)
    assert stats["rejected_rays"] == 1 and stats["skipped_outside_trajectory"] == 1
    assert stats["rays"] == len(points) - 2


@pytest.mark.parametrize(
    "trajectory, words",
    [
        (np.zeros((3, 5)), r"trajectory must be an array of shape \(M, 4\) or \(M, 8\) with a float or integer dtype; "
                           r"got shape \(3, 5\)"),
        (np.zeros(4), r"got shape \(4,\)"),
        (np.zeros((3, 5), dtype=np.int64), r"got shape \(3, 5\) and dtype int64"),
        (np.zeros((3, 4), dtype=bool), "dtype bool"),
        (np.zeros((3, 4), dtype=np.complex64), "dtype complex64"),
        (np.empty((0, 4)), "trajectory has no rows"),
        (np.array([[0.0, 0, 0, 0], [2.0, 1, 0, 0], [1.0, 2, 0, 0]]), r"pose 2 \(time 1.0+\) is earlier than pose 1"),
        (np.array([[0.0, 0, 0, 0], [0.0, 1, 0, 0]]), "same time"),
        (np.array([[0.0, 0, 0, 0], [1.0, np.nan, 0, 0]]), "pose 1 has a non-finite time or position"),
        (np.array([[0.0, 0, 0, 0, 0, 0, 0, 1], [1.0, 0, 0, 0, 0, 0, 0, 0]]), r"trajectory\[1\]: .*quaternion.* zero"),
        (np.array([[0.0, 0, 0, 0, 0, 0, 0, 1], [1.0, 0, 0, 0, np.inf, 0, 0, 1]]), r"trajectory\[1\]: .*not finite"),
        ("t x y z", "got <class 'str'>"),
    ],
)
def test_bad_trajectories_are_refused(context, trajectory, words):
    mapper = voxen.Mapper(context=context)
    with pytest.raises(ValueError, match=words):
        mapper.integrate_cloud(np.zeros((2, 3)), np.array([0.0, 0.5]), trajectory)
    assert np.isnan(mapper.occupancy(np.zeros((1, 3))))[0]  # nothing integrated


def test_bad_points_and_times(context, scan):
    points, times, trajectory = scan
    mapper = voxen.Mapper(context=context)
    with pytest.raises(ValueError, match="times has 2 rows but points has 3"):
        mapper.integrate_cloud(np.zeros((3, 3)), np.zeros(2), trajectory)
    with pytest.raises(ValueError, match=r"times must be an array of shape \(N,\) .*got shape \(3, 1\)"):
        mapper.integrate_cloud(np.zeros((3, 3)), np.zeros((3, 1)), trajectory)
    with pytest.raises(ValueError, match=r"times must be .*dtype bool"):
        mapper.integrate_cloud(np.zeros((3, 3)), np.zeros(3, dtype=bool), trajectory)
    with pytest.raises(ValueError, match=r"times must be .*dtype <U1"):
        mapper.integrate_cloud(np.zeros((3, 3)), np.full(3, "0"), trajectory)
    with pytest.raises(ValueError, match=r"points must be an array of shape \(N, 3\)"):
        mapper.integrate_cloud(np.zeros((3, 2)), np.zeros(3), trajectory)


def test_clocks_that_do_not_match_are_refused_before_integrating(context, scan):
    points, times, trajectory = scan
    mapper = voxen.Mapper(context=context, backend="cpu")
    with pytest.raises(ValueError, match=r"none of the 3000 times \(1000\d+\.\d+ to \d+\.\d+\) fall inside the trajectory's time "
                                         r"span \(0 to 1\)"):
        mapper.integrate_cloud(points, times * 1e9 + 1e9, trajectory)
    probes = np.random.default_rng(5).uniform(-2.5, 2.5, size=(500, 3))
    assert np.isnan(mapper.occupancy(probes)).all()  # nothing integrated
