"""voxen.read_cloud against the engine's reader: the CLI maps the same file to the same map."""
import subprocess

import numpy as np
import pytest

import voxen
from gil_probe import assert_lets_other_threads_run


@pytest.fixture(scope="module")
def generated(tmp_path_factory, voxen_cli):
    """A small synthetic lidar run from `voxen generate`: a cloud with time and intensity
    (binary PLY) and its trajectory."""
    folder = tmp_path_factory.mktemp("generated")
    cloud, trajectory = folder / "run.ply", folder / "run.txt"
    done = subprocess.run(
        [voxen_cli, "generate", "--cloud", str(cloud), "--trajectory", str(trajectory),
         "--rings", "8", "--columns", "90", "--scans", "4"],
        capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return cloud, trajectory


def write_ascii_ply(path, names, rows, types=None):
    types = types or ["double"] * len(names)
    header = ["ply", "format ascii 1.0", f"element vertex {len(rows)}"]
    header += [f"property {t} {n}" for t, n in zip(types, names)]
    header.append("end_header")
    body = [" ".join(repr(float(v)) for v in row) for row in rows]
    path.write_text("\n".join(header + body) + "\n")


def test_cli_maps_the_cloud_to_the_map_of_the_arrays_read(generated, tmp_path, voxen_cli, context):
    cloud, trajectory = generated
    points, times, intensity, origins = voxen.read_cloud(cloud, trajectory, origins=True)
    assert points.shape[1] == 3 and points.dtype == np.float64 and len(points) > 1000
    assert times.shape == (len(points),) and times.dtype == np.float64
    assert intensity is not None and intensity.dtype == np.float32 and intensity.shape == (len(points),)
    assert origins.shape == points.shape and origins.dtype == np.float64
    assert np.all(np.diff(times) >= 0.0) and times[-1] > times[0]
    # Without origins=True the same first three arrays.
    again = voxen.read_cloud(str(cloud), str(trajectory))
    assert len(again) == 3
    for a, b in zip(again, (points, times, intensity)):
        np.testing.assert_array_equal(a, b)

    cli_map = tmp_path / "cli.vxm"
    done = subprocess.run([voxen_cli, "map", "--cloud", str(cloud), "--trajectory", str(trajectory),
                           "--output", str(cli_map), "--resolution", "0.1"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    mapper = voxen.Mapper(resolution=0.1, context=context, backend="cpu")
    mapper.integrate_rays(origins, points)
    mapper.save(tmp_path / "python.vxm")
    assert (tmp_path / "python.vxm").read_bytes() == cli_map.read_bytes()


def test_ray_cloud_reads_back_what_was_written(tmp_path):
    rows = [
        [1.0, 2.0, 3.0, 0.0, 0.0, 0.5, 10.25, 7.0],
        [-4.5, 0.125, 2.0, 0.0, 0.1, 0.5, 10.5, 0.0],
        [0.0, 0.0, 1e-3, 1.0, 1.0, 1.0, 11.0, 255.0],
    ]
    path = tmp_path / "rays.ply"
    write_ascii_ply(path, ["x", "y", "z", "ox", "oy", "oz", "time", "intensity"], rows,
                    ["double"] * 6 + ["double", "float"])
    points, times, intensity, origins = voxen.read_cloud(path, origins=True)
    table = np.array(rows)
    np.testing.assert_array_equal(points, table[:, 0:3])
    np.testing.assert_array_equal(origins, table[:, 3:6])
    np.testing.assert_array_equal(times, table[:, 6])
    np.testing.assert_array_equal(intensity, table[:, 7].astype(np.float32))
    # The arrays are the caller's: writable, and independent of each other.
    points[0, 0] = 99.0
    assert origins[0, 0] == 0.0


def test_cloud_without_intensity_or_time(tmp_path):
    path = tmp_path / "plain.ply"
    write_ascii_ply(path, ["x", "y", "z", "origin_x", "origin_y", "origin_z"], [[1, 2, 3, 0, 0, 0], [4, 5, 6, 0, 0, 0]])
    points, times, intensity = voxen.read_cloud(path)
    assert intensity is None
    np.testing.assert_array_equal(times, [0.0, 0.0])
    np.testing.assert_array_equal(points, [[1, 2, 3], [4, 5, 6]])


def test_empty_cloud(tmp_path):
    path = tmp_path / "empty.ply"
    write_ascii_ply(path, ["x", "y", "z", "ox", "oy", "oz"], [])
    points, times, intensity, origins = voxen.read_cloud(path, origins=True)
    assert points.shape == (0, 3) and times.shape == (0,) and origins.shape == (0, 3) and intensity is None


def test_skipped_points_are_left_out_with_a_warning(tmp_path):
    path = tmp_path / "nan.ply"
    write_ascii_ply(path, ["x", "y", "z", "ox", "oy", "oz"],
                    [[1, 2, 3, 0, 0, 0], [float("nan"), 0, 0, 0, 0, 0], [4, 5, 6, 0, 0, 0]])
    with pytest.warns(RuntimeWarning, match=r"nan\.ply.*1 skipped for NaN/inf"):
        points, _, _ = voxen.read_cloud(path)
    np.testing.assert_array_equal(points, [[1, 2, 3], [4, 5, 6]])


def test_errors_name_the_file(tmp_path, generated):
    missing = tmp_path / "missing.ply"
    with pytest.raises(voxen.Error, match="missing.ply"):
        voxen.read_cloud(missing)
    corrupt = tmp_path / "corrupt.ply"
    corrupt.write_text("ply\nformat ascii 1.0\nelement vertex 2\nproperty double x\nproperty double y\n"
                       "property double z\nproperty double ox\nproperty double oy\nproperty double oz\n"
                       "end_header\n1 2 3 0 0 0\n4 5 oops 0 0 0\n")
    with pytest.raises(voxen.Error, match=r"corrupt\.ply:12: vertex 1, property .z."):
        voxen.read_cloud(corrupt)
    truncated = tmp_path / "truncated.ply"
    truncated.write_bytes(generated[0].read_bytes()[:-10])
    with pytest.raises(voxen.Error, match="truncated.ply"):
        voxen.read_cloud(truncated, generated[1])
    # Origins of a point cloud need its trajectory to know where the sensor was.
    with pytest.raises(voxen.Error, match="run.ply: cannot tell where the sensor was"):
        voxen.read_cloud(generated[0], origins=True)
    with pytest.raises(voxen.Error, match="no-trajectory.txt"):
        voxen.read_cloud(generated[0], tmp_path / "no-trajectory.txt")
    with pytest.raises(TypeError):
        voxen.read_cloud(3)


def test_binary_cloud_reads_exactly_with_the_gil_released(tmp_path):
    n = 1_500_000  # 84 MB: a read long enough to tell (about 0.05 s on an idle core)
    names = ("x", "y", "z", "ox", "oy", "oz", "time")
    rows = np.empty(n, dtype=[(name, "<f8") for name in names])
    for k, name in enumerate(names):
        rows[name] = np.arange(n) * (0.001 + k) - 3.0 * k  # distinct in every row and column
    path = tmp_path / "big.ply"
    with open(path, "wb") as f:
        header = f"ply\nformat binary_little_endian 1.0\nelement vertex {n}\n"
        header += "".join(f"property double {name}\n" for name in names) + "end_header\n"
        f.write(header.encode())
        rows.tofile(f)
    result = {}
    # Holding the GIL through the read would stall the ticking thread for the whole call.
    assert_lets_other_threads_run(lambda: result.update(arrays=voxen.read_cloud(path, origins=True)))
    points, times, intensity, origins = result["arrays"]
    for i, name in enumerate(("x", "y", "z")):
        np.testing.assert_array_equal(points[:, i], rows[name])
        np.testing.assert_array_equal(origins[:, i], rows["o" + name])
    np.testing.assert_array_equal(times, rows["time"])
    assert intensity is None
    path.unlink()


def write_ascii_pcd(path, viewpoint, rows):
    """x y z intensity rows, as PCL writes an ascii PCD (VIEWPOINT tx ty tz qw qx qy qz)."""
    header = ["# .PCD v0.7 - Point Cloud Data file format", "VERSION 0.7", "FIELDS x y z intensity",
              "SIZE 4 4 4 4", "TYPE F F F F", "COUNT 1 1 1 1", f"WIDTH {len(rows)}", "HEIGHT 1",
              "VIEWPOINT " + " ".join(str(v) for v in viewpoint), f"POINTS {len(rows)}", "DATA ascii"]
    path.write_text("\n".join(header + [" ".join(repr(float(v)) for v in row) for row in rows]) + "\n")


def test_pcd_files_read_as_voxen_map_input_reads_them(tmp_path, voxen_cli, context):
    rng = np.random.default_rng(24)
    folder = tmp_path / "scans"
    folder.mkdir()
    written = []
    for i, origin in enumerate([(0.0, 0.0, 1.0), (0.5, 0.25, 1.0)]):
        rows = np.column_stack([rng.uniform(-3, 3, size=(200, 3)).astype(np.float32),
                                rng.uniform(0, 100, size=200).astype(np.float32)])
        write_ascii_pcd(folder / f"scan_{i:02d}.pcd", (*origin, 1, 0, 0, 0), rows)
        written.append((np.asarray(origin), rows))
    points, times, intensity, origins = voxen.read_cloud(folder, origins=True, pcd_viewpoint="origin")
    # Name order; the VIEWPOINT of each file is its points' origin (identity rotation here).
    np.testing.assert_array_equal(points, np.concatenate([r[:, :3] for _, r in written]).astype(np.float64))
    np.testing.assert_array_equal(intensity, np.concatenate([r[:, 3] for _, r in written]))
    np.testing.assert_array_equal(origins, np.concatenate([np.tile(o, (len(r), 1)) for o, r in written]))
    assert times.shape == (400,)

    cli_map = tmp_path / "cli.vxm"
    done = subprocess.run([voxen_cli, "map", "--input", str(folder), "--output", str(cli_map), "--cpu", "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    mapper = voxen.Mapper(resolution=0.1, context=context, backend="cpu")
    mapper.integrate_rays(origins, points)
    mapper.save(tmp_path / "python.vxm")
    assert (tmp_path / "python.vxm").read_bytes() == cli_map.read_bytes()


def test_recordings_read_with_the_options_of_voxen_map(tmp_path, voxen_cli):
    """A generated run as a ROS 1 bag and as MCAP: the same points as its PLY + trajectory,
    and the recording keywords act as voxen map's flags do."""
    bag, mcap = tmp_path / "run.bag", tmp_path / "run.mcap"
    cloud, trajectory = tmp_path / "run.ply", tmp_path / "run.txt"
    args = ["--rings", "8", "--columns", "64", "--scans", "3"]
    for out, extra in ((bag, ["--cloud", str(cloud), "--trajectory", str(trajectory)]), (mcap, [])):
        done = subprocess.run([voxen_cli, "generate", "--recording", str(out), *extra, *args],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    with pytest.warns(RuntimeWarning, match="skipped for NaN"):  # the beams without a return
        points, times, intensity, origins = voxen.read_cloud(bag, origins=True)
    ply = voxen.read_cloud(cloud, trajectory, origins=True)
    np.testing.assert_array_equal(points, ply[0])
    np.testing.assert_array_equal(times, ply[1])
    np.testing.assert_array_equal(origins, ply[3])
    with pytest.warns(RuntimeWarning):
        from_mcap = voxen.read_cloud(mcap, cloud_topic="/points", fixed_frame="map", sensor_frame="lidar")
    np.testing.assert_array_equal(from_mcap[0], points)
    with pytest.warns(RuntimeWarning):
        later = voxen.read_cloud(bag, start=0.15)
    assert 0 < len(later[0]) < len(points)
    with pytest.warns(RuntimeWarning):
        stamped = voxen.read_cloud(bag, deskew=False)
    assert len(np.unique(stamped[1])) == 3  # one time per cloud: its header.stamp
    with pytest.raises(voxen.Error, match="cloud topic /nope: no such topic"):
        voxen.read_cloud(bag, cloud_topic="/nope")
    with pytest.raises(ValueError, match="duration"):
        voxen.read_cloud(bag, duration=float("nan"))


def test_plain_cloud_reads_without_origins_or_trajectory(tmp_path, generated):
    """Only mapping needs the sensor's position: a cloud with neither origin fields nor a
    trajectory gives its points, times and intensity."""
    rows = [[1.5, -2.0, 0.25, 10.0, 7.0], [0.0, 4.0, -1.0, 10.5, 3.5]]
    path = tmp_path / "scan.ply"
    write_ascii_ply(path, ["x", "y", "z", "time", "intensity"], rows, ["double"] * 4 + ["float"])
    points, times, intensity = voxen.read_cloud(path)
    table = np.array(rows)
    np.testing.assert_array_equal(points, table[:, 0:3])
    np.testing.assert_array_equal(times, table[:, 3])
    np.testing.assert_array_equal(intensity, table[:, 4].astype(np.float32))
    bare = tmp_path / "bare.ply"
    write_ascii_ply(bare, ["x", "y", "z"], [[1, 2, 3]])
    points, times, intensity = voxen.read_cloud(bare)
    np.testing.assert_array_equal(points, [[1, 2, 3]])
    np.testing.assert_array_equal(times, [0.0])
    assert intensity is None
    # The generated run's cloud alone: the trajectory run's points and times, bit for bit.
    cloud, trajectory = generated
    alone = voxen.read_cloud(cloud)
    with_trajectory = voxen.read_cloud(cloud, trajectory)
    for a, b in zip(alone, with_trajectory):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(voxen.Error, match="scan.ply: cannot tell where the sensor was"):
        voxen.read_cloud(path, origins=True)


def test_pcd_viewpoint_read_as_origin_or_pose(tmp_path):
    """VIEWPOINT 1 2 3, half a turn about z (qw qx qy qz = 0 0 0 1): as an origin the points are
    as stored; as the sensor's pose (x, y, z) -> (-x, -y, z) + (1, 2, 3). Not chosen: origin,
    with a warning naming both readings and the keyword."""
    rows = [[1.0, 0.0, 0.0, 5.0], [0.0, 2.0, 5.0, 6.0]]
    path = tmp_path / "turned.pcd"
    write_ascii_pcd(path, (1, 2, 3, 0, 0, 0, 1), rows)
    as_origin = voxen.read_cloud(path, origins=True, pcd_viewpoint="origin")
    np.testing.assert_array_equal(as_origin[0], [[1, 0, 0], [0, 2, 5]])
    np.testing.assert_array_equal(as_origin[3], [[1, 2, 3], [1, 2, 3]])
    as_pose = voxen.read_cloud(path, origins=True, pcd_viewpoint="pose")
    np.testing.assert_array_equal(as_pose[0], [[0, 2, 3], [1, 0, 8]])
    np.testing.assert_array_equal(as_pose[3], [[1, 2, 3], [1, 2, 3]])
    np.testing.assert_array_equal(as_pose[2], np.float32([5, 6]))
    with pytest.warns(UserWarning, match=r"turned\.pcd:\d+: VIEWPOINT 1 2 3 0 0 0 1 is not the identity.*read as "
                      r"origin.*as pose.*set pcd_viewpoint to origin or pose"):
        unchosen = voxen.read_cloud(path, origins=True)
    np.testing.assert_array_equal(unchosen[0], as_origin[0])
    with pytest.raises(ValueError, match="pcd_viewpoint must be 'origin' or 'pose'"):
        voxen.read_cloud(path, pcd_viewpoint="sideways")
    ply = tmp_path / "rays.ply"
    write_ascii_ply(ply, ["x", "y", "z", "ox", "oy", "oz"], [[1, 2, 3, 0, 0, 0]])
    with pytest.raises(voxen.SettingError, match=r"rays\.ply: is a PLY: pcd_viewpoint applies to PCD files only"):
        voxen.read_cloud(ply, pcd_viewpoint="pose")
