#include "matrices.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "arrays.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

std::string typeName(const py::handle& object) { return py::str(py::type::of(object)).cast<std::string>(); }

}  // namespace

Matrices matricesOf(const py::handle& object, const char* argument) {
  const std::string expected =
      std::string(argument) + " must be an array of shape (4, 4) or (N, 4, 4) " + kNumberDtypes + "; got ";
  py::array array;
  if (py::isinstance<py::array>(object)) {
    array = py::reinterpret_borrow<py::array>(object);
  } else if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object)) {
    // Nested lists of numbers, as float64 (NumPy would make int64 of integer lists).
    array = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(object);
    if (!array) throw py::value_error(expected + "a " + typeName(object) + " that is not an array of numbers");
  } else {
    throw py::value_error(expected + typeName(object));
  }
  const bool goodShape = (array.ndim() == 2 || array.ndim() == 3) && array.shape(array.ndim() - 1) == 4 &&
                         array.shape(array.ndim() - 2) == 4;
  if (!goodShape || !holdsRealNumbers(array)) throw py::value_error(expected + describeArray(array));
  array = floatOrConverted(array);  // integers as float64, once
  const bool isFloat64 = array.dtype().is(py::dtype::of<double>());
  Matrices out;
  out.single = array.ndim() == 2;
  const size_t n = out.single ? 1 : size_t(array.shape(0));
  out.values.resize(n);
  // By strides: any layout (views, Fortran order) reads the same, each entry once.
  const auto* bytes = static_cast<const char*>(array.data());
  const int d = int(array.ndim());
  const py::ssize_t matrixStride = out.single ? 0 : array.strides(0);
  const py::ssize_t rowStride = array.strides(d - 2), columnStride = array.strides(d - 1);
  for (size_t i = 0; i < n; ++i) {
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) {
        const char* item = bytes + py::ssize_t(i) * matrixStride + r * rowStride + c * columnStride;
        const double value = isFloat64 ? *reinterpret_cast<const double*>(item) : double(*reinterpret_cast<const float*>(item));
        if (!std::isfinite(value) || !std::isfinite(float(value))) {
          throw py::value_error(std::string(argument) + (out.single ? "" : "[" + std::to_string(i) + "]") + "[" +
                                std::to_string(r) + ", " + std::to_string(c) + "] is " + std::to_string(value) +
                                ": matrices must be finite (in float32)");
        }
        out.values[i][c][r] = float(value);
      }
    }
  }
  return out;
}

Ids idsOf(const py::handle& object, const char* argument) {
  const std::string expected = std::string(argument) + " must be an int or an array of shape (N,) of integers; got ";
  Ids out;
  if (py::isinstance<py::bool_>(object)) throw py::value_error(expected + "a bool");
  if (py::isinstance<py::int_>(object)) {
    out.single = true;
    out.values.push_back(object.cast<int64_t>());
    return out;
  }
  py::array array;
  if (py::isinstance<py::array>(object)) {
    array = py::reinterpret_borrow<py::array>(object);
  } else if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object)) {
    array = py::module_::import("numpy").attr("asarray")(object);
    // An empty list has NumPy's default dtype float64, but holds no non-integer.
    if (array.size() == 0 && array.ndim() == 1) return out;
  } else {
    // NumPy integer scalars (np.int64(3)) are not Python ints.
    if (py::hasattr(object, "dtype") && py::hasattr(object, "item")) {
      const char kind = object.attr("dtype").attr("kind").cast<char>();
      if (kind == 'i' || kind == 'u') {
        out.single = true;
        out.values.push_back(object.attr("item")().cast<int64_t>());
        return out;
      }
    }
    throw py::value_error(expected + typeName(object));
  }
  const char kind = array.dtype().kind();
  if (array.ndim() != 1 || (kind != 'i' && kind != 'u')) throw py::value_error(expected + describeArray(array));
  if (kind == 'u' && array.itemsize() == 8) {
    // Past int64's range no id is live; saturate rather than wrap to -1 (a top-level parent).
    auto values = py::array_t<uint64_t, py::array::forcecast>::ensure(array);
    for (py::ssize_t i = 0; i < values.size(); ++i)
      out.values.push_back(int64_t(std::min<uint64_t>(values.data()[i], uint64_t(INT64_MAX))));
    return out;
  }
  auto values = py::array_t<int64_t, py::array::forcecast>::ensure(array);
  out.values.assign(values.data(), values.data() + values.size());
  return out;
}

py::array_t<float> matrixArray(const std::vector<glm::mat4>& matrices) {
  py::array_t<float> out({py::ssize_t(matrices.size()), py::ssize_t(4), py::ssize_t(4)});
  float* data = out.mutable_data();
  for (size_t i = 0; i < matrices.size(); ++i)
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) data[16 * i + 4 * r + c] = matrices[i][c][r];
  return out;
}

}  // namespace voxen::python
