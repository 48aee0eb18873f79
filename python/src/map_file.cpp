// voxen.map_file: a recording mapped into a map file or a region store by the engine's
// MappingRun, the run `voxen map` makes, with its options as keywords: the same map, the
// store's checkpoints and resuming, and the statistics as a dict. The run holds its Context
// and releases the GIL while it reads and maps.
#include <pybind11/stl.h>

#include <csignal>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "bindings.hpp"
#include "context_use.hpp"
#include "py_mapper.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/pcd.hpp"
#include "voxen/mapping_run.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

// The keywords map_file takes besides input and output, each one MappingRunOptions' field.
const std::set<std::string> kKeywords = {
    "trajectory", "store", "session", "resume", "checkpoint_s", "host_memory_mb", "resolution", "region", "model", "hit",
    "miss", "threshold", "clamp", "layers", "ndt", "backend", "update_order", "batch_size", "gpu_cache_mb", "max_range",
    "min_range", "exclude_box", "origin", "end_point_as_free", "exclude_origin", "exclude_sample", "stop_on_occupied",
    "forward_walk", "threads", "cloud_topic", "fixed_frame", "sensor_frame", "start", "duration", "deskew",
    "pcd_viewpoint", "clearance", "allow_empty", "progress", "stop", "context", "decay_s"};

// The keyword's value, or nullopt when it is absent or None.
template <typename T>
std::optional<T> keyword(const py::kwargs& kwargs, const char* name) {
  if (!kwargs.contains(name) || kwargs[name].is_none()) return std::nullopt;
  try {
    return kwargs[name].cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string("map_file: ") + name + " has the wrong type: " +
                         py::str(py::type::of(kwargs[name])).cast<std::string>());
  }
}

glm::dvec3 pointOf(const std::vector<double>& v, const char* name) {
  if (v.size() != 3) throw py::value_error(std::string("map_file: ") + name + " must be (x, y, z)");
  return {v[0], v[1], v[2]};
}

UpdateOrder orderNamed(const std::string& name) {
  for (const UpdateOrder order : {UpdateOrder::Sequential, UpdateOrder::TwoPhase, UpdateOrder::OnePass})
    if (name == updateOrderName(order)) return order;
  throw py::value_error("map_file: update_order must be \"sequential\", \"two-phase\" or \"one-pass\"; got \"" + name + "\"");
}

OccupancyModel modelOf(const py::kwargs& kwargs) {
  const std::string preset = keyword<std::string>(kwargs, "model").value_or("ohm");
  if (preset != "ohm" && preset != "octomap") throw py::value_error("map_file: model must be \"ohm\" or \"octomap\"; got \"" + preset + "\"");
  OccupancyModel m = preset == "octomap" ? OccupancyModel::octomap() : OccupancyModel::ohm();
  if (auto v = keyword<double>(kwargs, "resolution")) m.resolution = *v;
  if (auto v = keyword<int32_t>(kwargs, "region")) m.regionSize = *v;
  if (auto v = keyword<double>(kwargs, "hit")) m.hitProbability = float(*v);
  if (auto v = keyword<double>(kwargs, "miss")) m.missProbability = float(*v);
  if (auto v = keyword<double>(kwargs, "threshold")) m.occupancyThreshold = float(*v);
  if (auto v = keyword<std::pair<double, double>>(kwargs, "clamp")) m.clampMin = float(v->first), m.clampMax = float(v->second);
  return m;
}

RayReaderOptions readerOf(const py::kwargs& kwargs) {
  RayReaderOptions r;
  r.threads = keyword<unsigned>(kwargs, "threads").value_or(std::max(1u, std::thread::hardware_concurrency()));
  r.recording.cloudTopic = keyword<std::string>(kwargs, "cloud_topic").value_or("");
  r.recording.fixedFrame = keyword<std::string>(kwargs, "fixed_frame").value_or("");
  r.recording.sensorFrame = keyword<std::string>(kwargs, "sensor_frame").value_or("");
  r.recording.start = keyword<double>(kwargs, "start").value_or(0.0);
  r.recording.duration = keyword<double>(kwargs, "duration");
  r.recording.deskew = keyword<bool>(kwargs, "deskew").value_or(true);
  if (auto name = keyword<std::string>(kwargs, "pcd_viewpoint")) {
    r.pcdViewpoint = parsePcdViewpoint(*name);
    if (!r.pcdViewpoint) throw py::value_error("map_file: pcd_viewpoint must be \"origin\" or \"pose\"; got \"" + *name + "\"");
  }
  r.exclusion.minRange = keyword<double>(kwargs, "min_range").value_or(0.0);
  if (auto box = keyword<std::vector<double>>(kwargs, "exclude_box")) {
    if (box->size() != 6) throw py::value_error("map_file: exclude_box must be (xmin, ymin, zmin, xmax, ymax, zmax)");
    r.exclusion.box = std::array<glm::dvec3, 2>{glm::dvec3((*box)[0], (*box)[1], (*box)[2]), glm::dvec3((*box)[3], (*box)[4], (*box)[5])};
  }
  if (auto origin = keyword<std::vector<double>>(kwargs, "origin")) r.origin = pointOf(*origin, "origin");
  return r;
}

// backend=: "auto" (the default: the CPU reference for a small input, as voxen map --device
// auto), "gpu" or "cpu".
MappingBackend mappingBackendNamed(const std::string& name) {
  for (const MappingBackend backend : {MappingBackend::Auto, MappingBackend::Gpu, MappingBackend::CpuReference})
    if (name == mappingBackendName(backend)) return backend;
  throw py::value_error("map_file: backend must be \"auto\", \"gpu\" or \"cpu\"; got \"" + name + "\"");
}

MapperRunOptions runOf(const py::kwargs& kwargs, MappingBackend backend) {
  MapperRunOptions run;
  IntegrationOptions& integration = run.integration;
  if (kwargs.contains("ndt")) integration.ndt.mode = ndtNamed(kwargs["ndt"]);
  // NDT integrates in two-phase order unless another is asked for, as `voxen map` does.
  if (auto order = keyword<std::string>(kwargs, "update_order")) integration.order = orderNamed(*order);
  else if (integration.ndt.mode != NdtMode::Off && backend != MappingBackend::CpuReference) integration.order = UpdateOrder::TwoPhase;
  integration.maxRange = keyword<double>(kwargs, "max_range").value_or(0.0);
  const std::pair<const char*, RayFlag> flags[] = {{"end_point_as_free", RayFlag::EndPointAsFree},
                                                   {"exclude_origin", RayFlag::ExcludeOrigin},
                                                   {"exclude_sample", RayFlag::ExcludeSample},
                                                   {"stop_on_occupied", RayFlag::StopOnFirstOccupied},
                                                   {"forward_walk", RayFlag::ForwardWalk}};
  for (const auto& [name, flag] : flags)
    if (keyword<bool>(kwargs, name).value_or(false)) integration.flags |= flag;
  if (auto n = keyword<uint32_t>(kwargs, "batch_size")) run.gpu.maxRaysPerBatch = *n;
  if (auto mb = keyword<uint64_t>(kwargs, "gpu_cache_mb")) run.gpu.cacheBytes = *mb << 20;
  run.decaySeconds = keyword<double>(kwargs, "decay_s");  // refused by the Mapper when negative or NaN
  return run;
}

MappingRunOptions optionsOf(const py::object& input, const py::object& output, const py::kwargs& kwargs) {
  for (const auto& item : kwargs)
    if (!kKeywords.contains(item.first.cast<std::string>()))
      throw py::type_error("map_file() got an unexpected keyword argument '" + item.first.cast<std::string>() + "'");
  MappingRunOptions o;
  o.input = pathOf(input);
  if (!output.is_none()) o.output = pathOf(output);
  if (kwargs.contains("trajectory") && !kwargs["trajectory"].is_none()) o.trajectory = pathOf(kwargs["trajectory"]);
  if (kwargs.contains("store") && !kwargs["store"].is_none()) o.store = py::str(py::module_::import("os").attr("fspath")(kwargs["store"]));
  o.session = keyword<std::string>(kwargs, "session").value_or("");
  o.resume = keyword<bool>(kwargs, "resume").value_or(false);
  o.storeMapping.checkpointSeconds = keyword<double>(kwargs, "checkpoint_s").value_or(o.storeMapping.checkpointSeconds);
  o.storeMapping.hostMemoryBytes = keyword<uint64_t>(kwargs, "host_memory_mb").value_or(0) << 20;
  o.reader = readerOf(kwargs);
  o.mapper.model = modelOf(kwargs);
  if (kwargs.contains("layers") && !kwargs["layers"].is_none()) o.mapper.extraLayers = layersNamed(kwargs["layers"].cast<py::iterable>());
  o.backend = mappingBackendNamed(keyword<std::string>(kwargs, "backend").value_or("auto"));
  o.mapper.run = runOf(kwargs, o.backend);
  if (auto range = keyword<double>(kwargs, "clearance")) {
    o.clearance = ClearanceOptions();
    o.clearance->range = *range;
  }
  o.allowEmpty = keyword<bool>(kwargs, "allow_empty").value_or(false);
  return o;
}

// The JSON fields as Python values: the dict map_file returns.
py::object pythonOf(const JsonField::Object& fields);

py::object pythonOf(const JsonField::Value& value) {
  return std::visit(
      [](const auto& v) -> py::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) return py::none();
        else if constexpr (std::is_same_v<T, JsonField::Object>) return pythonOf(v);
        else return py::cast(v);
      },
      value);
}

py::object pythonOf(const JsonField::Object& fields) {
  py::dict out;
  for (const JsonField& field : fields) out[py::str(field.name)] = pythonOf(field.value);
  return out;
}

const char* stageName(MappingProgress::Stage stage) {
  switch (stage) {
    case MappingProgress::Stage::Fingerprint: return "fingerprint";
    case MappingProgress::Stage::Mapping: return "mapping";
    case MappingProgress::Stage::Clearance: return "clearance";
  }
  return "?";
}

// Asked between two chunks of a store run: `stop()` answered true (1), or Ctrl-C (SIGINT:
// Python's handler has run by then and left KeyboardInterrupt pending, which is cleared, since
// the dict says where the run stopped).
int stopRequested(const std::optional<py::function>& stop) {
  py::gil_scoped_acquire gil;
  if (stop && py::bool_((*stop)())) return 1;
  if (PyErr_CheckSignals() == 0) return 0;
  PyErr_Clear();
  return SIGINT;
}

py::dict mapFile(const py::object& input, const py::object& output, const py::kwargs& kwargs) {
  MappingRunOptions options = optionsOf(input, output, kwargs);
  if (auto progress = keyword<py::function>(kwargs, "progress")) {
    options.progress = [progress = *progress](const MappingProgress& p) {
      py::gil_scoped_acquire gil;
      (*progress)(stageName(p.stage), p.done, p.total);
    };
  }
  options.stopRequested = [stop = keyword<py::function>(kwargs, "stop")] { return stopRequested(stop); };
  const std::shared_ptr<PyContext> context = contextOrDefault(kwargs.contains("context") ? py::object(kwargs["context"]) : py::object(py::none()));
  MappingRunStats stats;
  {
    ContextUse use(*context, input.ptr(), "map_file");
    py::gil_scoped_release release;
    stats = MappingRun::map(context->get(), std::move(options));
  }
  py::dict out = pythonOf(stats.jsonFields());
  if (stats.stopped)
    out["stopped"] = py::dict(py::arg("checkpoint") = stats.stopped->checkpoint, py::arg("rays_taken") = stats.stopped->raysTaken,
                              py::arg("by") = stats.stopped->request == SIGINT ? "SIGINT" : "stop");
  return out;
}

}  // namespace

void bindMapFile(py::module_& m) {
  m.def("map_file", &mapFile, py::arg("input"), py::arg("output") = py::none(), R"doc(
Maps a recording (a ROS 1 bag, an MCAP file, a PLY, PCD or KITTI file or folder) into a map
file (output=) or a region store (store=: an SQLite file, or a postgresql:// URL with session=),
as `voxen map` does: the same map, byte for byte. A store is saved into at every checkpoint
(checkpoint_s=, host_memory_mb= bounds the map held in memory) and an unfinished run in it is
continued with resume=True. stop (a callable, asked between chunks) answering True, or Ctrl-C,
stops a store run at a checkpoint: the dict then has "stopped" (checkpoint, rays_taken, by).
Keywords, as voxen map's flags: trajectory, resolution, region, model, hit, miss,
threshold, clamp, layers, ndt, backend, update_order, batch_size, gpu_cache_mb, max_range,
min_range, exclude_box, origin, end_point_as_free, exclude_origin, exclude_sample,
stop_on_occupied, forward_walk, threads, cloud_topic, fixed_frame, sensor_frame, start,
duration, deskew, pcd_viewpoint, clearance (a range in metres), decay_s (occupancy decay: voxels
no ray touched in the last decay_s seconds of ray time are forgotten, as --decay-s), allow_empty,
progress (called with stage, done, total), context. backend: "auto" (the default, as voxen map --device auto:
the CPU reference, opening no device, for an input of at most 20,000 rays whose count the
reader knows, where it gives the GPU's map bit for bit; else the GPU), "gpu" or "cpu". Returns
the run's statistics as a dict (the fields of `voxen map --json`; "backend" says where it ran
and why). The GIL is released while the run reads and maps.)doc");
}

}  // namespace voxen::python
