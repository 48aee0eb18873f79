// voxen.TransformTree: the engine's transform tree (voxen/transform) with its world matrices
// computed on a Context's GPU (GpuTransformTree) or by the CPU reference the GPU is tested
// against. Matrices are float32, the engine's precision, in NumPy's row-major order.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <limits>
#include <memory>
#include <string>

#include "bindings.hpp"
#include "context.hpp"
#include "matrices.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"
#include "voxen/transform/transform_tree.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

// Members in this order: the GPU tree refers to `tree` and to the Context's scheduler, so it
// goes first. Its methods hold the Context for their call (context_use.hpp): process() reads
// the tree with the GIL released, so even add() on another thread would race it.
struct PyTransformTree {
  PyTransformTree() = default;
  PyTransformTree(PyTransformTree&&) = default;
  PyTransformTree& operator=(PyTransformTree&&) = delete;
  ~PyTransformTree() {
    // The GPU tree frees device memory through the Context: not while another thread uses it.
    if (!gpu) return;
    releaseOnContext(
        *context, this, "TransformTree.__del__", [this] { gpu.reset(); }, [this] { (void)gpu.release(); });
  }

  std::shared_ptr<PyContext> context;
  bool onGpu = true;
  TransformTree tree;
  std::unique_ptr<GpuTransformTree> gpu;
  bool downloaded = true;  // tree.worlds() hold the last process()'s results
};

// Python's node ids are the engine's indices; the engine's virtual root (0) is no node a
// caller made, so a top-level parent is None (or -1 in an array of parents).
constexpr int64_t kTopLevel = -1;

uint32_t liveNode(const PyTransformTree& self, int64_t id, const char* argument, size_t index, bool single) {
  if (id >= 1 && id < int64_t(self.tree.capacity()) && self.tree.live(uint32_t(id))) return uint32_t(id);
  const std::string where = single ? std::string(argument) : std::string(argument) + "[" + std::to_string(index) + "]";
  throw py::value_error(where + ": " + std::to_string(id) + " is not a node of this tree" +
                        (id == 0 ? " (ids start at 1; a top-level node's parent is None, or -1 in an array)" : ""));
}

PyTransformTree makeTree(const py::object& context, const std::string& backend) {
  if (backend != "gpu" && backend != "cpu")
    throw py::value_error("backend must be \"gpu\" or \"cpu\" (the CPU reference); got \"" + backend + "\"");
  PyTransformTree result;
  result.context = contextOrDefault(context);
  result.onGpu = backend == "gpu";
  return result;
}

py::object add(PyTransformTree& self, const py::object& parent, const py::object& local) {
  Matrices locals = matricesOf(local, "local");
  const size_t n = locals.values.size();
  Ids parents;
  if (parent.is_none()) {
    parents.single = true;
    parents.values = {kTopLevel};
  } else {
    parents = idsOf(parent, "parent");
  }
  if (locals.single && !parents.single)
    throw py::value_error("parent must be None or an int with one (4, 4) local matrix; got " +
                          std::to_string(parents.values.size()) + " parents (give local as (N, 4, 4))");
  if (!parents.single && parents.values.size() != n)
    throw py::value_error("parent has " + std::to_string(parents.values.size()) + " ids but local has " + std::to_string(n) +
                          " matrices: they must have the same length");
  // Every parent is checked before the first node is added, so a bad one adds nothing.
  std::vector<uint32_t> under(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t id = parents.values[parents.single ? 0 : i];
    under[i] = id == kTopLevel ? TransformTree::kRoot : liveNode(self, id, "parent", i, parents.single);
  }
  auto ids = py::array_t<int64_t>(py::ssize_t(n));
  int64_t* out = ids.mutable_data();
  for (size_t i = 0; i < n; ++i) out[i] = self.tree.add(under[i], locals.values[i]);
  if (locals.single) return py::int_(out[0]);
  return ids;
}

void setLocal(PyTransformTree& self, const py::object& idsObject, const py::object& local) {
  const Ids ids = idsOf(idsObject, "ids");
  Matrices locals = matricesOf(local, "local");
  if (ids.single != locals.single || ids.values.size() != locals.values.size())
    throw py::value_error("ids and local must match: an int with a (4, 4) matrix, or (N,) ids with (N, 4, 4) matrices; got " +
                          std::string(ids.single ? "an int" : std::to_string(ids.values.size()) + " ids") + " and " +
                          (locals.single ? "one (4, 4) matrix" : std::to_string(locals.values.size()) + " matrices"));
  std::vector<uint32_t> nodes(ids.values.size());
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = liveNode(self, ids.values[i], "ids", i, ids.single);
  self.tree.setLocal(nodes, locals.values);
}

void setParent(PyTransformTree& self, int64_t node, const py::object& parent) {
  const uint32_t moved = liveNode(self, node, "node", 0, true);
  uint32_t under = TransformTree::kRoot;
  if (!parent.is_none()) {
    const Ids id = idsOf(parent, "parent");
    if (!id.single) throw py::value_error("parent must be None or an int; got an array");
    if (id.values[0] != kTopLevel) under = liveNode(self, id.values[0], "parent", 0, true);
  }
  self.tree.setParent(moved, under);  // a parent inside the node's own subtree: voxen.Error
}

void process(PyTransformTree& self) {
  if (!self.onGpu) {
    self.tree.processCpu();
    return;
  }
  py::gil_scoped_release release;
  if (!self.gpu) self.gpu = std::make_unique<GpuTransformTree>(self.context->get().scheduler(), self.tree);
  self.gpu->process();
  self.downloaded = false;
}

// The worlds the last process() made, read back from the GPU once after it. Refused while
// changes wait for process(): the matrices would be those of an older tree.
void requireProcessed(PyTransformTree& self) {
  const bool pending = self.tree.structureChanged() || !self.tree.dirtyNodes().empty();
  if (pending && self.tree.size() > 0)
    throw Error("TransformTree.world(): the tree changed (add, set_local, set_parent or remove) since the last "
                "process(); call process() first");
  if (!self.downloaded) {
    py::gil_scoped_release release;
    self.gpu->download();
    self.downloaded = true;
  }
}

py::object world(PyTransformTree& self, const py::object& idsObject) {
  requireProcessed(self);
  std::vector<glm::mat4> matrices;
  if (idsObject.is_none()) {
    // Indexed by id: rows of ids that are no live node (0, removed ones) are NaN.
    glm::mat4 none;
    for (int c = 0; c < 4; ++c) none[c] = glm::vec4(std::numeric_limits<float>::quiet_NaN());
    matrices.resize(self.tree.capacity(), none);
    for (uint32_t n = 1; n < self.tree.capacity(); ++n)
      if (self.tree.live(n)) matrices[n] = self.tree.world(n);
    return matrixArray(matrices);
  }
  const Ids ids = idsOf(idsObject, "ids");
  for (size_t i = 0; i < ids.values.size(); ++i)
    matrices.push_back(self.tree.world(liveNode(self, ids.values[i], "ids", i, ids.single)));
  py::array_t<float> out = matrixArray(matrices);
  if (ids.single) return out.attr("reshape")(4, 4);
  return out;
}

}  // namespace

void bindTransformTree(py::module_& m) {
  py::class_<PyTransformTree>(m, "TransformTree", R"doc(
A transform tree (a scene graph): each node has a local matrix, and its world matrix is
its parent's world times its local (column vectors: world @ [x, y, z, 1]), computed level
by level on the GPU, or by the CPU reference the GPU is tested against.

TransformTree(context=None, backend="gpu")

context: a voxen.Context, None for the shared default; backend: "gpu", or "cpu" for the
single-threaded CPU reference. Matrices are float32, the engine's precision: float64 input
is rounded to float32. The GPU's worlds agree with the CPU reference to a relative
1e-5 per level of depth (float products in another order).

Node ids are ints from 1 up, reused after remove(). Local matrices may be integer arrays
too (converted). One thread at a time: a tree's Context, with every Mapper and tree on it,
is used by one thread at a time, and a call from a second thread while one runs raises
voxen.Error naming the rule (voxen.Context says more).
)doc")
      .def(py::init(&makeTree), py::arg("context") = py::none(), py::arg("backend") = "gpu")
      .def("add", onContext("TransformTree.add", &add), py::arg("parent"), py::arg("local"), R"doc(
Adds nodes; returns their ids.

parent None adds a top-level node; else the id of a node of this tree. local: a (4, 4)
matrix (returns one int id), or (N, 4, 4) matrices with parent None, one id, or an (N,)
integer array of ids in which -1 marks a top-level node (returns an (N,) int64 array).
A parent must exist before the call: nodes added by the same call cannot be parents in it.
A bad parent, shape, dtype or non-finite entry raises ValueError and adds nothing.
)doc")
      .def("set_local", onContext("TransformTree.set_local", &setLocal), py::arg("ids"), py::arg("local"), R"doc(
Sets the local matrices of existing nodes: an int id with a (4, 4) matrix, or (N,) ids
with (N, 4, 4) matrices (N may be 0). A bad id, shape, dtype or non-finite entry raises
ValueError and changes nothing. The worlds change at the next process().
)doc")
      .def("set_parent", onContext("TransformTree.set_parent", &setParent), py::arg("node"), py::arg("parent"), R"doc(
Moves a node and its subtree under `parent` (None: to the top level), keeping its local
matrix. Raises voxen.Error when the parent lies inside the node's own subtree (a cycle).
)doc")
      .def(
          "remove",
          [](PyTransformTree& self, int64_t node) {
            ContextUse use(*self.context, &self, "TransformTree.remove");
            self.tree.remove(liveNode(self, node, "node", 0, true));
          },
          py::arg("node"), "Removes a node and its whole subtree; their ids are reused by later adds.")
      .def("process", onContext("TransformTree.process", &process), R"doc(
Computes the world matrix of every node whose local matrix, or an ancestor's, changed
since the last process() (on the GPU: submitted with the GIL released; world() waits).
)doc")
      .def("world", onContext("TransformTree.world", &world), py::arg("ids") = py::none(), R"doc(
World matrices as of the last process(), float32: with no ids, a (capacity, 4, 4) array
indexed by node id (rows of ids that are no node, such as 0 or removed ones, are NaN);
with an int id, its (4, 4) matrix; with an (N,) integer array of ids, (N, 4, 4).
Raises ValueError for an id that is no node, and voxen.Error when the tree changed since
the last process().
)doc")
      .def(
          "__len__",
          [](PyTransformTree& self) {
            ContextUse use(*self.context, &self, "TransformTree.__len__");
            return self.tree.size();
          },
          "The number of nodes.")
      .def_property_readonly(
          "capacity",
          [](PyTransformTree& self) {
            ContextUse use(*self.context, &self, "TransformTree.capacity");
            return self.tree.capacity();
          },
          "One more than the largest node id in use or free: the rows of world().")
      .def_property_readonly(
          "context", [](const PyTransformTree& self) { return self.context; }, "The voxen.Context this tree runs on.");
}

}  // namespace voxen::python
