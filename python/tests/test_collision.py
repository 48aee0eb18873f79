"""Mapper.sphere_collisions, path_collisions, box_collisions and nearest_obstacles: NumPy in
and out, the GPU equal to the CPU reference backend, and answers checked by hand against
the scene's walls (the cube [-2, 2]^3, free space inside)."""
import numpy as np
import pytest

import voxen

RES = 0.1


def mapped(context, scene, backend):
    mapper = voxen.Mapper(resolution=RES, context=context, backend=backend)
    mapper.integrate_rays(*scene)
    return mapper


def test_collisions_by_hand_and_gpu_equals_cpu(context, scene):
    gpu, cpu = mapped(context, scene, "gpu"), mapped(context, scene, "cpu")
    # The centre of the box is free; a sphere of 0.5 m there touches nothing; one at a wall collides.
    points = np.array([[0.05, 0.05, 0.05], [2.05, 0.05, 0.05], [30.0, 30.0, 30.0]])
    for m in (gpu, cpu):
        s = m.sphere_collisions(points, 0.5)
        assert s["collides"].dtype == np.bool_ and s["collides"].shape == (3,)
        assert list(s["collides"]) == [False, True, True]
        assert list(s["status"]) == ["observed", "observed", "outside_map"]
        assert not m.sphere_collisions(points, 0.5, unknown="free")["collides"][2]
    # A path from the centre towards +x hits the wall near x = 2 on its second segment (unknown
    # space free: the rays leave unobserved gaps inside).
    path = np.array([[0.05, 0.05, 0.05], [0.05, 1.05, 0.05], [3.05, 1.05, 0.05]])
    free = np.array([[0.05, 0.05, 0.05], [0.55, 0.05, 0.05]])
    for m in (gpu, cpu):
        p = m.path_collisions([path, free], 0.2, unknown="free")
        assert list(p["collides"]) == [True, False]
        assert list(p["segment"]) == [1, -1]
        assert p["t"].dtype == np.float32
        # The wall's voxels start at x = 2.0 (or the one below): touched with radius 0.2 at x >= 1.8 - 0.1.
        assert 1.65 / 3.0 <= p["t"][0] <= 1.85 / 3.0
        assert p["t"][1] == -1
    g, c = gpu.path_collisions([path, free], 0.2), cpu.path_collisions([path, free], 0.2)
    assert g["collides"][0] and (g["status"] == c["status"]).all()
    for key in g:
        np.testing.assert_array_equal(g[key], c[key])


def test_boxes_nearest_and_gpu_equals_cpu(context, scene):
    gpu, cpu = mapped(context, scene, "gpu"), mapped(context, scene, "cpu")
    centres = np.array([[1.55, 0.05, 0.05], [1.55, 0.05, 0.05]])
    for m in (gpu, cpu):
        # 1 m long along x reaches the wall at x = 2; along y (yaw 90 degrees) it does not.
        b = m.box_collisions(centres, np.array([0.0, np.pi / 2]), np.array([1.0, 0.1, 0.1]), unknown="free")
        assert list(b["collides"]) == [True, False]
    rng = np.random.default_rng(5)
    pts = rng.uniform(-2.5, 2.5, (500, 3))
    g, c = gpu.nearest_obstacles(pts, max_range=1.0), cpu.nearest_obstacles(pts, max_range=1.0)
    for key in g:
        np.testing.assert_array_equal(g[key], c[key])
    near = gpu.nearest_obstacles(np.array([[1.55, 0.05, 0.05]]), max_range=1.0)
    assert near["distance"].dtype == np.float64 and near["obstacle"].shape == (1, 3)
    assert 0.3 < near["distance"][0] < 0.6
    np.testing.assert_allclose(np.linalg.norm(near["direction"][0]), 1.0)
    assert near["status"][0] in ("observed", "unobserved")
    none = gpu.nearest_obstacles(np.array([[0.05, 0.05, 0.05]]), max_range=0.5)
    assert none["distance"][0] == -1 and np.isnan(none["obstacle"][0]).all() and none["status"][0] == "out_of_range"


def test_bad_input_is_named(context, scene):
    m = mapped(context, scene, "cpu")
    with pytest.raises(voxen.InputError, match=r"paths\[1\]"):
        m.path_collisions([np.zeros((2, 3)), np.zeros((1, 3))], 0.1)
    with pytest.raises(voxen.InputError, match=r"points\[1\]"):
        m.sphere_collisions(np.array([[0.0, 0, 0], [np.nan, 0, 0]]), 0.1)
    with pytest.raises(voxen.InputError):
        m.sphere_collisions(np.zeros((1, 3)), -1.0)
    with pytest.raises(ValueError, match="unknown"):
        m.sphere_collisions(np.zeros((1, 3)), 0.1, unknown="maybe")
