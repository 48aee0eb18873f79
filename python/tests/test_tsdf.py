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
