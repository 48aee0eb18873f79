// Mapper.voxels and Mapper.bounds: the host map's voxels as NumPy arrays
// (every read syncs the map first, so the GPU's latest rays are in).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "py_mapper.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

struct VoxelBox {
  VoxelCoord min, max;  // inclusive
};

// The box of the observed voxels (free or occupied), in voxel coordinates.
std::optional<VoxelBox> observedBox(const OccupancyMap& map) {
  std::optional<VoxelBox> box;
  for (const auto& [key, region] : map.regions()) {
    const std::span<const float> values = region.occupancy();
    for (uint32_t i = 0; i < values.size(); ++i) {
      if (!isObserved(values[i])) continue;
      const VoxelCoord v = map.voxelOf(key, i);
      if (!box) box = VoxelBox{v, v};
      box->min = {std::min(box->min.x, v.x), std::min(box->min.y, v.y), std::min(box->min.z, v.z)};
      box->max = {std::max(box->max.x, v.x), std::max(box->max.y, v.y), std::max(box->max.z, v.z)};
    }
  }
  return box;
}

py::array_t<double> corner(const glm::dvec3& p) {
  auto a = newArray<double>(3);
  for (int c = 0; c < 3; ++c) a.mutable_data()[c] = p[c];
  return a;
}

py::object bounds(PyMapper& self) {
  std::optional<VoxelBox> box;
  double resolution = 0.0;
  {
    py::gil_scoped_release release;
    const OccupancyMap& map = self.mapper->map();
    resolution = map.model().resolution;
    box = observedBox(map);
  }
  if (!box) return py::none();
  const glm::dvec3 lo = glm::dvec3(box->min.x, box->min.y, box->min.z) * resolution;
  const glm::dvec3 hi = glm::dvec3(box->max.x + 1.0, box->max.y + 1.0, box->max.z + 1.0) * resolution;
  return py::make_tuple(corner(lo), corner(hi));
}

VoxelClass kindNamed(const std::string& kind) {
  if (kind == "occupied") return VoxelClass::Occupied;
  if (kind == "free") return VoxelClass::Free;
  if (kind == "unknown") return VoxelClass::Unobserved;
  throw py::value_error("kind must be \"occupied\", \"free\" or \"unknown\"; got \"" + kind + "\"");
}

py::tuple voxels(PyMapper& self, const std::string& kind) {
  const VoxelClass wanted = kindNamed(kind);
  std::vector<std::pair<VoxelCoord, float>> found;
  double resolution = 0.0;
  {
    py::gil_scoped_release release;
    const OccupancyMap& map = self.mapper->map();
    resolution = map.model().resolution;
    for (const auto& [key, region] : map.regions()) {
      const std::span<const float> values = region.occupancy();
      for (uint32_t i = 0; i < values.size(); ++i) {
        if (map.classify(values[i]) == wanted) found.emplace_back(map.voxelOf(key, i), values[i]);
      }
    }
    // The order of a C-order array indexed [z, y, x] (and of the engine's box queries):
    // independent of how the map stores its regions.
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
      const VoxelCoord &p = a.first, &q = b.first;
      return p.z != q.z ? p.z < q.z : p.y != q.y ? p.y < q.y : p.x < q.x;
    });
  }
  auto centres = newArray<double>(found.size(), 3);
  auto values = newArray<float>(found.size());
  double* c = centres.mutable_data();
  float* v = values.mutable_data();
  for (size_t i = 0; i < found.size(); ++i) {
    const VoxelCoord& k = found[i].first;
    c[3 * i + 0] = (k.x + 0.5) * resolution;  // as OccupancyMap::voxelCentre
    c[3 * i + 1] = (k.y + 0.5) * resolution;
    c[3 * i + 2] = (k.z + 0.5) * resolution;
    v[i] = valueOrNaN(found[i].second);
  }
  return py::make_tuple(centres, values);
}

}  // namespace

void bindMapperVoxels(MapperClass& mapperClass) {
  mapperClass
      .def("voxels", &voxels, py::arg("kind") = "occupied", R"doc(
The voxels of one class: a tuple of their (K, 3) float64 centres and (K,) float32 values.

kind: "occupied", "free" (observed, below the occupancy threshold) or "unknown": the
voxels no ray touched inside the regions the map holds (the map's dense blocks, 32^3
voxels each by default, around what was observed), with NaN values. Values are log-odds.
Sorted by z, then y, then x (the order of a C-order array indexed [z, y, x]).
)doc")
      .def_property_readonly("bounds", &bounds, R"doc(
The box of the observed (free or occupied) voxels: a tuple (lo, hi) of (3,) float64
arrays in metres, on voxel edges (lo is the lowest voxel's lower corner, hi the highest
voxel's upper corner), or None when no voxel is observed.
)doc");
}

}  // namespace voxen::python
