// Mapper.voxels, Mapper.bounds and Mapper.slice: the host map's voxels as NumPy arrays
// (every read syncs the map first, so the GPU's latest rays are in).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <glm/vec2.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "py_mapper.hpp"
#include "voxen/map/decimal_voxel.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

py::array_t<double> corner(const glm::dvec3& p) {
  auto a = newArray<double>(3);
  for (int c = 0; c < 3; ++c) a.mutable_data()[c] = p[c];
  return a;
}

// Mapper::bounds(): the box of the observed voxels, in metres on voxel edges.
py::object bounds(PyMapper& self) {
  std::optional<MapBounds> box;
  {
    py::gil_scoped_release release;
    box = self.mapper->bounds();
  }
  if (!box) return py::none();
  return py::make_tuple(corner(box->min), corner(box->max));
}

VoxelClass kindNamed(const std::string& kind) {
  if (kind == "occupied") return VoxelClass::Occupied;
  if (kind == "free") return VoxelClass::Free;
  if (kind == "unknown") return VoxelClass::Unobserved;
  throw py::value_error("kind must be \"occupied\", \"free\" or \"unknown\"; got \"" + kind + "\"");
}

// (centres, values) of voxels already in voxels()'s order (z, then y, then x).
py::tuple centresAndValues(const std::vector<std::pair<VoxelCoord, float>>& found, double resolution) {
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
  return centresAndValues(found, resolution);
}

// A box corner: 3 numbers (x, y, z) in metres, finite.
glm::dvec3 boxCorner(const py::object& corner, const char* argument) {
  std::vector<double> values;
  if (!py::isinstance<py::str>(corner)) {
    const py::array given = py::array::ensure(corner);
    if (given && given.ndim() == 1 && given.shape(0) == 3 && holdsRealNumbers(given))
      values = floatOrConverted(given).attr("tolist")().cast<std::vector<double>>();
    PyErr_Clear();
  }
  if (values.size() != 3)
    throw py::value_error(std::string(argument) + " must be 3 numbers (x, y, z) in metres; got " +
                          py::repr(corner).cast<std::string>());
  for (int a = 0; a < 3; ++a)
    if (!std::isfinite(values[a]))
      throw py::value_error(std::string(argument) + "[" + std::to_string(a) + "] is " + std::to_string(values[a]) +
                            ": a box corner must be finite");
  return {values[0], values[1], values[2]};
}

// The engine's batched box query (on the GPU, or on the host for a small box), with each
// voxel's value read from the synced host map it answered from.
py::tuple voxelsInBox(PyMapper& self, const py::object& loArg, const py::object& hiArg, const std::string& kind) {
  const VoxelClass wanted = kindNamed(kind);
  QueryBox box{boxCorner(loArg, "lo"), boxCorner(hiArg, "hi")};
  for (int a = 0; a < 3; ++a)
    if (box.min[a] > box.max[a])
      throw py::value_error(std::string("lo[") + std::to_string(a) + "] " + std::to_string(box.min[a]) + " is above hi[" +
                            std::to_string(a) + "] " + std::to_string(box.max[a]) + ": lo is the box's lower corner");
  std::vector<std::pair<VoxelCoord, float>> found;
  double resolution = 0.0;
  {
    py::gil_scoped_release release;
    BoxVoxels inside;
    try {
      inside = self.mapper->voxelsInBox(box, wanted);
    } catch (const QueryInputError& e) {
      throw QueryInputError(e.index(), std::string("voxels_in_box(lo, hi): ") + e.what());
    }
    const OccupancyMap& map = self.mapper->map();
    resolution = map.model().resolution;
    found.reserve(inside.voxels.size());
    for (const VoxelCoord& v : inside.voxels) found.emplace_back(v, map.value(v));
  }
  return centresAndValues(found, resolution);
}

// A window corner: 2 numbers (x, y), or 3 (a bounds corner; its z is not used).
glm::dvec2 windowCorner(const py::object& corner, const char* argument) {
  std::vector<double> values;
  try {
    values = py::array_t<double, py::array::forcecast>::ensure(corner).cast<std::vector<double>>();
  } catch (const py::cast_error&) {
    values.clear();
  }
  if (values.size() != 2 && values.size() != 3) {
    throw py::value_error(std::string(argument) + " must be 2 numbers (x, y) or 3 (x, y, z; z is not used); got " +
                          py::repr(corner).cast<std::string>());
  }
  if (std::isnan(values[0]) || std::isnan(values[1])) throw py::value_error(std::string(argument) + " is NaN");
  return {values[0], values[1]};
}

// Voxel indices of the first and last voxel centre within [lo, hi] along one axis: a
// voxel-aligned corner (bounds) lies half a voxel from the nearest centre, so rounding in
// the division never moves it by a voxel.
std::pair<int64_t, int64_t> centresWithin(double lo, double hi, double resolution, const char* axis) {
  const double limit = double(int64_t(1) << 30);
  const double first = std::ceil(lo / resolution - 0.5), last = std::floor(hi / resolution - 0.5);
  if (!(std::abs(first) <= limit && std::abs(last) <= limit))
    throw py::value_error(std::string("slice: the window along ") + axis + " is past the map's voxel range");
  if (last < first)
    throw py::value_error(std::string("slice: the window holds no voxel centre along ") + axis + " (lo " +
                          std::to_string(lo) + ", hi " + std::to_string(hi) + ")");
  return {int64_t(first), int64_t(last)};
}

constexpr uint64_t kMaxSliceCells = uint64_t(1) << 28;

py::array_t<int8_t> slice(PyMapper& self, double z, const py::object& loArg, const py::object& hiArg) {
  if (std::isnan(z)) throw py::value_error("z is NaN");
  std::optional<glm::dvec2> lo, hi;
  if (!loArg.is_none()) lo = windowCorner(loArg, "lo");
  if (!hiArg.is_none()) hi = windowCorner(hiArg, "hi");
  const OccupancyMap* mapPointer = nullptr;
  std::optional<MapBounds> observed;
  {
    py::gil_scoped_release release;
    mapPointer = &self.mapper->map();
    if (!lo || !hi) observed = self.mapper->bounds();
  }
  const OccupancyMap& map = *mapPointer;
  const double res = map.model().resolution;
  if ((!lo || !hi) && !observed)
    throw py::value_error("slice: the map has no observed voxel to frame: give lo and hi");
  if (!lo) lo = glm::dvec2(observed->min.x, observed->min.y);
  if (!hi) hi = glm::dvec2(observed->max.x, observed->max.y);
  if (!(std::abs(z / res) <= double(int64_t(1) << 30))) throw py::value_error("z is past the map's voxel range");
  const auto [x0, x1] = centresWithin(lo->x, hi->x, res, "x");
  const auto [y0, y1] = centresWithin(lo->y, hi->y, res, "y");
  const uint64_t width = uint64_t(x1 - x0 + 1), height = uint64_t(y1 - y0 + 1);
  if (width * height > kMaxSliceCells)
    throw py::value_error("slice: the window is " + std::to_string(width) + " x " + std::to_string(height) +
                          " voxels, more than " + std::to_string(kMaxSliceCells) + ": choose a smaller lo/hi");
  auto classes = py::array_t<int8_t>({py::ssize_t(height), py::ssize_t(width)});
  int8_t* out = classes.mutable_data();
  {
    py::gil_scoped_release release;
    std::fill(out, out + width * height, int8_t(-1));
    const int32_t n = map.regionSize();
    const int32_t layer = int32_t(voxelIndexOfDecimal(z, res));  // as `voxen export --slice-png --z`: 0.3 m is layer 3 at 0.1 m
    const int32_t regionZ = floorDiv(layer, n), localZ = layer - regionZ * n;
    for (const auto& [key, region] : map.regions()) {
      if (key.z != regionZ) continue;
      const int64_t rx = int64_t(key.x) * n, ry = int64_t(key.y) * n;
      const int64_t xa = std::max(x0, rx), xb = std::min(x1, rx + n - 1);
      const int64_t ya = std::max(y0, ry), yb = std::min(y1, ry + n - 1);
      const std::span<const float> values = region.occupancy();
      for (int64_t y = ya; y <= yb; ++y) {
        for (int64_t x = xa; x <= xb; ++x) {
          const float value = values[size_t((x - rx) + n * ((y - ry) + int64_t(n) * localZ))];
          out[uint64_t(y - y0) * width + uint64_t(x - x0)] = classCode(map.classify(value));
        }
      }
    }
  }
  return classes;
}

}  // namespace

void bindMapperVoxels(MapperClass& mapperClass) {
  mapperClass
      .def("voxels", onContext("Mapper.voxels", &voxels), py::arg("kind") = "occupied", R"doc(
The voxels of one class: a tuple of their (K, 3) float64 centres and (K,) float32 values.

kind: "occupied", "free" (observed, below the occupancy threshold) or "unknown": the
voxels no ray touched inside the regions the map holds (the map's dense blocks, 32^3
voxels each by default, around what was observed), with NaN values. Values are log-odds.
Sorted by z, then y, then x (the order of a C-order array indexed [z, y, x]).
)doc")
      .def("voxels_in_box", onContext("Mapper.voxels_in_box", &voxelsInBox), py::arg("lo"), py::arg("hi"),
           py::arg("kind") = "occupied", R"doc(
The voxels of one class inside an axis-aligned box, as voxels() gives them: a tuple of
their (K, 3) float64 centres and (K,) float32 values (log-odds; NaN for unknown ones),
sorted by z, then y, then x.

lo, hi: the box's lower and upper corners, 3 numbers (x, y, z) in metres each (lo <= hi on
every axis). Every voxel holding a point of the box is in it, faces included: a corner on
a voxel edge takes the voxel above the edge too. kind: "occupied", "free" or "unknown" (here
every voxel of the box no ray touched, in a region the map holds or not). The engine's
batched query: on the GPU, or on the synced host map for a box of at most 512 voxels, the
same voxels either way. A box of more than 2^28 voxels raises voxen.InputError (a ValueError).
)doc")
      .def_property_readonly("bounds", onContext("Mapper.bounds", &bounds), R"doc(
The box of the observed (free or occupied) voxels (the C++ Mapper::bounds()): a tuple
(lo, hi) of (3,) float64 arrays in metres, on voxel edges (lo is the lowest voxel's lower
corner, hi the highest voxel's upper corner), or None when no voxel is observed. A slice plots with
plt.imshow(mapper.slice(z), origin="lower", extent=(lo[0], hi[0], lo[1], hi[1])).
)doc")
      .def("slice", onContext("Mapper.slice", &slice),
           py::arg("z"), py::arg("lo") = py::none(), py::arg("hi") = py::none(), R"doc(
The classes of one horizontal layer of voxels: a 2D int8 array, -1 unknown, 0 free,
1 occupied, indexed [row, column] = [y, x] with row 0 at the lowest y (plot it with
origin="lower").

z: a height in metres; the layer is the voxels holding it (as `voxen export --slice-png
--z`). The window covers the voxels whose centres lie within lo..hi in x and y: lo and hi
are 2 numbers (x, y) or 3 (a bounds corner, whose z is not used), by default the map's
bounds, so every slice of a map has the same shape and extent. Column i is the voxel
centred at x = lo[0] + (i + 0.5) * resolution when lo is on a voxel edge (bounds are).
Raises ValueError for a NaN, a window with no voxel centre or one over 2^28 voxels, and
when the map has no observed voxel and no window is given.
)doc");
}

}  // namespace voxen::python
