"""Mapper.integrate_depth: depth frames into the TSDF layer, the GPU's map equal to the CPU
reference's byte for byte, and bad frames refused naming the argument."""
import json
import subprocess

import numpy as np
import pytest

import voxen


def wall_frame(width=48, height=36, f=40.0, wall=2.0):
    """A wall `wall` metres in front of the camera, tilted: depth grows with the column."""
    u = np.arange(width)[None, :].repeat(height, 0)
    depth = wall + 0.01 * (u - width / 2)
    return depth


def pose(x):
    """The optical frame looking along world +x from (x, 0, 1)."""
    m = np.eye(4)
    m[:3, :3] = np.array([[0, 0, 1], [-1, 0, 0], [0, -1, 0]], dtype=float)
    m[:3, 3] = [x, 0.0, 1.0]
    return m


def integrate(mapper, float_images):
    for k in range(3):
        depth = wall_frame()
        image = depth.astype(np.float32) if float_images else np.round(depth * 1000).astype(np.uint16)
        stats = mapper.integrate_depth(image, (40.0, 40.0, 23.5, 17.5), pose(0.1 * k), truncation=3.0)
        assert stats["blocks"] > 0


@pytest.mark.parametrize("float_images", [False, True])
def test_gpu_equals_cpu(context, tmp_path, voxen_cli, float_images):
    paths = []
    for backend in ("gpu", "cpu"):
        mapper = voxen.Mapper(resolution=0.05, context=context, backend=backend, layers=["tsdf"])
        integrate(mapper, float_images)
        mapper.save(tmp_path / f"{backend}.vxm")
        paths.append(tmp_path / f"{backend}.vxm")
    assert paths[0].read_bytes() == paths[1].read_bytes()
    info = subprocess.run([voxen_cli, "info", str(paths[0]), "--json"], capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert "tsdf" in json.loads(info.stdout)["layer_names"]


def test_bad_frames(context):
    mapper = voxen.Mapper(resolution=0.05, context=context)
    depth = np.ones((8, 8), dtype=np.float32)
    with pytest.raises(ValueError, match="depth must be uint16"):
        mapper.integrate_depth(depth.astype(np.int32), (8, 8, 4, 4), pose(0))
    with pytest.raises(ValueError, match="intrinsics"):
        mapper.integrate_depth(depth, (8, 8, 4), pose(0))
    with pytest.raises(ValueError, match="not a rotation"):
        mapper.integrate_depth(depth, (8, 8, 4, 4), 2 * pose(0))
    with pytest.raises(voxen.SettingError, match="truncation"):
        mapper.integrate_depth(depth, (8, 8, 4, 4), pose(0), truncation=0.5)
    mapper.integrate_depth(depth, (8, 8, 4, 4), pose(0))
    with pytest.raises(voxen.SettingError, match="truncation_voxels=4"):
        mapper.integrate_depth(depth, (8, 8, 4, 4), pose(0), truncation=6.0)


def test_mesh_of_a_wall(context):
    """The mesh of the wall: the GPU's equals the CPU reference's, and a second call (nothing
    changed) gives the same; near the image's centre the vertices lie about 2 m ahead of the
    cameras (x 2.0-2.2: the three frames put the same image 0.1 m apart) and the normals face
    them (-x)."""
    meshes = []
    for backend in ("gpu", "cpu"):
        mapper = voxen.Mapper(resolution=0.05, context=context, backend=backend)
        integrate(mapper, float_images=True)
        meshes.append(mapper.mesh())
        again = mapper.mesh()  # nothing changed: the same mesh
        np.testing.assert_array_equal(again["vertices"], meshes[-1]["vertices"])
    gpu, cpu = meshes
    for key in ("vertices", "normals", "faces"):
        np.testing.assert_array_equal(gpu[key], cpu[key])
    v, n, f = gpu["vertices"], gpu["normals"], gpu["faces"]
    assert v.dtype == np.float32 and v.shape[1] == 3 and len(v) > 100
    assert f.dtype == np.uint32 and f.shape[1] == 3 and f.max() < len(v)
    centre = np.abs(v[:, 1]) < 0.2
    assert 1.95 < np.median(v[centre, 0]) < 2.25
    assert np.median(n[centre, 0]) < -0.9


def test_clearance_from_the_surface(context):
    """A TSDF map's clearance measures from its surface: a point in the band in front of the
    wall (about 2 m ahead of the cameras) is a few voxels from an obstacle, on the GPU and the
    CPU alike."""
    answers, refined = [], []
    for backend in ("gpu", "cpu"):
        mapper = voxen.Mapper(resolution=0.05, context=context, backend=backend)
        integrate(mapper, float_images=True)
        stats = mapper.compute_clearance(range=1.0, unknown_free=True)
        assert stats["sub_voxel"] > 0  # the wall's band: sub-voxel distances from the TSDF
        refined.append(stats["sub_voxel"])
        answers.append(float(mapper.clearance(np.array([[1.9, 0.0, 1.0]]))[0]))
    assert 0.02 < answers[0] < 0.45, answers
    assert answers[0] == answers[1]
    assert refined[0] == refined[1]
