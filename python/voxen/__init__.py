"""Voxen from Python: GPU occupancy mapping on any Vulkan device, NumPy in and out.

    import numpy as np, voxen
    mapper = voxen.Mapper(resolution=0.1)
    mapper.integrate_rays(origins, ends)        # (N, 3) float32 or float64 arrays
    values = mapper.occupancy(points)           # (N,) float32 log-odds, NaN where unobserved
    mapper.save("map.vxm")

The names below come from the extension module ``voxen._voxen`` (C++, pybind11); this
package re-exports them so that programs import ``voxen`` only.
"""
from ._voxen import (  # noqa: F401
    Context,
    Error,
    InputError,
    Mapper,
    SettingError,
    TransformTree,
    devices,
    import_octomap,
    load,
    read_cloud,
)

__all__ = ["Context", "Error", "InputError", "Mapper", "SettingError", "TransformTree", "devices", "import_octomap", "load", "read_cloud"]
