#include "arrays.hpp"

#include <cmath>
#include <sstream>

namespace py = pybind11;

namespace voxen::python {
namespace {

static_assert(sizeof(glm::dvec3) == 3 * sizeof(double), "a C-contiguous (N, 3) float64 array is read as dvec3");

std::string dtypeName(const py::array& array) { return py::str(array.dtype()).cast<std::string>(); }

py::array asArray(const py::handle& object, const char* argument) {
  if (py::isinstance<py::array>(object)) return py::reinterpret_borrow<py::array>(object);
  // Lists and tuples of numbers are taken as float64.
  if (!py::isinstance<py::str>(object)) {
    auto converted = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(object);
    if (converted) return converted;
    PyErr_Clear();
  }
  throw py::value_error(std::string(argument) + " must be an array of shape (N, 3) " + kNumberDtypes + "; got " +
                        py::str(py::type::of(object)).cast<std::string>());
}

}  // namespace

bool holdsRealNumbers(const py::array& array) {
  const char kind = array.dtype().kind();
  return kind == 'f' || kind == 'i' || kind == 'u';
}

py::array floatOrConverted(const py::array& array) {
  if (array.dtype().is(py::dtype::of<double>()) || array.dtype().is(py::dtype::of<float>())) return array;
  return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(array);
}

std::string describeArray(const py::array& array) {
  std::ostringstream text;
  text << "shape (";
  for (py::ssize_t i = 0; i < array.ndim(); ++i) text << (i ? ", " : "") << array.shape(i);
  if (array.ndim() == 1) text << ",";
  text << ") and dtype " << dtypeName(array);
  return text.str();
}

Points3::Points3(const py::handle& object, const char* argument) {
  const py::array given = asArray(object, argument);
  if (given.ndim() != 2 || given.shape(1) != 3 || !holdsRealNumbers(given)) {
    throw py::value_error(std::string(argument) + " must be an array of shape (N, 3) " + kNumberDtypes + "; got " +
                          describeArray(given));
  }
  const py::array array = floatOrConverted(given);  // integers as float64, once
  const bool isFloat64 = array.dtype().is(py::dtype::of<double>());
  const size_t n = static_cast<size_t>(array.shape(0));
  if (n == 0) return;
  if (isFloat64 && (array.flags() & py::array::c_style)) {
    keepAlive_ = array;
    span_ = std::span<const glm::dvec3>(static_cast<const glm::dvec3*>(array.data()), n);
    return;
  }
  // Strided or float32: one pass through NumPy's own element access by strides.
  copy_.resize(n);
  const auto* bytes = static_cast<const char*>(array.data());
  const py::ssize_t rowStride = array.strides(0), columnStride = array.strides(1);
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      const char* item = bytes + py::ssize_t(i) * rowStride + c * columnStride;
      copy_[i][c] = isFloat64 ? *reinterpret_cast<const double*>(item) : double(*reinterpret_cast<const float*>(item));
    }
  }
  span_ = copy_;
}

namespace {

std::vector<double> perItemValues(const py::handle& object, const char* argument, size_t count) {
  // Python numbers and NumPy scalars (np.float32(2) is no Python float).
  if (!py::isinstance<py::array>(object) && PyNumber_Check(object.ptr()) && !py::isinstance<py::str>(object)) {
    return std::vector<double>(count, py::reinterpret_borrow<py::object>(object).cast<double>());
  }
  if (py::isinstance<py::array>(object)) {
    py::array array = py::reinterpret_borrow<py::array>(object);
    if (array.ndim() == 0) return std::vector<double>(count, array.attr("item")().cast<double>());
    const char kind = array.dtype().kind();
    if (array.ndim() != 1 || size_t(array.shape(0)) != count || (kind != 'f' && kind != 'i' && kind != 'u')) {
      throw py::value_error(std::string(argument) + " must be a number or an array of shape (" + std::to_string(count) +
                            ",) of numbers; got " + describeArray(array));
    }
    auto values = py::array_t<double, py::array::forcecast>::ensure(array);
    return std::vector<double>(values.data(), values.data() + count);
  }
  throw py::value_error(std::string(argument) + " must be a number or an array of shape (" + std::to_string(count) +
                        ",); got " + py::str(py::type::of(object)).cast<std::string>());
}

}  // namespace

std::vector<double> perItem(const py::handle& object, const char* argument, size_t count) {
  std::vector<double> values = perItemValues(object, argument, count);
  if (count == 0 && !py::isinstance<py::array>(object)) {
    // A NaN is a bad argument even with no rays to apply it to.
    if (std::isnan(perItemValues(object, argument, 1)[0])) throw py::value_error(std::string(argument) + " is NaN");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      throw py::value_error(std::string(argument) + " is NaN" + (values.size() > 1 ? " at index " + std::to_string(i) : ""));
    }
  }
  return values;
}

void requireSameLength(const char* first, size_t firstCount, const char* second, size_t secondCount) {
  if (firstCount != secondCount) {
    throw py::value_error(std::string(second) + " has " + std::to_string(secondCount) + " rows but " + first + " has " +
                          std::to_string(firstCount) + ": they must have the same length");
  }
}

}  // namespace voxen::python
