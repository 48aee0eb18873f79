"""Mapper.integrate_cloud_tsdf: lidar scans into the TSDF layer by ray integration, the GPU's map
equal to the CPU reference's byte for byte, its mesh on the wall the rays hit, and bad arguments
refused naming them."""
import numpy as np
import pytest

import voxen


def wall_scan(x, n=41, wall=2.0):
    """Rays from (x, 0, 1) in a cone to the wall x = wall."""
    i, j = np.meshgrid(np.linspace(-0.6, 0.6, n), np.linspace(-0.5, 0.5, n))
    directions = np.stack([np.ones(i.size), i.ravel(), j.ravel()], axis=1)
    origins = np.tile([x, 0.0, 1.0], (i.size, 1))
    ends = origins + directions * ((wall - x) / directions[:, :1])
    return origins, ends


def test_gpu_equals_cpu_and_the_mesh_lies_on_the_wall(context, tmp_path):
    paths, meshes = [], []
    for backend in ("gpu", "cpu"):
        mapper = voxen.Mapper(resolution=0.05, context=context, backend=backend, layers=["tsdf"])
        for k in range(3):
            stats = mapper.integrate_cloud_tsdf(*wall_scan(0.1 * k), truncation=3.0)
            assert stats["rays"] == 41 * 41 and stats["rays_skipped"] == 0 and stats["blocks"] > 0
        mapper.save(tmp_path / f"{backend}.vxm")
        paths.append(tmp_path / f"{backend}.vxm")
        meshes.append(mapper.mesh())
    assert paths[0].read_bytes() == paths[1].read_bytes()
    v = meshes[0]["vertices"]
    assert len(v) > 200
    inside = (np.abs(v[:, 1]) < 0.5) & (np.abs(v[:, 2] - 1.0) < 0.4)
    assert np.abs(v[inside, 0] - 2.0).max() < 0.0125  # a quarter of a voxel


def test_bad_arguments(context):
    mapper = voxen.Mapper(resolution=0.05, context=context)
    origins, ends = wall_scan(0.0, n=3)
    with pytest.raises(ValueError, match="origins"):
        mapper.integrate_cloud_tsdf(origins[:, :2], ends)
    with pytest.raises(ValueError):
        mapper.integrate_cloud_tsdf(origins, ends[:4])
    with pytest.raises(ValueError, match="weighting"):
        mapper.integrate_cloud_tsdf(origins, ends, weighting="gaussian")
    with pytest.raises(voxen.SettingError, match="truncation"):
        mapper.integrate_cloud_tsdf(origins, ends, truncation=0.5)
    far = mapper.integrate_cloud_tsdf(origins, ends, max_range=1.0)  # every ray beyond the range
    assert far["rays"] == 0 and far["rays_skipped"] == 9
