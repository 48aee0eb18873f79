// Mapper.integrate_cloud: a scan's points with their times and the sensor's trajectory as
// NumPy arrays, integrated by the engine's Mapper::integrateCloud.
#include <pybind11/numpy.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include "arrays.hpp"
#include "float_arrays.hpp"
#include "py_mapper.hpp"
#include "voxen/input/trajectory.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

// The engine's Trajectory checks times and positions (finite, sorted, one place per
// instant) and names the pose, which is the row here; its Error is a bad argument, so a
// ValueError. Orientation is checked here as the trajectory file reader checks it.
Trajectory trajectoryOf(const FloatArray& table) {
  if (table.rows() == 0) throw py::value_error("trajectory has no rows: it needs at least one pose (t x y z)");
  std::vector<TrajectoryPose> poses(table.rows());
  const bool oriented = table.columns() == 8;
  for (size_t i = 0; i < poses.size(); ++i) {
    poses[i].time = table.at(i, 0);
    poses[i].position = {table.at(i, 1), table.at(i, 2), table.at(i, 3)};
    if (oriented) {
      const glm::dquat q(table.at(i, 7), table.at(i, 4), table.at(i, 5), table.at(i, 6));  // glm: (w, x, y, z)
      const double norm = glm::length(q);
      if (!std::isfinite(norm) || !(norm > 1e-12)) {
        throw py::value_error("trajectory[" + std::to_string(i) + "]: the orientation quaternion (qx qy qz qw) is " +
                              (std::isfinite(norm) ? "zero" : "not finite"));
      }
      poses[i].orientation = q / norm;
    }
  }
  try {
    return Trajectory(std::move(poses), oriented);
  } catch (const Error& e) {
    throw py::value_error(e.what());
  }
}

// A map built from almost none of the points would look like a result: as `voxen map`
// refuses a cloud whose clock does not match its trajectory's, fewer than 1% of the points
// inside the trajectory's span is an error, raised before any ray is integrated.
void requireMatchingClocks(std::span<const double> times, const Trajectory& trajectory) {
  const double start = trajectory.startTime(), end = trajectory.endTime();
  uint64_t timed = 0, inside = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const double t : times) {
    if (!std::isfinite(t)) continue;
    ++timed;
    if (t >= start && t <= end) ++inside;
    lo = std::min(lo, t), hi = std::max(hi, t);
  }
  if (timed == 0 || inside * 100 >= timed) return;
  throw py::value_error((inside == 0 ? std::string("none") : "only " + std::to_string(inside)) + " of the " +
                        std::to_string(timed) + " times (" + formatTime(lo) + " to " + formatTime(hi) +
                        ") fall inside the trajectory's time span (" + formatTime(start) + " to " + formatTime(end) +
                        "): are times and trajectory on the same clock, in the same unit?");
}

py::dict integrateCloud(PyMapper& self, const py::object& points, const py::object& times, const py::object& trajectory) {
  Points3 samples(points, "points");
  FloatArray stamps = FloatArray::vector(times, "times");
  requireSameLength("points", samples.size(), "times", stamps.rows());
  const Trajectory path = trajectoryOf(FloatArray::table(trajectory, "trajectory", {4, 8}));
  requireMatchingClocks(stamps.values(), path);
  IntegrationStats before, after;
  CloudStats cloud;
  {
    py::gil_scoped_release release;
    before = self.mapper->submittedStats();
    cloud = self.mapper->integrateCloud(samples.span(), stamps.values(), path);
    after = self.mapper->submittedStats();
  }
  py::dict stats = submittedDelta(before, after);
  stats["points"] = cloud.points;
  stats["skipped_outside_trajectory"] = cloud.skippedOutsideTrajectory;
  return stats;
}

}  // namespace

void bindMapperCloud(MapperClass& mapperClass) {
  mapperClass.def("integrate_cloud", onContext("Mapper.integrate_cloud", &integrateCloud),
                  py::arg("points"), py::arg("times"),
                  py::arg("trajectory"), R"doc(
Integrates a scan: a ray from the sensor's position at each point's time to the point.

points: (N, 3) real numbers (float or integer dtype), in the map's frame; times: (N,),
seconds on the trajectory's clock; trajectory: (M, 4) rows t x y z, or (M, 8) rows
t x y z qx qy qz qw, sorted by t. The sensor's position at a point's time is interpolated
linearly between the poses either side; the orientation columns are checked (finite,
non-zero; normalised) but the rays do not use them, since the points are already in the
map's frame (as `voxen map` reads an 8-column trajectory file). Rays follow the points'
order, each with its point's time (the touch_time layer records it).

A point whose time lies outside the trajectory's span (or is NaN) is skipped and counted;
when fewer than 1% of the points fall inside the span, ValueError names both time ranges
(clocks or units that do not match) and nothing is integrated. A trajectory with no rows,
unsorted times, two poses at one time more than 1 mm apart or a non-finite value raises
ValueError naming the row.

Returns once the rays are submitted, with this call's statistics: the dict integrate_rays
returns (rays integrated, clipped_rays, rejected_rays, batches) plus points (N) and
skipped_outside_trajectory; points = rays + rejected_rays + skipped_outside_trajectory.
stats() waits for the GPU and has its counts (voxel updates).
)doc");
}

}  // namespace voxen::python
