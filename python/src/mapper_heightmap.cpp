// Mapper.heightmap: the surfaces a robot can stand on per 2D column (voxen/heightmap), as
// NumPy arrays per level.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>
#include <vector>

#include "py_mapper.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

// A float32 (levels, rows, columns) array of `value(level, x, y)`.
template <class Value>
py::array_t<float> perCell(const Heightmap& hm, Value&& value) {
  py::array_t<float> out({size_t(hm.levels()), size_t(hm.height()), size_t(hm.width())});
  auto view = out.mutable_unchecked<3>();
  for (uint32_t level = 0; level < hm.levels(); ++level)
    for (uint32_t y = 0; y < hm.height(); ++y)
      for (uint32_t x = 0; x < hm.width(); ++x) view(level, y, x) = float(value(level, x, y));
  return out;
}

py::dict heightmap(PyMapper& self, double robotHeight, uint32_t levels, bool virtualSurfaces, double maxSlope, double maxStep,
                   std::optional<double> clearanceMargin, std::optional<std::vector<double>> bbox) {
  HeightmapOptions options;
  options.robotHeight = robotHeight;
  options.levels = levels;
  options.virtualSurfaces = virtualSurfaces;
  options.maxSlopeDegrees = maxSlope;
  options.maxStep = maxStep;
  options.clearanceMargin = clearanceMargin;
  if (bbox) {
    if (bbox->size() != 6) throw py::value_error("bbox must be six numbers (xmin, ymin, zmin, xmax, ymax, zmax)");
    const std::vector<double>& b = *bbox;
    options.box = HeightmapBox{{b[0], b[1], b[2]}, {b[3], b[4], b[5]}};
  }
  Heightmap hm;
  {
    py::gil_scoped_release release;
    hm = self.mapper->heightmap(options);
  }
  py::dict result;
  result["height"] = perCell(hm, [&](uint32_t l, uint32_t x, uint32_t y) { return hm.heightMetres(l, x, y); });
  result["clearance"] = perCell(hm, [&](uint32_t l, uint32_t x, uint32_t y) { return hm.clearanceMetres(l, x, y); });
  result["slope"] = perCell(hm, [&](uint32_t l, uint32_t x, uint32_t y) { return hm.slopeDegrees(l, x, y); });
  result["cost"] = perCell(hm, [&](uint32_t l, uint32_t x, uint32_t y) { return double(hm.cell(l, x, y).cost); });
  result["virtual"] = perCell(hm, [&](uint32_t l, uint32_t x, uint32_t y) {
    return (hm.cell(l, x, y).flags & gpu::kLevelVirtual) != 0 ? 1.0 : 0.0;
  });
  result["origin"] = py::make_tuple(hm.columnMinX(0), hm.rowMinY(0));
  result["resolution"] = hm.resolution();
  return result;
}

}  // namespace

void bindMapperHeightmap(MapperClass& mapperClass) {
  mapperClass.def("heightmap", onContext("Mapper.heightmap", &heightmap), py::kw_only(), py::arg("robot_height") = 0.8,
                  py::arg("levels") = 4, py::arg("virtual_surfaces") = false, py::arg("max_slope") = 30.0,
                  py::arg("max_step") = 0.2, py::arg("clearance_margin") = py::none(), py::arg("bbox") = py::none(), R"doc(
The ground a robot drives on, as `voxen heightmap` computes it: per 2D column (x, y) of the
map, every surface a robot of robot_height metres can stand on (an occupied voxel with at
least that much room above it up to the next occupied one), the lowest `levels` of them
(1..8) ordered by height, so a bridge or a second floor gives several levels.

virtual_surfaces: unknown voxels under observed free ones count as surfaces (flagged).
max_slope (degrees) and max_step (metres): steeper or higher steps to a neighbour are lethal.
clearance_margin (metres, default robot_height / 2): room beyond the robot's height below
which the cost rises. bbox: (xmin, ymin, zmin, xmax, ymax, zmax) metres, only the columns
and voxels whose centres lie inside. On the GPU, or with backend="cpu" the CPU reference
(the same values). A setting that cannot work raises voxen.SettingError naming it.

Incremental: a call with the same settings as the last computes again only the map's region
columns that changed since (each scan's), so calling it after every scan keeps a live
heightmap cheaply; new settings compute it whole.

Returns a dict of float32 arrays shaped (levels, rows, columns), row = y, column = x:
height (world z in metres of the surface), clearance (metres of room above it, inf when
nothing lies above), slope (degrees), cost (0..100, 254 lethal, 255 no level), virtual
(1 for virtual surfaces); NaN where a column has no such level. And origin (x, y of the
lower corner of column 0, row 0, metres) and resolution (metres per cell).
)doc");
}

}  // namespace voxen::python
