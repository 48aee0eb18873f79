#include "float_arrays.hpp"

#include <algorithm>
#include <string>

#include "arrays.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

std::string expectedShape(bool table, std::initializer_list<size_t> columns) {
  if (!table) return "(N,)";
  std::string text;
  for (size_t k : columns) text += std::string(text.empty() ? "" : " or ") + "(M, " + std::to_string(k) + ")";
  return text;
}

// Lists and tuples of numbers are taken as float64, as Points3 takes them.
py::array asArray(const py::handle& object, const std::string& what) {
  if (py::isinstance<py::array>(object)) return py::reinterpret_borrow<py::array>(object);
  if (!py::isinstance<py::str>(object)) {
    auto converted = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(object);
    if (converted) return converted;
    PyErr_Clear();
  }
  throw py::value_error(what + "; got " + py::str(py::type::of(object)).cast<std::string>());
}

}  // namespace

FloatArray FloatArray::vector(const py::handle& object, const char* argument) {
  return table(object, argument, {});
}

FloatArray FloatArray::table(const py::handle& object, const char* argument, std::initializer_list<size_t> columns) {
  const bool isTable = columns.size() > 0;
  const std::string what = std::string(argument) + " must be an array of shape " + expectedShape(isTable, columns) + " " +
                           kNumberDtypes;
  const py::array given = asArray(object, what);
  const bool shapeFits = isTable ? given.ndim() == 2 && std::find(columns.begin(), columns.end(), size_t(given.shape(1))) != columns.end()
                                 : given.ndim() == 1;
  if (!shapeFits || !holdsRealNumbers(given)) throw py::value_error(what + "; got " + describeArray(given));
  const py::array array = floatOrConverted(given);  // integers as float64, once
  const bool isFloat64 = array.dtype().is(py::dtype::of<double>());

  FloatArray result;
  result.rows_ = size_t(array.shape(0));
  result.columns_ = isTable ? size_t(array.shape(1)) : 1;
  const size_t count = result.rows_ * result.columns_;
  if (count == 0) return result;
  if (isFloat64 && (array.flags() & py::array::c_style)) {
    result.keepAlive_ = array;
    result.values_ = std::span<const double>(static_cast<const double*>(array.data()), count);
    return result;
  }
  result.copy_.resize(count);
  const auto* bytes = static_cast<const char*>(array.data());
  const py::ssize_t rowStride = array.strides(0), columnStride = isTable ? array.strides(1) : 0;
  for (size_t i = 0; i < result.rows_; ++i) {
    for (size_t c = 0; c < result.columns_; ++c) {
      const char* item = bytes + py::ssize_t(i) * rowStride + py::ssize_t(c) * columnStride;
      result.copy_[i * result.columns_ + c] =
          isFloat64 ? *reinterpret_cast<const double*>(item) : double(*reinterpret_cast<const float*>(item));
    }
  }
  result.values_ = result.copy_;
  return result;
}

}  // namespace voxen::python
