// voxen.Mapper and voxen.load: the engine's Mapper with NumPy arrays in and out. GPU work and
// file I/O run with the GIL released, so other Python threads go on meanwhile.
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <memory>

#include "arrays.hpp"
#include "bindings.hpp"
#include "py_mapper.hpp"
#include "query_answers.hpp"
#include "voxen/occupancy/ndt.hpp"

namespace py = pybind11;

namespace voxen::python {

NdtMode ndtNamed(const py::object& ndt) {
  if (ndt.is_none()) return NdtMode::Off;
  const std::string name = py::str(ndt);
  if (name == "om") return NdtMode::Om;
  if (name == "tm") return NdtMode::Tm;
  throw py::value_error("ndt must be None, \"om\" or \"tm\"; got \"" + name + "\"");
}

LayerSet layersNamed(const py::iterable& names) {
  // A str is iterable too, and would be read as one-letter layer names.
  if (py::isinstance<py::str>(names)) {
    throw py::value_error("layers must be a sequence of names, such as (\"" + names.cast<std::string>() + "\",); got a str");
  }
  LayerSet set;
  for (py::handle item : names) {
    if (!py::isinstance<py::str>(item)) {
      throw py::value_error("layers must be names (str); got " + py::str(py::type::of(item)).cast<std::string>());
    }
    const std::string name = item.cast<std::string>();
    std::optional<LayerId> id = findLayer(name);
    if (!id || !(kAllBuiltinLayers | kTsdfLayer | kTsdfColourLayer).has(*id)) {
      throw py::value_error("layers: unknown layer \"" + name +
                            "\" (known: voxel_mean, traversal, hit_miss, touch_time, tsdf, tsdf_colour)");
    }
    set = set | *id;
  }
  return set;
}

namespace {

void requireFinite(double value, const char* argument) {
  if (std::isnan(value)) throw py::value_error(std::string(argument) + " is NaN");
}

PyMapper makeMapper(double resolution, int32_t region, const std::string& model, const py::iterable& layers,
                    const py::object& ndt, const py::object& context, const std::string& backend) {
  requireFinite(resolution, "resolution");
  if (model != "ohm" && model != "octomap") {
    throw py::value_error("model must be \"ohm\" or \"octomap\"; got \"" + model + "\"");
  }
  MapperOptions options;
  options.model = model == "octomap" ? OccupancyModel::octomap() : OccupancyModel::ohm();
  options.model.resolution = resolution;
  options.model.regionSize = region;
  options.extraLayers = layersNamed(layers);
  options.run.backend = backendNamed(backend);
  options.run.integration.ndt.mode = ndtNamed(ndt);
  PyMapper result(contextOrDefault(context));
  result.mapper = std::make_unique<voxen::Mapper>(result.context->get(), options);
  return result;
}

// One call's statistics are the host's counts only: waiting for the GPU's counts would make
// every call wait for its rays, and a program streaming scans would never have the GPU and
// the next scan's preparation overlap. Mapper.stats() waits and has every count.
py::dict integrateRays(PyMapper& self, const py::object& origins, const py::object& ends) {
  Points3 from(origins, "origins");
  Points3 to(ends, "ends");
  requireSameLength("origins", from.size(), "ends", to.size());
  IntegrationStats before, after;
  {
    py::gil_scoped_release release;
    before = self.mapper->submittedStats();
    self.mapper->integrateRays(from.span(), to.span());
    after = self.mapper->submittedStats();
  }
  return submittedDelta(before, after);
}

py::dict mapperStats(PyMapper& self) {
  MapperStats all;
  {
    py::gil_scoped_release release;
    all = self.mapper->stats();
  }
  const IntegrationStats& i = all.integration;
  py::dict stats;
  stats["rays"] = i.rays;
  stats["clipped_rays"] = i.clippedRays;
  stats["rejected_rays"] = i.rejectedRays;
  stats["batches"] = i.batches;
  stats["voxel_updates"] = i.voxelUpdates;
  stats["dropped_updates"] = i.droppedUpdates;
  stats["occupied_voxels"] = all.counts.occupied;
  stats["free_voxels"] = all.counts.free;
  stats["regions"] = all.counts.regions;
  return stats;
}

std::vector<OccupancyAnswer> answers(PyMapper& self, const py::object& points) {
  Points3 queried(points, "points");
  py::gil_scoped_release release;
  return namingItems("points", [&] { return self.mapper->occupancy(queried.span()); });
}

py::object occupancy(PyMapper& self, const py::object& points, bool returnStatus) {
  return occupancyValues(answers(self, points), returnStatus);
}

py::object classify(PyMapper& self, const py::object& points, bool returnStatus) {
  return occupancyClasses(answers(self, points), returnStatus);
}

py::dict raycast(PyMapper& self, const py::object& origins, const py::object& directions, const py::object& maxRange,
                 bool unknownBlocks) {
  const std::vector<QueryRay> rays = queryRays(origins, directions, maxRange);
  std::vector<RayHit> hits;
  {
    py::gil_scoped_release release;
    hits = namingItems("rays", [&] { return self.mapper->raycast(rays, {.unknownBlocks = unknownBlocks}); });
  }
  return raycastResult(hits);
}

PyMapper loadMapper(const py::object& path, const py::object& context, const std::string& backend) {
  const std::filesystem::path file = pathOf(path);
  MapperRunOptions run;
  run.backend = backendNamed(backend);
  PyMapper result(contextOrDefault(context));
  {
    py::gil_scoped_release release;
    result.mapper = std::make_unique<voxen::Mapper>(voxen::Mapper::load(result.context->get(), file, run));
  }
  return result;
}

}  // namespace

PyMapper::~PyMapper() {
  if (!mapper) return;
  releaseOnContext(
      *context, this, "Mapper.__del__", [this] { mapper.reset(); }, [this] { (void)mapper.release(); });
}

py::dict submittedDelta(const IntegrationStats& before, const IntegrationStats& after) {
  py::dict stats;
  stats["rays"] = after.rays - before.rays;
  stats["clipped_rays"] = after.clippedRays - before.clippedRays;
  stats["rejected_rays"] = after.rejectedRays - before.rejectedRays;
  stats["batches"] = after.batches - before.batches;
  return stats;
}

std::filesystem::path pathOf(const py::handle& path) {
  return py::module_::import("os").attr("fspath")(path).cast<std::string>();
}

MapperBackend backendNamed(const std::string& name) {
  if (name == "gpu") return MapperBackend::Gpu;
  if (name == "cpu") return MapperBackend::CpuReference;
  throw py::value_error("backend must be \"gpu\" or \"cpu\" (the CPU reference); got \"" + name + "\"");
}

void bindMapper(py::module_& m) {
  MapperClass mapperClass(m, "Mapper", R"doc(
An occupancy map and everything that works on it, on a Context's device.

Mapper(resolution=0.1, region=32, model="ohm", layers=(), ndt=None, context=None, backend="gpu")

resolution: metres per voxel edge; region: voxels per region edge; model: "ohm" or
"octomap" (the occupancy model's probabilities and clamps); layers: names of optional
layers ("voxel_mean", "traversal", "hit_miss", "touch_time", "tsdf": the depth frames'
truncated signed distances, which integrate_depth also adds; "tsdf_colour": their colour,
which integrate_depth(color=...) needs); ndt: None, "om" or "tm";
context: a voxen.Context, None for the shared default; backend: "gpu", or "cpu" for the
single-threaded CPU reference the GPU is tested against (the same map bit for bit).
A setting out of range raises voxen.SettingError (a ValueError) naming it.

Arrays of points take any real dtype: float32 and float64 as they are, integers converted.
Threads: the Mapper's Context (and so every Mapper on it: all those made without context=
share the default one) is used by one thread at a time; a call from another thread while
one runs raises voxen.Error naming the rule (voxen.Context says more).
)doc");
  mapperClass
      .def(py::init(&makeMapper), py::arg("resolution") = 0.1, py::arg("region") = 32, py::arg("model") = "ohm",
           py::arg("layers") = py::tuple(), py::arg("ndt") = py::none(), py::arg("context") = py::none(),
           py::arg("backend") = "gpu")
      .def("integrate_rays", onContext("Mapper.integrate_rays", &integrateRays),
           py::arg("origins"), py::arg("ends"), R"doc(
Integrates the rays from origins[i] to ends[i] (the samples), in order.

origins, ends: (N, 3) arrays of real numbers (a C-contiguous float64 array is read without
a copy; float32 and integer arrays are converted). Returns as soon as the rays are submitted, with this call's statistics:
a dict of rays, clipped_rays, rejected_rays (non-finite or out-of-range rays, skipped) and
batches. The GPU's own counts (voxel updates) come from stats(), which waits for the GPU;
any read of the map (occupancy, save, ...) waits too.
)doc")
      .def(
          "sync",
          [](PyMapper& self) {
            ContextUse use(*self.context, &self, "Mapper.sync");
            py::gil_scoped_release release;
            self.mapper->sync();
          },
          R"doc(
Waits until the GPU has applied every ray submitted so far and the host's map holds them.
Reads (occupancy, save, stats, ...) do this themselves; call it to time the GPU's work.
)doc")
      .def("stats", onContext("Mapper.stats", &mapperStats), R"doc(
Every integration so far, after waiting for the GPU: a dict of rays, clipped_rays,
rejected_rays, batches, voxel_updates, dropped_updates (updates the GPU had to give up,
0 unless a voxel is hit tens of thousands of times in one batch), and the map's
occupied_voxels, free_voxels and regions.
)doc")
      .def("occupancy", onContext("Mapper.occupancy", &occupancy), py::arg("points"), py::arg("return_status") = false, R"doc(
The log-odds of the voxel holding each point: an (N,) float32 array, NaN where no ray
touched the voxel. points: (N, 3) real numbers (float or integer). return_status: also an
(N,) str array saying what each answer rests on: "observed", "unobserved" or "outside_map"
(the map holds no region there); then a tuple (values, status).
)doc")
      .def("classify", onContext("Mapper.classify", &classify), py::arg("points"), py::arg("return_status") = false, R"doc(
The class of the voxel holding each point: an (N,) int8 array, -1 unknown, 0 free,
1 occupied (at or above the model's threshold). points: (N, 3) real numbers (float or integer).
return_status: a tuple (classes, status) with occupancy's status array.
)doc")
      .def("raycast", onContext("Mapper.raycast", &raycast),
           py::arg("origins"), py::arg("directions"), py::arg("max_range"),
           py::arg("unknown_blocks") = false, R"doc(
Casts rays to the first occupied voxel (or unobserved one, with unknown_blocks).

origins, directions: (N, 3) float arrays (directions of any non-zero length);
max_range: metres, one number or an (N,) array. Returns a dict of arrays: hit (N,) bool,
distance (N,) float64, point (N, 3) float64 (where the ray enters the voxel), voxel (N, 3)
int32, value (N,) float32 log-odds (NaN for unknown space), class (N,) int8 and status (N,)
str: "observed" or "unobserved" (what stopped the ray), "out_of_range" (nothing within
max_range) or "outside_map" (the ray starts where the map holds no region). Without a hit
the other fields are zero.
)doc")
      .def(
          "save",
          [](PyMapper& self, const py::object& path) {
            const std::filesystem::path file = pathOf(path);
            ContextUse use(*self.context, &self, "Mapper.save");
            py::gil_scoped_release release;
            self.mapper->save(file);
          },
          py::arg("path"), "Writes the map file (atomically: a reader sees the old file or the new one).")
      .def(
          "load",
          [](PyMapper& self, const py::object& path) {
            const std::filesystem::path file = pathOf(path);
            ContextUse use(*self.context, &self, "Mapper.load");
            py::gil_scoped_release release;
            self.mapper->load(file);
          },
          py::arg("path"), R"doc(
Replaces this Mapper's map by a map file's, keeping its context and settings (backend,
cache): rays given before go into the old map first, the statistics start again, and
snapshots taken before keep the old map. Raises voxen.Error naming the file when it cannot
be read; the Mapper then keeps its map. voxen.load(path) makes a new Mapper instead.
)doc")
      .def_property_readonly(
          "resolution",
          [](PyMapper& self) {
            ContextUse use(*self.context, &self, "Mapper.resolution");  // map() syncs with the GPU
            return self.mapper->map().model().resolution;
          },
          "Metres per voxel edge.")
      .def_property_readonly(
          "context", [](PyMapper& self) { return self.context; }, "The voxen.Context this map runs on.");
  // Each group of methods in its own file (py_mapper.hpp).
  bindMapperOctomap(m, mapperClass);
  bindMapperCloud(mapperClass);
  bindMapperClearance(mapperClass);
  bindMapperHeightmap(mapperClass);
  bindMapperDepth(mapperClass);
  bindMapperVoxels(mapperClass);
  bindMapperRender(mapperClass);
  bindMapperCollision(mapperClass);
  bindMapSnapshot(m, mapperClass);
  m.def("load", &loadMapper, py::arg("path"), py::arg("context") = py::none(), py::arg("backend") = "gpu", R"doc(
Reads a map file (as Mapper.save and the voxen CLI write it) into a new Mapper on `context`
(None: the shared default). Raises voxen.Error naming the file when it cannot be read.
)doc");
}

}  // namespace voxen::python
