// Mapper.compute_clearance and Mapper.clearance: the clearance layer (each voxel's distance
// to the nearest obstacle) and trilinear samples of it with their gradients.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "py_mapper.hpp"
#include "query_answers.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

ClearanceTechnique techniqueNamed(const std::string& name) {
  for (ClearanceTechnique t : {ClearanceTechnique::Exact, ClearanceTechnique::Roi, ClearanceTechnique::Neighbour,
                               ClearanceTechnique::OpenList}) {
    if (name == clearanceTechniqueName(t)) return t;
  }
  throw py::value_error("technique must be \"exact\", \"roi\", \"neighbour\" or \"openlist\"; got \"" + name + "\"");
}

glm::dvec3 axisScaleOf(const py::object& scale) {
  std::vector<double> values;
  try {
    values = scale.cast<std::vector<double>>();
  } catch (const py::cast_error&) {
    values.clear();
  }
  if (values.size() != 3) {
    throw py::value_error("axis_scale must be three numbers (x, y, z); got " + py::repr(scale).cast<std::string>());
  }
  return {values[0], values[1], values[2]};
}

py::dict computeClearance(PyMapper& self, double range, const std::string& technique, bool unknownFree,
                          const py::object& axisScale, std::optional<double> ignoreBelow, std::optional<double> ignoreAbove) {
  ClearanceOptions options;
  options.range = range;
  options.technique = techniqueNamed(technique);
  options.unknownFree = unknownFree;
  options.axisScale = axisScaleOf(axisScale);
  options.ignoreBelow = ignoreBelow;
  options.ignoreAbove = ignoreAbove;
  // The CPU reference always computes the exact distances: another technique asked of it
  // would silently not be what ran.
  if (self.mapper->runOptions().backend == MapperBackend::CpuReference && options.technique != ClearanceTechnique::Exact) {
    throw py::value_error("technique \"" + technique + "\" has no effect with backend=\"cpu\" (the CPU reference is "
                          "always exact): give technique=\"exact\" or use backend=\"gpu\"");
  }
  ClearanceStats stats;
  {
    py::gil_scoped_release release;
    stats = self.mapper->computeClearance(options);
  }
  py::dict result;
  result["regions"] = stats.regions;
  result["seconds"] = stats.seconds;
  result["batches"] = stats.batches;
  result["cache_regions"] = stats.cacheRegions;
  result["sub_voxel"] = stats.subVoxelRefined;
  return result;
}

py::object clearance(PyMapper& self, const py::object& points, bool gradient, bool returnStatus) {
  Points3 queried(points, "points");
  std::vector<ClearanceSample> samples;
  {
    py::gil_scoped_release release;
    samples = namingItems("points", [&] { return self.mapper->clearance(queried.span()); });
  }
  return clearanceResult(samples, gradient, returnStatus);
}

}  // namespace

void bindMapperClearance(MapperClass& mapperClass) {
  mapperClass
      .def("compute_clearance", onContext("Mapper.compute_clearance", &computeClearance),
           py::arg("range"), py::arg("technique") = "exact",
           py::arg("unknown_free") = false, py::kw_only(), py::arg("axis_scale") = py::make_tuple(1.0, 1.0, 1.0),
           py::arg("ignore_below") = py::none(), py::arg("ignore_above") = py::none(), R"doc(
Computes the clearance layer: each voxel's distance (metres) from its centre to the
nearest obstacle voxel's centre within `range` metres, as `voxen clearance` does.

An obstacle is an occupied voxel, and an unobserved one unless unknown_free is True.
technique: how the GPU computes it, as `voxen clearance --technique` names them: "exact"
(exact Euclidean distances, bit for bit the CPU reference's, and the fastest), "roi",
"neighbour" or "openlist" (propagation; can miss the true nearest obstacle where two
compete). With backend="cpu" only "exact" is accepted. Keyword-only: axis_scale (x, y, z)
multiplies each axis' offsets; ignore_below / ignore_above (metres): voxels whose centre
lies below / above are never obstacles (a floor, a ceiling).

Only regions whose clearance is out of date (never computed with these settings, or whose
occupancy, or a neighbour's within range, changed since) are computed. A setting that
cannot work raises voxen.SettingError naming it. Returns a dict: regions (computed),
seconds (wall time), batches and cache_regions (GPU: batches of target regions, regions
the GPU cache held), sub_voxel (a map with a TSDF: voxels whose clearance its surface's
sub-voxel distance lowered, where the axes are unscaled and no heights are ignored).
)doc")
      .def("clearance", onContext("Mapper.clearance", &clearance),
           py::arg("points"), py::arg("gradient") = false, py::arg("return_status") = false, R"doc(
The clearance at each point, trilinear between the 8 voxel centres around it.

points: (N, 3) real numbers (float or integer). Returns an (N,) float32 array of metres, or with
gradient=True a tuple of it and the (N, 3) float32 gradients (metres per metre, pointing
away from obstacles). A point gets NaN (and a NaN gradient) where one of its 8 voxels has
no value: no obstacle within the range the layer was computed with, or a region the map
does not hold; an obstacle's own voxel is 0. return_status: the result and an (N,) str
array last, saying which: "out_of_range" (no obstacle within range), "outside_map", or
"observed" where the sample has a value. Raises voxen.Error when the map has no clearance
layer (compute_clearance makes it; a loaded map file may carry it).
)doc");
}

}  // namespace voxen::python
