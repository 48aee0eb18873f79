// Mapper.sphere_collisions, path_collisions, box_collisions and nearest_obstacles: the
// collision and distance queries for planners (voxen/query/collision_types.hpp), NumPy in
// and out. Each returns a dict of (N,) arrays (and (N, 3) for points), with `status` an
// (N,) array of str: "observed", "unobserved", "out_of_range", "outside_map".
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <vector>

#include "arrays.hpp"
#include "context_use.hpp"
#include "py_mapper.hpp"

namespace voxen::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

UnknownSpace unknownNamed(const std::string& name) {
  if (name == "occupied") return UnknownSpace::Occupied;
  if (name == "free") return UnknownSpace::Free;
  if (name == "report") return UnknownSpace::Report;
  throw py::value_error("unknown: '" + name + "' is not one of 'occupied', 'free', 'report'");
}

template <class Answer>
py::array statuses(const std::vector<Answer>& answers) {
  py::list names;
  for (const Answer& a : answers) names.append(queryStatusName(a.status));
  return py::module_::import("numpy").attr("asarray")(names, "dtype"_a = "U12");
}

template <class Answer>
py::array_t<bool> collides(const std::vector<Answer>& answers) {
  py::array_t<bool> out = newArray<bool>(answers.size());
  auto o = out.mutable_unchecked<1>();
  for (size_t i = 0; i < answers.size(); ++i) o(i) = answers[i].collides;
  return out;
}

py::dict collisionResult(const std::vector<CollisionAnswer>& answers) {
  py::dict d;
  d["collides"] = collides(answers);
  d["status"] = statuses(answers);
  return d;
}

py::dict sphereCollisions(PyMapper& self, const py::object& points, double radius, const std::string& unknown) {
  Points3 queried(points, "points");
  const UnknownSpace policy = unknownNamed(unknown);
  std::vector<CollisionAnswer> answers;
  {
    py::gil_scoped_release release;
    answers = namingItems("points", [&] { return self.mapper->sphereCollisions(queried.span(), radius, policy); });
  }
  return collisionResult(answers);
}

py::dict boxCollisions(PyMapper& self, const py::object& centres, const py::object& yaws, const py::object& size,
                       const std::string& unknown) {
  Points3 queried(centres, "centres");
  const std::vector<double> yaw = perItem(yaws, "yaws", queried.size());
  const std::vector<double> extent = perItem(size, "size", 3);
  const UnknownSpace policy = unknownNamed(unknown);
  std::vector<BoxPose> poses(queried.size());
  for (size_t i = 0; i < poses.size(); ++i) poses[i] = {queried.span()[i], yaw[i]};
  std::vector<CollisionAnswer> answers;
  {
    py::gil_scoped_release release;
    answers = namingItems("poses", [&] {
      return self.mapper->boxCollisions(poses, {extent[0], extent[1], extent[2]}, policy);
    });
  }
  return collisionResult(answers);
}

py::dict pathCollisions(PyMapper& self, const py::iterable& paths, double radius, const std::string& unknown) {
  std::vector<glm::dvec3> points;
  std::vector<uint64_t> offsets{0};
  for (const py::handle& path : paths) {
    Points3 one(path, "paths[i]");
    points.insert(points.end(), one.span().begin(), one.span().end());
    offsets.push_back(points.size());
  }
  const UnknownSpace policy = unknownNamed(unknown);
  std::vector<PathAnswer> answers;
  {
    py::gil_scoped_release release;
    answers = namingItems("paths", [&] { return self.mapper->pathCollisions(points, offsets, radius, policy); });
  }
  py::array_t<int32_t> segment = newArray<int32_t>(answers.size());
  py::array_t<float> t = newArray<float>(answers.size());
  auto s = segment.mutable_unchecked<1>();
  auto tt = t.mutable_unchecked<1>();
  for (size_t i = 0; i < answers.size(); ++i) s(i) = answers[i].segment, tt(i) = answers[i].t;
  py::dict d;
  d["collides"] = collides(answers);
  d["segment"] = segment;
  d["t"] = t;
  d["status"] = statuses(answers);
  return d;
}

py::dict nearestObstacles(PyMapper& self, const py::object& points, double maxRange) {
  Points3 queried(points, "points");
  std::vector<NearestAnswer> answers;
  {
    py::gil_scoped_release release;
    answers = namingItems("points", [&] { return self.mapper->nearestObstacles(queried.span(), maxRange); });
  }
  const size_t n = answers.size();
  py::array_t<double> distance = newArray<double>(n), signedDistance = newArray<double>(n);
  py::array_t<double> obstacle = newArray<double>(n, 3), direction = newArray<double>(n, 3);
  auto d = distance.mutable_unchecked<1>();
  auto sd = signedDistance.mutable_unchecked<1>();
  auto o = obstacle.mutable_unchecked<2>();
  auto dir = direction.mutable_unchecked<2>();
  for (size_t i = 0; i < n; ++i) {
    d(i) = answers[i].distance;
    sd(i) = answers[i].signedDistance;
    for (int a = 0; a < 3; ++a) o(i, a) = answers[i].obstacle[a], dir(i, a) = answers[i].direction[a];
  }
  py::dict out;
  out["distance"] = distance;
  out["signed_distance"] = signedDistance;
  out["obstacle"] = obstacle;
  out["direction"] = direction;
  out["status"] = statuses(answers);
  return out;
}

}  // namespace

void bindMapperCollision(MapperClass& mapperClass) {
  mapperClass
      .def("sphere_collisions", onContext("Mapper.sphere_collisions", &sphereCollisions), py::arg("points"),
           py::arg("radius"), py::arg("unknown") = "occupied", R"doc(
Whether a sphere of `radius` metres at each point touches an occupied voxel (a voxel's box
within the radius of the centre). points: (N, 3) real numbers. unknown: "occupied" (unobserved
voxels collide), "free" or "report" (they do not). Returns {"collides": (N,) bool, "status":
(N,) str}: "outside_map" where no touched voxel lies in the map, "unobserved" where an
unobserved voxel and no occupied one is touched, else "observed". Raises voxen.InputError
naming the item (points[i]) for a non-finite point, and for a radius < 0 or over 60 voxels.
)doc")
      .def("path_collisions", onContext("Mapper.path_collisions", &pathCollisions), py::arg("paths"),
           py::arg("radius"), py::arg("unknown") = "occupied", R"doc(
A sphere of `radius` metres swept along each path (a polyline: an (M, 3) array of at least
two points). Returns {"collides": (N,) bool, "segment": (N,) int32, the first colliding
segment (-1 where free), "t": (N,) float32, the smallest parameter in [0, 1] along it at which
the sphere touches a colliding voxel (-1 where free), "status": (N,) str (over the whole
path)}. Raises voxen.InputError naming the path (paths[i]) for one with fewer than two
points or a non-finite point.
)doc")
      .def("box_collisions", onContext("Mapper.box_collisions", &boxCollisions), py::arg("centres"), py::arg("yaws"),
           py::arg("size"), py::arg("unknown") = "occupied", R"doc(
Whether a box of `size` (its full extents along its own x, y and world z, metres) centred at
each of `centres` ((N, 3)) and turned by `yaws` (radians about +z: a number or (N,))
intersects an occupied voxel. Returns {"collides": (N,) bool, "status": (N,) str}.
)doc")
      .def("nearest_obstacles", onContext("Mapper.nearest_obstacles", &nearestObstacles), py::arg("points"),
           py::arg("max_range") = 2.0, R"doc(
The nearest occupied voxel centre to each point within `max_range` metres. Returns
{"distance": (N,) float64 (-1 where none is in range), "signed_distance": (N,) float64
(negative inside an occupied voxel: minus the distance to the nearest voxel centre that is
not occupied; +inf where none is in range), "obstacle": (N, 3) the centre (NaN where none),
"direction": (N, 3) the unit vector from the point to it, "status": (N,) str ("out_of_range"
or "outside_map" where none is found, "unobserved" where an unobserved voxel is nearer).
)doc");
}

}  // namespace voxen::python
