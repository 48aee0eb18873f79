# Type stubs for the voxen package (the names come from the C++ extension voxen._voxen).
import os
from typing import Any, Callable, Iterable, Literal, Sequence, TypedDict, overload

import numpy as np
import numpy.typing as npt

_Points = npt.ArrayLike  # (N, 3) of real numbers: float32 and float64 as they are, integers converted
_Path = str | os.PathLike[str]

class Error(RuntimeError): ...
class SettingError(Error, ValueError): ...
class InputError(Error, ValueError): ...

class DeviceEntry(TypedDict):
    index: int
    name: str
    type: str
    driver: str
    usable: bool
    missing: str

def devices() -> list[DeviceEntry]: ...

class Context:
    def __init__(self, device: int | str | None = None, validation: bool = False) -> None: ...
    def open(self) -> None: ...
    @property
    def device_name(self) -> str: ...
    @property
    def validation_messages(self) -> list[str]: ...
    def clear_validation_messages(self) -> None: ...
    @property
    def memory_budget(self) -> int: ...

class IntegrationStats(TypedDict):
    rays: int
    clipped_rays: int
    rejected_rays: int
    batches: int

class MapperStats(TypedDict):
    rays: int
    clipped_rays: int
    rejected_rays: int
    batches: int
    voxel_updates: int
    dropped_updates: int
    occupied_voxels: int
    free_voxels: int
    regions: int

class CloudStats(IntegrationStats):
    points: int
    skipped_outside_trajectory: int

class ClearanceStats(TypedDict):
    regions: int
    seconds: float
    batches: int
    cache_regions: int
    sub_voxel: int

class Heightmap(TypedDict):
    height: npt.NDArray[np.float32]
    clearance: npt.NDArray[np.float32]
    slope: npt.NDArray[np.float32]
    cost: npt.NDArray[np.float32]
    virtual: npt.NDArray[np.float32]
    origin: tuple[float, float]
    resolution: float

class DepthStats(TypedDict):
    blocks: int

class ScanStats(TypedDict):
    rays: int
    rays_skipped: int
    blocks: int

class TsdfMesh(TypedDict):
    vertices: npt.NDArray[np.float32]
    normals: npt.NDArray[np.float32]
    faces: npt.NDArray[np.uint32]
    colors: npt.NDArray[np.uint8] | None

class Camera(TypedDict, total=False):
    eye: tuple[float, float, float]
    target: tuple[float, float, float]
    fov_degrees: float

class RayHits(TypedDict):
    hit: npt.NDArray[np.bool_]
    distance: npt.NDArray[np.float64]
    point: npt.NDArray[np.float64]
    voxel: npt.NDArray[np.int32]
    value: npt.NDArray[np.float32]
    status: npt.NDArray[np.str_]  # "observed", "unobserved", "out_of_range", "outside_map"
    # "class" is a keyword: read it as hits["class"] (npt.NDArray[np.int8]).

class OctomapExportCounts(TypedDict):
    voxels: int
    non_finite: int

class Mapper:
    def __init__(
        self,
        resolution: float = 0.1,
        region: int = 32,
        model: Literal["ohm", "octomap"] = "ohm",
        layers: Iterable[Literal["voxel_mean", "traversal", "hit_miss", "touch_time"]] = (),
        ndt: Literal["om", "tm"] | None = None,
        context: Context | None = None,
        backend: Literal["gpu", "cpu"] = "gpu",
    ) -> None: ...
    def integrate_rays(self, origins: _Points, ends: _Points) -> IntegrationStats: ...
    def sync(self) -> None: ...
    def stats(self) -> MapperStats: ...
    def integrate_cloud(self, points: _Points, times: npt.ArrayLike, trajectory: npt.ArrayLike) -> CloudStats: ...
    def occupancy(
        self, points: _Points, return_status: bool = False
    ) -> npt.NDArray[np.float32] | tuple[npt.NDArray[np.float32], npt.NDArray[np.str_]]: ...
    def classify(
        self, points: _Points, return_status: bool = False
    ) -> npt.NDArray[np.int8] | tuple[npt.NDArray[np.int8], npt.NDArray[np.str_]]: ...
    def raycast(
        self, origins: _Points, directions: _Points, max_range: float | npt.ArrayLike, unknown_blocks: bool = False
    ) -> RayHits: ...
    def compute_clearance(
        self,
        range: float,
        technique: Literal["exact", "roi", "neighbour", "openlist"] = "exact",
        unknown_free: bool = False,
        *,
        axis_scale: tuple[float, float, float] = (1.0, 1.0, 1.0),
        ignore_below: float | None = None,
        ignore_above: float | None = None,
    ) -> ClearanceStats: ...
    def heightmap(
        self,
        *,
        robot_height: float = 0.8,
        levels: int = 4,
        virtual_surfaces: bool = False,
        max_slope: float = 30.0,
        max_step: float = 0.2,
        clearance_margin: float | None = None,
        bbox: Sequence[float] | None = None,
    ) -> Heightmap: ...
    def integrate_depth(
        self,
        depth: npt.ArrayLike,
        intrinsics: Sequence[float],
        pose: npt.ArrayLike,
        *,
        depth_scale: float = 0.001,
        truncation: float = 4.0,
        max_weight: float = 64.0,
        weighting: Literal["constant", "linear_drop_off"] = "constant",
        max_range: float = 10.0,
        color: npt.ArrayLike | None = None,
    ) -> DepthStats: ...
    def integrate_cloud_tsdf(
        self,
        origins: _Points,
        ends: _Points,
        *,
        truncation: float = 4.0,
        max_weight: float = 64.0,
        weighting: Literal["constant", "linear_drop_off"] = "constant",
        max_range: float = 10.0,
    ) -> ScanStats: ...
    def mesh(self, *, min_weight: float = 0.0, bbox: Sequence[float] | None = None) -> TsdfMesh: ...
    @overload
    def clearance(
        self, points: _Points, gradient: Literal[False] = False, return_status: Literal[False] = False
    ) -> npt.NDArray[np.float32]: ...
    @overload
    def clearance(
        self, points: _Points, gradient: Literal[True], return_status: Literal[False] = False
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...
    @overload
    def clearance(self, points: _Points, gradient: bool = False, *, return_status: Literal[True]) -> tuple[Any, ...]: ...
    def voxels(
        self, kind: Literal["occupied", "free", "unknown"] = "occupied"
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float32]]: ...
    def voxels_in_box(
        self, lo: npt.ArrayLike, hi: npt.ArrayLike, kind: Literal["occupied", "free", "unknown"] = "occupied"
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float32]]: ...
    def sphere_collisions(
        self, points: _Points, radius: float, unknown: Literal["occupied", "free", "report"] = "occupied"
    ) -> dict[str, npt.NDArray[Any]]: ...
    def path_collisions(
        self, paths: Iterable[_Points], radius: float, unknown: Literal["occupied", "free", "report"] = "occupied"
    ) -> dict[str, npt.NDArray[Any]]: ...
    def box_collisions(
        self,
        centres: _Points,
        yaws: float | npt.ArrayLike,
        size: npt.ArrayLike,
        unknown: Literal["occupied", "free", "report"] = "occupied",
    ) -> dict[str, npt.NDArray[Any]]: ...
    def nearest_obstacles(self, points: _Points, max_range: float = 2.0) -> dict[str, npt.NDArray[Any]]: ...
    @property
    def bounds(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None: ...
    def slice(
        self, z: float, lo: npt.ArrayLike | None = None, hi: npt.ArrayLike | None = None
    ) -> npt.NDArray[np.int8]: ...
    def render(self, width: int, height: int, camera: Camera | None = None) -> npt.NDArray[np.uint8]: ...
    def save(self, path: _Path) -> None: ...
    def load(self, path: _Path) -> None: ...
    def snapshot(self) -> MapSnapshot: ...
    def latest_snapshot(self) -> MapSnapshot: ...
    def export_octomap(self, path: _Path) -> OctomapExportCounts: ...
    @property
    def resolution(self) -> float: ...
    @property
    def context(self) -> Context: ...

def load(path: _Path, context: Context | None = None, backend: Literal["gpu", "cpu"] = "gpu") -> Mapper: ...
def import_octomap(
    path: _Path, region: int = 32, context: Context | None = None, backend: Literal["gpu", "cpu"] = "gpu"
) -> Mapper: ...

@overload
def read_cloud(
    path: _Path, trajectory: _Path | None = None, origins: Literal[False] = False, *, cloud_topic: str | None = None,
    fixed_frame: str | None = None, sensor_frame: str | None = None, start: float = 0.0, duration: float | None = None,
    deskew: bool = True, pcd_viewpoint: Literal["origin", "pose"] | None = None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float32] | None]: ...
@overload
def read_cloud(
    path: _Path, trajectory: _Path | None = None, *, origins: Literal[True], cloud_topic: str | None = None,
    fixed_frame: str | None = None, sensor_frame: str | None = None, start: float = 0.0, duration: float | None = None,
    deskew: bool = True, pcd_viewpoint: Literal["origin", "pose"] | None = None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float32] | None, npt.NDArray[np.float64]]: ...

def map_file(
    input: _Path, output: _Path | None = None, *, store: _Path | None = None, session: str | None = None,
    resume: bool = False, checkpoint_s: float = 30.0, host_memory_mb: int | None = None, trajectory: _Path | None = None,
    resolution: float | None = None, region: int | None = None, model: Literal["ohm", "octomap"] = "ohm",
    hit: float | None = None, miss: float | None = None, threshold: float | None = None,
    clamp: tuple[float, float] | None = None, layers: Sequence[str] = (), ndt: Literal["om", "tm"] | None = None,
    backend: Literal["auto", "gpu", "cpu"] = "auto", update_order: Literal["sequential", "two-phase", "one-pass"] | None = None,
    batch_size: int | None = None, gpu_cache_mb: int | None = None, max_range: float = 0.0, min_range: float = 0.0,
    exclude_box: Sequence[float] | None = None, origin: Sequence[float] | None = None, end_point_as_free: bool = False,
    exclude_origin: bool = False, exclude_sample: bool = False, stop_on_occupied: bool = False, forward_walk: bool = False,
    threads: int | None = None, cloud_topic: str | None = None, fixed_frame: str | None = None,
    sensor_frame: str | None = None, start: float = 0.0, duration: float | None = None, deskew: bool = True,
    pcd_viewpoint: Literal["origin", "pose"] | None = None, clearance: float | None = None, decay_s: float | None = None,
    allow_empty: bool = False,
    progress: Callable[[str, int, int], object] | None = None, stop: Callable[[], bool] | None = None,
    context: Context | None = None
) -> dict[str, Any]: ...

class MapSnapshot:
    @property
    def version(self) -> int: ...
    def occupancy(
        self, points: _Points, return_status: bool = False
    ) -> npt.NDArray[np.float32] | tuple[npt.NDArray[np.float32], npt.NDArray[np.str_]]: ...
    def classify(
        self, points: _Points, return_status: bool = False
    ) -> npt.NDArray[np.int8] | tuple[npt.NDArray[np.int8], npt.NDArray[np.str_]]: ...
    def raycast(
        self, origins: _Points, directions: _Points, max_range: float | npt.ArrayLike = 5.0, unknown_blocks: bool = False
    ) -> RayHits: ...
    @overload
    def clearance(
        self, points: _Points, gradient: Literal[False] = False, return_status: Literal[False] = False
    ) -> npt.NDArray[np.float32]: ...
    @overload
    def clearance(
        self, points: _Points, gradient: Literal[True], return_status: Literal[False] = False
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...
    @overload
    def clearance(self, points: _Points, gradient: bool = False, *, return_status: Literal[True]) -> tuple[Any, ...]: ...
    def save(self, path: _Path) -> None: ...

class TransformTree:
    def __init__(self, context: Context | None = None, backend: Literal["gpu", "cpu"] = "gpu") -> None: ...
    @overload
    def add(self, parent: int | None, local: npt.ArrayLike) -> int: ...
    @overload
    def add(self, parent: int | npt.ArrayLike | None, local: npt.NDArray[np.number]) -> npt.NDArray[np.int64]: ...
    def set_local(self, ids: int | npt.ArrayLike, local: npt.ArrayLike) -> None: ...
    def set_parent(self, node: int, parent: int | None) -> None: ...
    def remove(self, node: int) -> None: ...
    def process(self) -> None: ...
    def world(self, ids: int | npt.ArrayLike | None = None) -> npt.NDArray[np.float32]: ...
    @property
    def capacity(self) -> int: ...
    @property
    def context(self) -> Context: ...

__all__ = ["Context", "Error", "InputError", "Mapper", "SettingError", "TransformTree", "devices", "import_octomap", "load", "map_file", "read_cloud"]
