// Engine exceptions as Python exceptions, by one translator: voxen::Error becomes voxen.Error
// with the engine's message; the engine's errors about a caller's input (a setting out of
// range, a query item it cannot answer) are also ValueError, so code that catches
// ValueError for bad arguments catches them too.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/query/query_types.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

// Owned by the module (attributes hold references); these only point at them.
PyObject* errorType = nullptr;
PyObject* settingErrorType = nullptr;
PyObject* inputErrorType = nullptr;

PyObject* newException(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  std::string qualified = std::string("voxen.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (!type) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(type));
  return type;
}

}  // namespace

void bindErrors(py::module_& m) {
  errorType = newException(m, "Error", py::make_tuple(py::reinterpret_borrow<py::object>(PyExc_RuntimeError)),
                           "An error the Voxen engine reported (its message says what failed and where).");
  py::object error = py::reinterpret_borrow<py::object>(errorType);
  py::object valueError = py::reinterpret_borrow<py::object>(PyExc_ValueError);
  settingErrorType = newException(m, "SettingError", py::make_tuple(error, valueError),
                                  "A setting out of range or in need of a change (also a ValueError); "
                                  "the message names the setting.");
  inputErrorType = newException(m, "InputError", py::make_tuple(error, valueError),
                                "An input item the engine cannot answer, such as a non-finite point "
                                "(also a ValueError); the message names the item's index.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SettingError& e) {
      PyErr_SetString(settingErrorType, e.what());
    } catch (const ClearanceSettingsError& e) {  // a clearance setting that cannot work: a setting, too
      PyErr_SetString(settingErrorType, e.what());
    } catch (const QueryInputError& e) {
      PyErr_SetString(inputErrorType, e.what());
    } catch (const Error& e) {
      PyErr_SetString(errorType, e.what());
    }
  });
}

}  // namespace voxen::python
