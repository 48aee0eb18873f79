#pragma once
// voxen.Mapper's C++ side, shared by the files that bind its methods (mapper.cpp makes the
// class; each mapper_*.cpp adds one group of methods to it).
#include <pybind11/pybind11.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>

#include "context.hpp"
#include "voxen/mapper.hpp"

namespace voxen::python {

// The Mapper and the Context it runs on, kept alive together. Its methods hold the Context
// for their call (context_use.hpp: one thread at a time); freeing the engine's Mapper, which
// frees GPU memory through the Context, waits until no other thread holds it.
struct PyMapper {
  explicit PyMapper(std::shared_ptr<PyContext> on) : context(std::move(on)) {}
  PyMapper(PyMapper&&) = default;
  PyMapper& operator=(PyMapper&&) = delete;
  ~PyMapper();

  std::shared_ptr<PyContext> context;
  std::unique_ptr<voxen::Mapper> mapper;
};

using MapperClass = pybind11::class_<PyMapper>;

// A str or os.PathLike as a filesystem path (through os.fspath, as open() does).
std::filesystem::path pathOf(const pybind11::handle& path);

// "gpu" or "cpu" (the CPU reference) as the engine's backend; ValueError for anything else.
MapperBackend backendNamed(const std::string& name);
// None, "om" or "tm" as the NDT mode; ValueError for anything else.
NdtMode ndtNamed(const pybind11::object& ndt);
// Layer names ("voxel_mean", "traversal", "hit_miss", "touch_time") as a set; ValueError for
// others and for a str given instead of a sequence.
LayerSet layersNamed(const pybind11::iterable& names);

// Each group of Mapper methods (and the module functions that make Mappers) in its own file,
// registered by bindMapper.
void bindMapperOctomap(pybind11::module_& m, MapperClass& mapperClass);
// What the host's integration counts gained between two readings of
// Mapper::submittedStats() (which waits for nothing), as the dict the integrate_* methods
// return: rays, clipped_rays, rejected_rays, batches. Mapper.stats() has the GPU's counts.
pybind11::dict submittedDelta(const IntegrationStats& before, const IntegrationStats& after);

// The groups of methods bound outside mapper.cpp, one file each.
void bindMapperCloud(MapperClass& mapperClass);      // mapper_cloud.cpp: integrate_cloud
void bindMapperClearance(MapperClass& mapperClass);  // mapper_clearance.cpp: compute_clearance, clearance
void bindMapperHeightmap(MapperClass& mapperClass);  // mapper_heightmap.cpp: heightmap
void bindMapperDepth(MapperClass& mapperClass);      // mapper_depth.cpp: integrate_depth, mesh
void bindMapperVoxels(MapperClass& mapperClass);     // mapper_voxels.cpp: voxels, bounds, slice
void bindMapperRender(MapperClass& mapperClass);     // mapper_render.cpp: render
void bindMapperCollision(MapperClass& mapperClass);  // mapper_collision.cpp: sphere/path/box collisions, nearest
// map_snapshot.cpp: voxen.MapSnapshot, Mapper.snapshot, Mapper.latest_snapshot
void bindMapSnapshot(pybind11::module_& m, MapperClass& mapperClass);

// A voxel class as Python sees it: -1 unknown, 0 free, 1 occupied.
inline int8_t classCode(VoxelClass voxelClass) {
  switch (voxelClass) {
    case VoxelClass::Free: return 0;
    case VoxelClass::Occupied: return 1;
    default: return -1;
  }
}

// The engine's "never observed" sentinel as NaN, so NumPy code tests it with isnan.
inline float valueOrNaN(float value) {
  return value == kUnobserved ? std::numeric_limits<float>::quiet_NaN() : value;
}

// The engine names a bad query item by its index in the batch; the caller knows it by the
// argument it came in, so the message says both ("points[3]: ...").
template <typename Query>
auto namingItems(const char* argument, Query&& query) {
  try {
    return query();
  } catch (const QueryInputError& e) {
    throw QueryInputError(e.index(), std::string(argument) + "[" + std::to_string(e.index()) + "]: " + e.what());
  }
}

}  // namespace voxen::python
