// voxen.MapSnapshot and Mapper.snapshot / Mapper.latest_snapshot: the map frozen when the
// mapping thread published it, queried from any Python thread while that thread maps on.
// Snapshot queries do not take the Context's one-thread rule (context_use.hpp): the engine
// answers them from any thread (voxen/map_snapshot.hpp), and they release the GIL, so query
// threads run beside a thread inside Mapper.integrate_rays.
#include <pybind11/pybind11.h>

#include <memory>

#include "arrays.hpp"
#include "context_use.hpp"
#include "py_mapper.hpp"
#include "query_answers.hpp"
#include "voxen/map_snapshot.hpp"

namespace py = pybind11;

namespace voxen::python {

namespace {

struct PySnapshot {
  std::shared_ptr<PyContext> context;  // first: outlives the snapshot (its query lane runs on it)
  MapSnapshot snapshot;
};

std::vector<OccupancyAnswer> snapshotAnswers(const PySnapshot& self, const py::object& points) {
  Points3 queried(points, "points");
  py::gil_scoped_release release;
  return namingItems("points", [&] { return self.snapshot.occupancy(queried.span()); });
}

PySnapshot publish(PyMapper& self) {
  PySnapshot result{self.context, {}};
  py::gil_scoped_release release;
  result.snapshot = self.mapper->snapshot();
  return result;
}

}  // namespace

void bindMapSnapshot(py::module_& m, MapperClass& mapperClass) {
  py::class_<PySnapshot>(m, "MapSnapshot", R"doc(
The map as it was when Mapper.snapshot() published it: it never changes, and any thread may
query it while the mapping thread integrates more rays (the GIL is released during a query).
Answers equal the Mapper's queries on the same map, bit for bit.)doc")
      .def_property_readonly("version", [](const PySnapshot& s) { return s.snapshot.version(); },
                             "1 for the Mapper's first snapshot, one more for each later one that differs")
      .def(
          "occupancy",
          [](const PySnapshot& s, const py::object& points, bool returnStatus) {
            return occupancyValues(snapshotAnswers(s, points), returnStatus);
          },
          py::arg("points"), py::arg("return_status") = false,
          "Log-odds at (N, 3) points (NaN where unobserved), as Mapper.occupancy (return_status too).")
      .def(
          "classify",
          [](const PySnapshot& s, const py::object& points, bool returnStatus) {
            return occupancyClasses(snapshotAnswers(s, points), returnStatus);
          },
          py::arg("points"), py::arg("return_status") = false,
          "Classes at (N, 3) points: -1 unknown, 0 free, 1 occupied, as Mapper.classify (return_status too).")
      .def(
          "raycast",
          [](const PySnapshot& s, const py::object& origins, const py::object& directions, const py::object& maxRange,
             bool unknownBlocks) {
            const std::vector<QueryRay> rays = queryRays(origins, directions, maxRange);
            std::vector<RayHit> hits;
            {
              py::gil_scoped_release release;
              hits = namingItems("rays", [&] { return s.snapshot.raycast(rays, {.unknownBlocks = unknownBlocks}); });
            }
            return raycastResult(hits);
          },
          py::arg("origins"), py::arg("directions"), py::arg("max_range") = 5.0, py::arg("unknown_blocks") = false,
          "The first occupied voxel along each ray, as Mapper.raycast.")
      .def(
          "clearance",
          [](const PySnapshot& s, const py::object& points, bool gradient, bool returnStatus) {
            Points3 queried(points, "points");
            std::vector<ClearanceSample> samples;
            {
              py::gil_scoped_release release;
              samples = namingItems("points", [&] { return s.snapshot.clearance(queried.span()); });
            }
            return clearanceResult(samples, gradient, returnStatus);
          },
          py::arg("points"), py::arg("gradient") = false, py::arg("return_status") = false,
          "Trilinear clearance at (N, 3) points, as Mapper.clearance (the snapshot needs the clearance layer).")
      .def(
          "save",
          [](const PySnapshot& s, const py::object& path) {
            const std::filesystem::path file = pathOf(path);
            py::gil_scoped_release release;
            s.snapshot.save(file);
          },
          py::arg("path"), "Writes the snapshot's map (atomically).");

  mapperClass
      .def("snapshot", onContext("Mapper.snapshot", &publish), R"doc(
Mapping thread: waits for the GPU's work, publishes the map as it is now as the latest
snapshot (a copy, made only when the map changed since the last) and returns it.)doc")
      .def(
          "latest_snapshot",
          [](PyMapper& self) {
            // No Context use: any thread, never waiting for the mapping thread.
            return PySnapshot{self.context, self.mapper->latestSnapshot()};
          },
          R"doc(
Any thread, never waiting for the mapping: the snapshot published last (the map the Mapper
started from, before the first Mapper.snapshot()).)doc");
}

}  // namespace voxen::python
