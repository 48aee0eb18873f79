#include "context.hpp"

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/device_requirements.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

DeviceChoice deviceChoice(const py::object& device) {
  if (device.is_none()) return DeviceChoice::best();
  if (py::isinstance<py::bool_>(device)) throw py::value_error("device must be None, an index or a name; got a bool");
  if (py::isinstance<py::int_>(device)) {
    const long long index = device.cast<long long>();
    if (index < 0 || index > INT32_MAX) {
      throw py::value_error("device index must be 0 or more (voxen.devices() lists them); got " + std::to_string(index));
    }
    return DeviceChoice::index(uint32_t(index));
  }
  if (py::isinstance<py::str>(device)) {
    std::string name = device.cast<std::string>();
    if (name.empty()) throw py::value_error("device name is empty; use None for the best device");
    return DeviceChoice::named(name);
  }
  throw py::value_error("device must be None, an index (int) or a name (str); got " +
                        py::str(py::type::of(device)).cast<std::string>());
}

py::list listDevices() {
  std::vector<PhysicalDeviceSummary> found;
  {
    py::gil_scoped_release release;
    found = Device::listDevices();
  }
  py::list result;
  for (size_t i = 0; i < found.size(); ++i) {
    py::dict entry;
    entry["index"] = i;
    entry["name"] = found[i].name;
    entry["type"] = deviceTypeName(found[i].type);
    entry["driver"] = found[i].driverName;
    entry["usable"] = found[i].meetsRequirements;
    entry["missing"] = found[i].missing;
    result.append(entry);
  }
  return result;
}

}  // namespace

PyContext::PyContext(const py::object& device, bool validation) {
  ContextOptions options;
  options.device = deviceChoice(device);
  options.validation = validation;
  // Kept rather than logged, so a program (or a test) can see them: Context.validation_messages.
  options.onValidationMessage = [messages = messages_](const ValidationMessage& message) {
    std::lock_guard lock(messages->mutex);
    messages->list.push_back(message.id + ": " + message.text);
  };
  context_ = std::make_unique<voxen::Context>(std::move(options));
}

std::vector<std::string> PyContext::validationMessages() const {
  std::lock_guard lock(messages_->mutex);
  return messages_->list;
}

void PyContext::clearValidationMessages() {
  std::lock_guard lock(messages_->mutex);
  messages_->list.clear();
}

std::shared_ptr<PyContext> contextOrDefault(const py::object& context) {
  if (!context.is_none()) {
    if (!py::isinstance<PyContext>(context)) {
      throw py::value_error("context must be a voxen.Context or None; got " + py::str(py::type::of(context)).cast<std::string>());
    }
    return context.cast<std::shared_ptr<PyContext>>();
  }
  // Held by the module for the interpreter's life: every Mapper made without a context
  // shares one device and its compiled pipelines, as C++ programs share one Context.
  static std::shared_ptr<PyContext>* defaultContext = new std::shared_ptr<PyContext>();
  if (!*defaultContext) {
    *defaultContext = std::make_shared<PyContext>(py::none(), false);
    (*defaultContext)->sharedDefault = true;
  }
  return *defaultContext;
}

void bindContext(py::module_& m) {
  py::class_<PyContext, std::shared_ptr<PyContext>>(m, "Context", R"doc(
The Vulkan device, shader library and scheduler that Mappers run on.

Context(device=None, validation=False)

device: None for the best device ($VOXEN_DEVICE when set, else discrete GPU > integrated
GPU > CPU driver), an int index into voxen.devices(), or a str matched case-insensitively
against device names. validation: the Vulkan validation layer (also on with
VOXEN_VALIDATION=1); its messages are kept in validation_messages.

The device opens at the first GPU work (or open()); errors opening it raise voxen.Error
naming the devices found. One Context serves any number of Mappers.

Threads: a Context, with every Mapper and TransformTree on it, is used by one thread at a
time. Calls release the GIL while the GPU works, so another thread runs meanwhile, but a
call on the same Context from a second thread while one is running raises voxen.Error
naming this rule, the call running and its thread (the engine cannot yet be driven from
two threads at once). Mappers made without context= all share the default Context. To map
in parallel, give each thread its own Context; to share one, hold a threading.Lock around
the calls. Separate Contexts on one device run side by side.
)doc")
      .def(py::init<const py::object&, bool>(), py::arg("device") = py::none(), py::arg("validation") = false)
      .def(
          "open",
          [](PyContext& self) {
            ContextUse use(self, &self, "Context.open");
            py::gil_scoped_release release;
            self.get().open();
          },
          "Opens the device now (it opens at the first GPU work otherwise); raises voxen.Error when none fits.")
      .def_property_readonly(
          "device_name",
          [](PyContext& self) {
            std::string name;
            {
              ContextUse use(self, &self, "Context.device_name");
              py::gil_scoped_release release;
              name = self.get().deviceInfo().name;
            }
            return name;
          },
          "The name of the device this Context runs on (opens it).")
      .def_property_readonly("validation_messages", &PyContext::validationMessages,
                             "The validation layer's messages so far, as 'id: text' strings (empty without validation).")
      .def("clear_validation_messages", &PyContext::clearValidationMessages, "Forgets the validation messages kept so far.")
      .def_property_readonly("memory_budget", [](PyContext& self) { return self.get().memoryBudgetBytes(); },
                             "Host bytes that maps and GPU caches on this Context may take.");
  m.def("devices", &listDevices, R"doc(
The Vulkan devices the loader reports, whether or not Voxen can use them: a list of dicts
with index, name, type, driver, usable (bool) and missing (what an unusable one lacks).
)doc");
}

}  // namespace voxen::python
