#pragma once
// The batched queries' answers as NumPy arrays, and their items from NumPy: written once for
// voxen.Mapper's queries and voxen.MapSnapshot's (the same arrays from either). Called with
// the GIL held.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "voxen/query/query_types.hpp"

namespace voxen::python {

// Log-odds per point (NaN where unobserved), and classes (-1 unknown, 0 free, 1 occupied).
pybind11::array_t<float> occupancyValues(const std::vector<OccupancyAnswer>& answers);
pybind11::array_t<int8_t> occupancyClasses(const std::vector<OccupancyAnswer>& answers);
// Rays from (N, 3) origins and directions and a max_range (one, or one per ray).
std::vector<QueryRay> queryRays(const pybind11::object& origins, const pybind11::object& directions,
                                const pybind11::object& maxRange);
// {"hit", "distance", "point", "voxel", "value", "class"}, one row per ray.
pybind11::dict raycastResult(const std::vector<RayHit>& hits);
// Clearance per point (NaN without a value), and with `gradient` the (N, 3) gradients too.
pybind11::object clearanceResult(const std::vector<ClearanceSample>& samples, bool gradient);

}  // namespace voxen::python
