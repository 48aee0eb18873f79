#include "query_answers.hpp"

#include <limits>

#include "arrays.hpp"
#include "py_mapper.hpp"

namespace py = pybind11;

namespace voxen::python {

py::array statusArray(const std::vector<QueryStatus>& statuses) {
  auto codes = newArray<int8_t>(statuses.size());
  int8_t* out = codes.mutable_data();
  for (size_t i = 0; i < statuses.size(); ++i) out[i] = int8_t(statuses[i]);
  // The names indexed by the codes: one vectorised NumPy gather, not a str per item here.
  py::list names;
  for (const QueryStatus s : {QueryStatus::Observed, QueryStatus::Unobserved, QueryStatus::OutOfRange, QueryStatus::OutsideMap})
    names.append(queryStatusName(s));
  return py::module_::import("numpy").attr("array")(names).attr("__getitem__")(codes).cast<py::array>();
}

py::object withStatus(py::object result, const py::array& statuses, bool returnStatus) {
  if (!returnStatus) return result;
  if (py::isinstance<py::tuple>(result)) {
    py::list items(result);
    items.append(statuses);
    return py::tuple(items);
  }
  return py::make_tuple(result, statuses);
}

py::object occupancyValues(const std::vector<OccupancyAnswer>& found, bool returnStatus) {
  auto values = newArray<float>(found.size());
  float* out = values.mutable_data();
  for (size_t i = 0; i < found.size(); ++i) out[i] = valueOrNaN(found[i].value);
  return withStatus(values, returnStatus ? statusesOf(found) : py::array(), returnStatus);
}

py::object occupancyClasses(const std::vector<OccupancyAnswer>& found, bool returnStatus) {
  auto classes = newArray<int8_t>(found.size());
  int8_t* out = classes.mutable_data();
  for (size_t i = 0; i < found.size(); ++i) out[i] = classCode(found[i].voxelClass);
  return withStatus(classes, returnStatus ? statusesOf(found) : py::array(), returnStatus);
}

std::vector<QueryRay> queryRays(const py::object& origins, const py::object& directions, const py::object& maxRange) {
  Points3 from(origins, "origins");
  Points3 along(directions, "directions");
  requireSameLength("origins", from.size(), "directions", along.size());
  std::vector<double> ranges = perItem(maxRange, "max_range", from.size());
  std::vector<QueryRay> rays(from.size());
  for (size_t i = 0; i < rays.size(); ++i) rays[i] = {from.span()[i], along.span()[i], ranges[i]};
  return rays;
}

py::dict raycastResult(const std::vector<RayHit>& hits) {
  const size_t n = hits.size();
  auto hit = newArray<bool>(n);
  auto distance = newArray<double>(n);
  auto point = newArray<double>(n, 3);
  auto voxel = newArray<int32_t>(n, 3);
  auto value = newArray<float>(n);
  auto voxelClass = newArray<int8_t>(n);
  bool* hitOut = hit.mutable_data();
  double* distanceOut = distance.mutable_data();
  double* pointOut = point.mutable_data();
  int32_t* voxelOut = voxel.mutable_data();
  float* valueOut = value.mutable_data();
  int8_t* classOut = voxelClass.mutable_data();
  for (size_t i = 0; i < n; ++i) {
    const RayHit& h = hits[i];
    hitOut[i] = h.hit;
    distanceOut[i] = h.distance;
    for (int c = 0; c < 3; ++c) pointOut[3 * i + c] = h.point[c];
    voxelOut[3 * i + 0] = h.voxel.x;
    voxelOut[3 * i + 1] = h.voxel.y;
    voxelOut[3 * i + 2] = h.voxel.z;
    valueOut[i] = valueOrNaN(h.value);
    classOut[i] = classCode(h.voxelClass);
  }
  py::dict result;
  result["hit"] = hit;
  result["distance"] = distance;
  result["point"] = point;
  result["voxel"] = voxel;
  result["value"] = value;
  result["class"] = voxelClass;
  result["status"] = statusesOf(hits);
  return result;
}

py::object clearanceResult(const std::vector<ClearanceSample>& samples, bool gradient, bool returnStatus) {
  const size_t n = samples.size();
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  auto values = newArray<float>(n);
  float* out = values.mutable_data();
  // The engine marks a sample without a value as -1 (never a distance); NumPy code tests
  // NaN, as occupancy() gives for unobserved voxels.
  for (size_t i = 0; i < n; ++i) out[i] = samples[i].clearance < 0.0f ? kNaN : samples[i].clearance;
  const py::array statuses = returnStatus ? statusesOf(samples) : py::array();
  if (!gradient) return withStatus(values, statuses, returnStatus);
  auto gradients = newArray<float>(n, 3);
  float* g = gradients.mutable_data();
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) g[3 * i + c] = samples[i].clearance < 0.0f ? kNaN : samples[i].gradient[c];
  }
  return withStatus(py::make_tuple(values, gradients), statuses, returnStatus);
}

}  // namespace voxen::python
