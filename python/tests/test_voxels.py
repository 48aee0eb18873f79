"""Mapper.voxels, Mapper.bounds and Mapper.slice against classify() on voxel centres."""
import numpy as np
import pytest

import voxen

RES = 0.1


def mapped(context, scene, backend):
    mapper = voxen.Mapper(resolution=RES, context=context, backend=backend)
    mapper.integrate_rays(*scene)
    return mapper


def grid_centres(lo, hi):
    """Every voxel centre of the box lo..hi, sorted by z, then y, then x."""
    counts = np.rint((hi - lo) / RES).astype(int)
    axes = [lo[a] + (np.arange(counts[a]) + 0.5) * RES for a in range(3)]
    z, y, x = np.meshgrid(axes[2], axes[1], axes[0], indexing="ij")
    return np.column_stack([x.ravel(), y.ravel(), z.ravel()])


def test_bounds(context, scene):
    mapper = mapped(context, scene, "cpu")
    lo, hi = mapper.bounds
    assert lo.dtype == np.float64 and lo.shape == (3,) and hi.shape == (3,)
    np.testing.assert_allclose(lo / RES, np.rint(lo / RES), atol=1e-9)  # on voxel edges
    np.testing.assert_allclose(hi / RES, np.rint(hi / RES), atol=1e-9)
    # The scene's walls are the cube [-2, 2]^3: its voxels from -2.0 to 2.1 (a sample at 2.0 is in the voxel above).
    np.testing.assert_allclose(lo, [-2.0, -2.0, -2.0], atol=1e-9)
    np.testing.assert_allclose(hi, [2.1, 2.1, 2.1], atol=1e-9)
    # Every observed voxel is inside, and the box is tight: each face holds one.
    centres = grid_centres(lo, hi)
    classes = mapper.classify(centres).reshape(np.rint((hi - lo) / RES).astype(int)[::-1])
    observed = classes != -1
    assert observed[0].any() and observed[-1].any() and observed[:, 0].any() and observed[:, -1].any()
    assert observed[:, :, 0].any() and observed[:, :, -1].any()
    assert voxen.Mapper(context=context).bounds is None


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_voxels_are_the_classified_centres(context, scene, backend):
    mapper = mapped(context, scene, backend)
    reference = mapped(context, scene, "cpu")
    lo, hi = reference.bounds
    centres = grid_centres(lo, hi)
    classes = reference.classify(centres)
    values = reference.occupancy(centres)
    for kind, code in (("occupied", 1), ("free", 0)):
        found, found_values = mapper.voxels(kind)
        assert found.dtype == np.float64 and found.shape[1] == 3 and found_values.dtype == np.float32
        expected = centres[classes == code]  # sorted by z, y, x as voxels() documents
        assert len(found) == len(expected) > 100, kind
        np.testing.assert_allclose(found, expected, atol=1e-9)
        np.testing.assert_array_equal(found_values, values[classes == code])


def test_unknown_voxels_fill_the_held_regions(context, scene):
    mapper = mapped(context, scene, "cpu")
    kinds = {kind: mapper.voxels(kind) for kind in ("occupied", "free", "unknown")}
    unknown, unknown_values = kinds["unknown"]
    assert np.isnan(unknown_values).all() and len(unknown) > 0
    assert (mapper.classify(unknown) == -1).all()
    total = sum(len(centres) for centres, _ in kinds.values())
    assert total % 32**3 == 0  # whole regions
    keys = np.floor(np.vstack([c for c, _ in kinds.values()]) / RES).astype(np.int64)
    assert len(np.unique(keys, axis=0)) == total  # each voxel once


def test_voxels_of_an_empty_map_and_bad_kind(context):
    mapper = voxen.Mapper(context=context)
    centres, values = mapper.voxels()
    assert centres.shape == (0, 3) and values.shape == (0,)
    with pytest.raises(ValueError, match="kind must be \"occupied\", \"free\" or \"unknown\"; got \"walls\""):
        mapper.voxels("walls")


def box_reference(reference, lo, hi, code):
    """The voxels of class `code` that hold a point of the box lo..hi, by classify() on every
    voxel centre of the box's voxel range (corners off voxel edges or on whole metres, so that
    the range is floor(lo / RES) to floor(hi / RES) without a rounding question)."""
    first = np.floor(np.asarray(lo, dtype=float) / RES).astype(int)
    last = np.floor(np.asarray(hi, dtype=float) / RES).astype(int)
    axes = [(np.arange(first[a], last[a] + 1) + 0.5) * RES for a in range(3)]
    z, y, x = np.meshgrid(axes[2], axes[1], axes[0], indexing="ij")  # sorted by z, then y, then x
    centres = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    keep = reference.classify(centres) == code
    return centres[keep], reference.occupancy(centres)[keep]


BOXES = [
    ((-1.03, -2.47, -0.51), (2.26, 0.98, 1.33)),  # 33 x 35 x 19 voxels: the GPU's batched query
    ((1.87, -0.33, -0.12), (2.13, 0.04, 0.21)),  # 3 x 4 x 4: answered on the host map
    ((1.55, 1.52, 1.57), (3.04, 3.01, 3.08)),  # reaches past the map's regions
    (np.array([-1, -1, 0]), np.array([1, 1, 1])),  # integer corners, on voxel edges
]


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
@pytest.mark.parametrize("box", BOXES)
def test_voxels_in_box_are_the_classified_centres(context, scene, backend, box):
    mapper = mapped(context, scene, backend)
    reference = mapped(context, scene, "cpu")
    lo, hi = box
    for kind, code in (("occupied", 1), ("free", 0), ("unknown", -1)):
        centres, values = mapper.voxels_in_box(lo, hi, kind)
        expected, expected_values = box_reference(reference, lo, hi, code)
        assert centres.dtype == np.float64 and centres.shape == (len(expected), 3) and values.dtype == np.float32
        np.testing.assert_allclose(centres, expected, atol=1e-9, err_msg=kind)
        np.testing.assert_array_equal(values, expected_values)
    # The big box holds some of each class; inside the map's voxels() the same set.
    if box is BOXES[0]:
        for kind in ("occupied", "free"):
            inside, _ = mapper.voxels_in_box(lo, hi, kind)
            everywhere, _ = mapper.voxels(kind)
            within = everywhere[((everywhere >= np.floor(np.array(lo) / RES) * RES) &
                                 (everywhere < (np.floor(np.array(hi) / RES) + 1) * RES)).all(axis=1)]
            assert len(inside) > 50
            np.testing.assert_allclose(inside, within, atol=1e-9)


def test_voxels_in_box_bad_arguments(context, scene):
    mapper = mapped(context, scene, "cpu")
    assert voxen.Mapper(context=context).voxels_in_box((0, 0, 0), (1, 1, 1))[0].shape == (0, 3)
    with pytest.raises(ValueError, match=r"lo\[2\] 1.000000 is above hi\[2\] 0.500000"):
        mapper.voxels_in_box((0, 0, 1), (1, 1, 0.5))
    with pytest.raises(ValueError, match=r"lo must be 3 numbers \(x, y, z\) in metres; got \(0, 0\)"):
        mapper.voxels_in_box((0, 0), (1, 1, 1))
    with pytest.raises(ValueError, match=r"hi must be 3 numbers .*got 'abc'"):
        mapper.voxels_in_box((0, 0, 0), "abc")
    with pytest.raises(ValueError, match=r"hi must be 3 numbers .*got \['a', 'b', 'c'\]"):
        mapper.voxels_in_box((0, 0, 0), ["a", "b", "c"])
    with pytest.raises(ValueError, match=r"lo\[1\] is nan: a box corner must be finite"):
        mapper.voxels_in_box((0, float("nan"), 0), (1, 1, 1))
    with pytest.raises(voxen.InputError, match=r"voxels_in_box\(lo, hi\): box of .* larger than the limit"):
        mapper.voxels_in_box((-1e3, -1e3, -1e3), (1e3, 1e3, 1e3))
    with pytest.raises(ValueError, match="kind must be"):
        mapper.voxels_in_box((0, 0, 0), (1, 1, 1), "walls")


@pytest.mark.parametrize("z", [-1.95, 0.0, 0.43, 2.05])
def test_slice_is_classify_on_the_plane(context, scene, z):
    mapper = mapped(context, scene, "gpu")
    lo, hi = mapper.bounds
    image = mapper.slice(z)
    width, height = np.rint((hi[:2] - lo[:2]) / RES).astype(int)
    assert image.dtype == np.int8 and image.shape == (height, width)
    layer_centre = (np.floor(z / RES) + 0.5) * RES
    xs = lo[0] + (np.arange(width) + 0.5) * RES
    ys = lo[1] + (np.arange(height) + 0.5) * RES
    y, x = np.meshgrid(ys, xs, indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), np.full(x.size, layer_centre)])
    np.testing.assert_array_equal(image, mapper.classify(points).reshape(height, width))
    assert (image == 1).any() and set(np.unique(image)) <= {-1, 0, 1}


def test_slice_window(context, scene):
    mapper = mapped(context, scene, "cpu")
    full = mapper.slice(0.0)
    lo, hi = mapper.bounds
    # A window on voxel edges is that part of the full slice; corners of 2 or 3 numbers.
    part = mapper.slice(0.0, lo=(lo[0] + 1.0, lo[1] + 0.5), hi=hi)
    np.testing.assert_array_equal(part, full[5:, 10:])
    # Beyond the map: unknown.
    wide = mapper.slice(0.0, lo=(-3.0, -3.0), hi=(3.0, 3.0))
    assert wide.shape == (60, 60) and (wide[:5] == -1).all() and (wide[:, :5] == -1).all()
    np.testing.assert_array_equal(wide[10:51, 10:51], full)
    # A window between two centres holds none.
    with pytest.raises(ValueError, match="no voxel centre along x"):
        mapper.slice(0.0, lo=(0.01, 0.0), hi=(0.04, 1.0))


def test_slice_bad_arguments(context, scene):
    mapper = mapped(context, scene, "cpu")
    with pytest.raises(ValueError, match="z is NaN"):
        mapper.slice(float("nan"))
    with pytest.raises(ValueError, match="lo is NaN"):
        mapper.slice(0.0, lo=(float("nan"), 0.0))
    with pytest.raises(ValueError, match=r"hi must be 2 numbers \(x, y\) or 3"):
        mapper.slice(0.0, hi=(1.0,))
    with pytest.raises(ValueError, match="more than 268435456"):
        mapper.slice(0.0, lo=(-1e4, -1e4), hi=(1e4, 1e4))
    with pytest.raises(ValueError, match="no observed voxel to frame: give lo and hi"):
        voxen.Mapper(context=context).slice(0.0)
    assert voxen.Mapper(context=context).slice(0.0, lo=(0, 0), hi=(0.2, 0.3)).tolist() == [[-1, -1]] * 3


@pytest.mark.parametrize("backend", ["gpu", "cpu"])
def test_bounds_of_a_few_rays(context, backend):
    """Two rays from voxel (0, 0, 0)'s centre: to voxel 10 along +x, and into region -1 along -y
    while rising to z voxel 5. The box is worked out by hand, in voxel edges."""
    mapper = voxen.Mapper(resolution=RES, context=context, backend=backend)
    origins = np.array([[0.05, 0.05, 0.05], [0.05, 0.05, 0.05]])
    ends = np.array([[1.05, 0.05, 0.05], [0.05, -0.95, 0.55]])
    mapper.integrate_rays(origins, ends)
    lo, hi = mapper.bounds
    np.testing.assert_allclose(lo, [0.0, -1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(hi, [1.1, 0.1, 0.6], atol=1e-12)
    # A ray back along -x widens it by the voxels it touches.
    mapper.integrate_rays(np.array([[0.05, 0.05, 0.05]]), np.array([[-0.35, 0.05, 0.05]]))
    np.testing.assert_allclose(mapper.bounds[0], [-0.4, -1.0, 0.0], atol=1e-12)
