"""Mapper.integrate_depth(color=...) and Mapper.mesh()'s "colors": a coloured wall's mesh
vertices carry its colour, the GPU's colours equal the CPU reference's, a map without the
tsdf_colour layer meshes without colours, and colour images that cannot be used are refused."""
import numpy as np
import pytest

import voxen


def wall_depth(width=48, height=36, wall=2.0):
    """A wall `wall` metres in front of the camera, tilted: depth grows with the column."""
    u = np.arange(width)[None, :].repeat(height, 0)
    return (wall + 0.01 * (u - width / 2)).astype(np.float32)


def pose(x):
    """The optical frame looking along world +x from (x, 0, 1)."""
    m = np.eye(4)
    m[:3, :3] = np.array([[0, 0, 1], [-1, 0, 0], [0, -1, 0]], dtype=float)
    m[:3, 3] = [x, 0.0, 1.0]
    return m


INTRINSICS = (40.0, 40.0, 23.5, 17.5)


def test_mesh_colours(context):
    """Left half of the image red, right half green: the wall's vertices are red on the left
    (world +y) and green on the right, every vertex one of the two or between them; the GPU's
    mesh and colours equal the CPU reference's."""
    meshes = []
    for backend in ("gpu", "cpu"):
        mapper = voxen.Mapper(resolution=0.05, context=context, backend=backend, layers=["tsdf", "tsdf_colour"])
        depth = wall_depth()
        color = np.zeros(depth.shape + (3,), dtype=np.uint8)
        color[:, : depth.shape[1] // 2] = (200, 0, 0)
        color[:, depth.shape[1] // 2 :] = (0, 180, 0)
        for k in range(3):
            mapper.integrate_depth(depth, INTRINSICS, pose(0.1 * k), truncation=3.0, color=color)
        mapper.integrate_depth(depth, INTRINSICS, pose(0.3), truncation=3.0)  # no colour: colours unchanged
        meshes.append(mapper.mesh())
    gpu, cpu = meshes
    for key in ("vertices", "normals", "faces", "colors"):
        np.testing.assert_array_equal(gpu[key], cpu[key])
    v, c = gpu["vertices"], gpu["colors"]
    assert c.dtype == np.uint8 and c.shape == (len(v), 3) and len(v) > 100
    assert (c[:, 2] == 0).all()
    left, right = v[:, 1] > 0.15, v[:, 1] < -0.15  # the optical x axis is world -y
    assert left.sum() > 20 and right.sum() > 20
    np.testing.assert_array_equal(np.unique(c[left], axis=0), [[200, 0, 0]])
    np.testing.assert_array_equal(np.unique(c[right], axis=0), [[0, 180, 0]])


def test_no_colour_layer(context):
    mapper = voxen.Mapper(resolution=0.05, context=context, backend="cpu", layers=["tsdf"])
    depth = wall_depth()
    mapper.integrate_depth(depth, INTRINSICS, pose(0.0))
    mesh = mapper.mesh()
    assert len(mesh["vertices"]) > 0
    assert mesh["colors"] is None
    color = np.zeros(depth.shape + (3,), dtype=np.uint8)
    with pytest.raises(voxen.Error, match="tsdf_colour"):
        mapper.integrate_depth(depth, INTRINSICS, pose(0.0), color=color)


def test_bad_colour_images(context):
    mapper = voxen.Mapper(resolution=0.05, context=context, backend="cpu", layers=["tsdf", "tsdf_colour"])
    depth = wall_depth()
    with pytest.raises(ValueError, match="color must be a uint8 image"):
        mapper.integrate_depth(depth, INTRINSICS, pose(0.0), color=np.zeros(depth.shape + (3,), dtype=np.float32))
    with pytest.raises(ValueError, match="color must be a uint8 image"):
        mapper.integrate_depth(depth, INTRINSICS, pose(0.0), color=np.zeros((depth.shape[0], depth.shape[1] - 1, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="color must be a uint8 image"):
        mapper.integrate_depth(depth, INTRINSICS, pose(0.0), color=np.zeros(depth.shape, dtype=np.uint8))
