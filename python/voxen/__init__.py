"""Voxen from Python: GPU occupancy mapping on any Vulkan device, NumPy in and out.

    import numpy as np, voxen
    mapper = voxen.Mapper(resolution=0.1)
    mapper.integrate_rays(origins, ends)        # (N, 3) arrays of real numbers (float or integer)
    values = mapper.occupancy(points)           # (N,) float32 log-odds, NaN where unobserved
    mapper.save("map.vxm")

Threads: a Context, with every Mapper and TransformTree on it, is used by one thread at a
time; a call from a second thread while another runs raises voxen.Error naming the rule.
Mappers made without context= share the default Context; give each thread its own
voxen.Context to map in parallel (help(voxen.Context) says more). The exception is
voxen.MapSnapshot: while one thread maps (mapper.snapshot() publishes what it has), any
number of threads query mapper.latest_snapshot() at the same time.

The names below come from the extension module ``voxen._voxen`` (C++, pybind11); this
package re-exports them so that programs import ``voxen`` only.
"""
from ._voxen import (  # noqa: F401
    Context,
    Error,
    InputError,
    MapSnapshot,
    Mapper,
    SettingError,
    TransformTree,
    devices,
    import_octomap,
    load,
    map_file,
    read_cloud,
)

__all__ = ["Context", "Error", "InputError", "MapSnapshot", "Mapper", "SettingError", "TransformTree", "devices", "import_octomap", "load", "map_file", "read_cloud"]
