#pragma once
// The batched queries' answers as NumPy arrays, and their items from NumPy: written once for
// voxen.Mapper's queries and voxen.MapSnapshot's (the same arrays from either). Called with
// the GIL held.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "voxen/query/query_types.hpp"

namespace voxen::python {

// Each answer's QueryStatus as an (N,) array of str: "observed", "unobserved",
// "out_of_range", "outside_map" (queryStatusName's spelling, the CLI's status column).
pybind11::array statusArray(const std::vector<QueryStatus>& statuses);
template <class Answer>
pybind11::array statusesOf(const std::vector<Answer>& answers) {
  std::vector<QueryStatus> statuses(answers.size());
  for (size_t i = 0; i < answers.size(); ++i) statuses[i] = answers[i].status;
  return statusArray(statuses);
}
// `result`, or (result, status array) with return_status.
pybind11::object withStatus(pybind11::object result, const pybind11::array& statuses, bool returnStatus);

// Log-odds per point (NaN where unobserved), and classes (-1 unknown, 0 free, 1 occupied);
// with returnStatus a tuple with the statuses.
pybind11::object occupancyValues(const std::vector<OccupancyAnswer>& answers, bool returnStatus = false);
pybind11::object occupancyClasses(const std::vector<OccupancyAnswer>& answers, bool returnStatus = false);
// Rays from (N, 3) origins and directions and a max_range (one, or one per ray).
std::vector<QueryRay> queryRays(const pybind11::object& origins, const pybind11::object& directions,
                                const pybind11::object& maxRange);
// {"hit", "distance", "point", "voxel", "value", "class", "status"}, one row per ray.
pybind11::dict raycastResult(const std::vector<RayHit>& hits);
// Clearance per point (NaN without a value), and with `gradient` the (N, 3) gradients too
// (NaN where undefined); with returnStatus the statuses last.
pybind11::object clearanceResult(const std::vector<ClearanceSample>& samples, bool gradient, bool returnStatus = false);

}  // namespace voxen::python
