"""voxen.Mapper against the CPU reference backend (C++), on the same rays."""
import re
import subprocess

import numpy as np
import pytest

import voxen


def mapped(context, scene, backend, dtype=np.float64):
    origins, ends = scene
    mapper = voxen.Mapper(resolution=0.1, context=context, backend=backend)
    stats = mapper.integrate_rays(origins.astype(dtype), ends.astype(dtype))
    return mapper, stats


def probe_points(scene):
    rng = np.random.default_rng(5)
    return rng.uniform(-2.5, 2.5, size=(3000, 3))


def test_integrate_rays_statistics(context, scene):
    mapper, stats = mapped(context, scene, "gpu")
    assert stats["rays"] == len(scene[0])
    assert stats["rejected_rays"] == 0
    assert set(stats) == {"rays", "clipped_rays", "rejected_rays", "batches"}
    # Per call, not cumulative.
    again = mapper.integrate_rays(scene[0][:10], scene[1][:10])
    assert again["rays"] == 10
    bad = np.array([[np.nan, 0.0, 0.0], [0.0, 0.0, 0.0]])
    assert mapper.integrate_rays(bad, np.ones((2, 3)))["rejected_rays"] == 1
    # The GPU's counts, after waiting: the same as the CPU reference's on the same rays.
    cpu, _ = mapped(context, scene, "cpu")
    cpu.integrate_rays(scene[0][:10], scene[1][:10])
    cpu.integrate_rays(bad, np.ones((2, 3)))
    total, reference = mapper.stats(), cpu.stats()
    assert total["rays"] == len(scene[0]) + 11 and total["rejected_rays"] == 1
    assert total["voxel_updates"] > total["rays"] and total["dropped_updates"] == 0
    for key in ("rays", "rejected_rays", "voxel_updates", "occupied_voxels", "free_voxels", "regions"):
        assert total[key] == reference[key], key


def test_gpu_map_equals_cpu_reference(context, scene, tmp_path):
    gpu, _ = mapped(context, scene, "gpu")
    cpu, _ = mapped(context, scene, "cpu")
    points = probe_points(scene)
    np.testing.assert_array_equal(gpu.occupancy(points), cpu.occupancy(points))
    np.testing.assert_array_equal(gpu.classify(points), cpu.classify(points))
    gpu.save(tmp_path / "gpu.vxm")
    cpu.save(tmp_path / "cpu.vxm")
    assert (tmp_path / "gpu.vxm").read_bytes() == (tmp_path / "cpu.vxm").read_bytes()


def test_occupancy_and_classify(context):
    mapper = voxen.Mapper(resolution=0.1, context=context)
    origins = np.zeros((3, 3))
    ends = np.tile([1.05, 0.05, 0.05], (3, 1))
    mapper.integrate_rays(origins, ends)
    points = np.array([[0.55, 0.05, 0.05], [100.0, 100.0, 100.0], [1.05, 0.05, 0.05]])
    values = mapper.occupancy(points)
    classes = mapper.classify(points)
    assert values.dtype == np.float32 and values.shape == (3,)
    assert classes.dtype == np.int8 and classes.shape == (3,)
    model_hit, model_miss = np.log(0.9 / 0.1), np.log(0.45 / 0.55)  # OHM's defaults
    assert values[0] == pytest.approx(3 * model_miss, rel=1e-5) and classes[0] == 0  # crossed three times
    assert np.isnan(values[1]) and classes[1] == -1  # never observed
    assert values[2] == pytest.approx(min(3 * model_hit, 3.511), rel=1e-5) and classes[2] == 1


def test_float32_input_same_as_float64_of_same_values(context, scene):
    origins, ends = (a.astype(np.float32) for a in scene)
    from32 = voxen.Mapper(context=context)
    from32.integrate_rays(origins, ends)
    from64 = voxen.Mapper(context=context, backend="cpu")
    from64.integrate_rays(origins.astype(np.float64), ends.astype(np.float64))
    points = probe_points(scene)
    np.testing.assert_array_equal(from32.occupancy(points), from64.occupancy(points))


def test_non_contiguous_arrays_give_the_same_map(context, scene):
    origins, ends = scene
    wide = np.zeros((len(origins), 6))
    wide[:, 0:6:2] = origins  # a strided view: every other column
    fortran = np.asfortranarray(ends)
    strided = voxen.Mapper(context=context)
    strided.integrate_rays(wide[:, 0:6:2], fortran)
    contiguous = voxen.Mapper(context=context)
    contiguous.integrate_rays(origins, ends)
    points = probe_points(scene)
    np.testing.assert_array_equal(strided.occupancy(points), contiguous.occupancy(points))
    np.testing.assert_array_equal(strided.occupancy(points[::2]), contiguous.occupancy(points[::2]))


def test_raycast_against_cpu_reference(context, scene):
    gpu, _ = mapped(context, scene, "gpu")
    cpu, _ = mapped(context, scene, "cpu")
    rng = np.random.default_rng(9)
    origins = rng.uniform(-0.3, 0.3, size=(500, 3))
    directions = rng.normal(size=(500, 3))
    ranges = rng.uniform(0.5, 4.0, size=500)
    for unknown_blocks in (False, True):
        a = gpu.raycast(origins, directions, ranges, unknown_blocks=unknown_blocks)
        b = cpu.raycast(origins, directions, ranges, unknown_blocks=unknown_blocks)
        assert set(a) == {"hit", "distance", "point", "voxel", "value", "class", "status"}
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
    # With unknown space blocking, every ray ends at a wall or the unknown beyond it.
    hits = gpu.raycast(origins, directions, 10.0, unknown_blocks=True)
    assert hits["hit"].dtype == np.bool_ and hits["hit"].all()
    assert hits["point"].shape == (500, 3) and hits["voxel"].dtype == np.int32
    assert (hits["distance"] > 0.0).all() and (hits["distance"] < 4.0).all()
    assert (hits["class"] != 0).all()


def test_empty_arrays(context):
    mapper = voxen.Mapper(context=context)
    empty = np.empty((0, 3))
    assert mapper.integrate_rays(empty, empty)["rays"] == 0
    assert mapper.occupancy(empty).shape == (0,)
    assert mapper.classify(empty).shape == (0,)
    assert mapper.raycast(empty, empty, 1.0)["point"].shape == (0, 3)


@pytest.mark.parametrize(
    "bad, words",
    [
        (np.zeros((4, 2)), "shape (4, 2) and dtype float64"),
        (np.zeros(3), "shape (3,) and dtype float64"),
        (np.zeros((4, 2), dtype=np.int64), "shape (4, 2) and dtype int64"),
        (np.zeros((2, 3, 1)), "shape (2, 3, 1)"),
        ("not an array", "got <class 'str'>"),
        # Integers are numbers (test_integer_arrays_are_converted); these are not.
        (np.zeros((4, 3), dtype=bool), "with a float or integer dtype; got shape (4, 3) and dtype bool"),
        (np.zeros((4, 3), dtype=np.complex128), "dtype complex128"),
        (np.full((4, 3), "1"), "dtype <U1"),
        (np.zeros((4, 3), dtype=object), "dtype object"),
        ([["a", "b", "c"]], "got <class 'list'>"),
    ],
)
def test_bad_arrays_are_refused_naming_the_argument(context, bad, words):
    mapper = voxen.Mapper(context=context)
    good = np.zeros((4, 3))
    with pytest.raises(ValueError) as error:
        mapper.integrate_rays(good, bad)
    assert "ends must be an array of shape (N, 3)" in str(error.value)
    assert words in str(error.value)
    with pytest.raises(ValueError, match="points must be"):
        mapper.occupancy(bad)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.uint8, np.float16])
def test_integer_arrays_are_converted(context, dtype):
    """Whole-metre coordinates in an integer array are the same numbers as in a float one."""
    rng = np.random.default_rng(8)
    ends = rng.integers(-3, 4, size=(500, 3)) if dtype != np.uint8 else rng.integers(0, 4, size=(500, 3))
    origins = np.zeros((500, 3))
    probes = rng.integers(-4, 5, size=(300, 3)) if dtype != np.uint8 else rng.integers(0, 5, size=(300, 3))
    reference = voxen.Mapper(resolution=0.25, context=context, backend="cpu")
    reference.integrate_rays(origins, ends.astype(np.float64))
    for backend in ("cpu", "gpu"):
        mapper = voxen.Mapper(resolution=0.25, context=context, backend=backend)
        stats = mapper.integrate_rays(origins.astype(dtype), ends.astype(dtype))
        assert stats["rays"] == 500 and stats["rejected_rays"] == 0
        np.testing.assert_array_equal(mapper.occupancy(probes.astype(dtype)), reference.occupancy(probes.astype(np.float64)))
        np.testing.assert_array_equal(mapper.classify(probes.astype(dtype)), reference.classify(probes.astype(np.float64)))
        directions = ends[np.any(ends != 0, axis=1)][:50]  # a ray needs a direction
        hits = mapper.raycast(origins[:50].astype(dtype), directions.astype(dtype), np.full(50, 9, dtype=dtype))
        expected = reference.raycast(origins[:50], directions.astype(np.float64), 9.0)
        for key in ("hit", "distance", "voxel", "value"):
            np.testing.assert_array_equal(hits[key], expected[key])
    # A strided integer view reads as its values.
    view = np.asarray(ends.astype(dtype))[::2]
    np.testing.assert_array_equal(reference.occupancy(view), reference.occupancy(view.astype(np.float64)))


def test_bad_arguments(context):
    mapper = voxen.Mapper(context=context)
    with pytest.raises(ValueError, match="ends has 2 rows but origins has 3"):
        mapper.integrate_rays(np.zeros((3, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="max_range is NaN"):
        mapper.raycast(np.zeros((1, 3)), np.ones((1, 3)), float("nan"))
    with pytest.raises(ValueError, match=r"max_range must be a number or an array of shape \(1,\)"):
        mapper.raycast(np.zeros((1, 3)), np.ones((1, 3)), np.ones(2))
    with pytest.raises(ValueError, match="model must be"):
        voxen.Mapper(model="nope", context=context)
    with pytest.raises(ValueError, match="unknown layer"):
        voxen.Mapper(layers=("colour",), context=context)
    with pytest.raises(ValueError, match="resolution is NaN"):
        voxen.Mapper(resolution=float("nan"), context=context)


def test_engine_errors_carry_the_engine_message(context, tmp_path):
    with pytest.raises(voxen.SettingError, match="resolution") as error:
        voxen.Mapper(resolution=-1.0, context=context)
    assert isinstance(error.value, ValueError) and isinstance(error.value, voxen.Error)
    mapper = voxen.Mapper(context=context)
    with pytest.raises(voxen.InputError, match=r"points\[1\]: .*non-finite"):
        mapper.occupancy(np.array([[0.0, 0.0, 0.0], [np.nan, 0.0, 0.0]]))
    missing = tmp_path / "missing.vxm"
    with pytest.raises(voxen.Error, match="missing.vxm"):
        voxen.load(missing, context=context)


def test_save_load_round_trip_and_cli_reads_it(context, scene, tmp_path, voxen_cli):
    origins, ends = scene
    mapper = voxen.Mapper(resolution=0.2, model="octomap", context=context)
    mapper.integrate_rays(origins, ends)
    path = tmp_path / "from_python.vxm"
    mapper.save(path)
    loaded = voxen.load(str(path), context=context)
    assert loaded.resolution == 0.2
    points = probe_points(scene)
    np.testing.assert_array_equal(loaded.occupancy(points), mapper.occupancy(points))
    info = subprocess.run([voxen_cli, "info", str(path), "--verify"], capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert re.search(r"resolution\s+0\.2 m per voxel", info.stdout), info.stdout
    assert re.search(r"hit probability\s+0\.7 ", info.stdout), info.stdout
    assert "every region decompressed, its checksum matched" in info.stdout


def test_load_into_a_mapper_replaces_its_map_and_keeps_it_on_failure(context, scene, tmp_path):
    origins, ends = scene
    source = voxen.Mapper(resolution=0.2, context=context, backend="cpu")
    source.integrate_rays(origins, ends)
    path = tmp_path / "source.vxm"
    source.save(path)
    mapper = voxen.Mapper(resolution=0.1, context=context)
    mapper.integrate_rays(origins[:100], ends[:100])
    broken = tmp_path / "broken.vxm"
    broken.write_text("not a map")
    with pytest.raises(voxen.Error, match="broken.vxm"):
        mapper.load(broken)
    assert mapper.resolution == 0.1 and mapper.stats()["rays"] == 100
    before = mapper.snapshot().version
    mapper.load(path)
    assert mapper.resolution == 0.2 and mapper.stats()["rays"] == 0
    points = probe_points(scene)
    np.testing.assert_array_equal(mapper.occupancy(points), source.occupancy(points))
    assert mapper.latest_snapshot().version > before


def test_devices_and_contexts(context):
    assert isinstance(voxen.devices(), list) and voxen.devices()
    assert all({"index", "name", "type", "usable"} <= set(d) for d in voxen.devices())
    with pytest.raises(ValueError, match="device must be"):
        voxen.Context(device=1.5)
    assert voxen.Mapper(context=context).context is context
    assert voxen.Mapper().context is voxen.Mapper().context  # the shared default


def test_layers_as_one_str_is_refused(context):
    with pytest.raises(ValueError, match="layers must be a sequence of names"):
        voxen.Mapper(layers="voxel_mean", context=context)


def test_device_that_matches_none_raises_the_engine_error():
    context = voxen.Context(device="no such device anywhere")
    with pytest.raises(voxen.Error, match="no such device anywhere"):
        context.open()
