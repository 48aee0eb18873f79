// voxen.import_octomap and Mapper.export_octomap: the engine's OctoMap binary tree (.bt)
// reader and writer, as `voxen import-octomap` and `voxen export --octomap` run them, so a
// file written from Python is the CLI's byte for byte.
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "bindings.hpp"
#include "py_mapper.hpp"
#include "voxen/context.hpp"
#include "voxen/export/octomap_io.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

PyMapper importOctomapFile(const py::object& path, int32_t region, const py::object& context, const std::string& backend) {
  const std::filesystem::path file = pathOf(path);
  // OctoMap's model, as the CLI's import takes it: occupied leaves at its upper clamp, free
  // ones at its lower; the resolution comes from the file.
  OccupancyModel base = OccupancyModel::octomap();
  base.regionSize = region;
  base.validate();  // before the file is read
  MapperRunOptions run;
  run.backend = backendNamed(backend);
  PyMapper result(contextOrDefault(context));
  voxen::Context& engine = result.context->get();
  {
    py::gil_scoped_release release;
    // The tree's expansion is checked against the Context's budget before a region exists.
    OccupancyMap map = importOctomap(file, base, {engine.memoryBudgetBytes(), engine.memoryHint()});
    result.mapper = std::make_unique<voxen::Mapper>(voxen::Mapper::fromMap(engine, std::move(map), run));
  }
  return result;
}

py::dict exportOctomapFile(PyMapper& self, const py::object& path) {
  const std::filesystem::path file = pathOf(path);
  ExportCounts counts;
  {
    py::gil_scoped_release release;
    counts = exportOctomap(self.mapper->map(), file);
  }
  py::dict result;
  result["voxels"] = counts.written;
  result["non_finite"] = counts.nonFinite;
  return result;
}

}  // namespace

void bindMapperOctomap(py::module_& m, MapperClass& mapperClass) {
  mapperClass.def("export_octomap", onContext("Mapper.export_octomap", &exportOctomapFile), py::arg("path"), R"doc(
Writes the map as an OctoMap binary tree (.bt, OcTree::writeBinary's format, which octovis
and the ROS tools read), as `voxen export MAP --octomap PATH` does: occupied and free
leaves at the finest level, pruned; unobserved voxels unknown. Classes only: log-odds and
layers do not survive. The file is written atomically.

Returns a dict: voxels (the observed voxels written, before pruning) and non_finite (those
left out for a NaN or -inf value). Raises voxen.Error when an observed voxel lies outside
OctoMap's key range (voxel indices -32768..32767) or the file cannot be written.
)doc");
  m.def("import_octomap", &importOctomapFile, py::arg("path"), py::arg("region") = 32, py::arg("context") = py::none(),
        py::arg("backend") = "gpu", R"doc(
Reads an OctoMap binary tree (.bt) into a new Mapper, as `voxen import-octomap PATH
--region-size REGION` does: the resolution comes from the file, the occupancy model is
OctoMap's (occupied leaves at its upper clamp, free ones at its lower; a leaf above the
finest level sets every voxel it covers). region: voxels per region edge (4 to 128);
context: a voxen.Context, None for the shared default; backend: "gpu" or "cpu".

An empty tree gives an empty Mapper (the CLI refuses to write it unless --allow-empty).
Raises voxen.Error naming the file for an unreadable file, a bad header, a tree type other
than OcTree, truncated data, or a tree that would expand past the Context's memory budget.
)doc");
}

}  // namespace voxen::python
