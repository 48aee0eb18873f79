#pragma once
// NumPy arrays in and out of the engine's spans. Inputs are checked here, once, for every
// function: the message names the argument, the shape and dtype expected and those given.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <glm/vec3.hpp>

#include <span>
#include <vector>

namespace voxen::python {

// An (N, 3) array of points as the engine's glm::dvec3 span. A C-contiguous float64 array
// is read in place (no copy: its memory is 3 doubles per row, as dvec3's); float32 and
// other layouts (strided views, Fortran order) are converted once, as are integer arrays
// (np.int64, np.int32, ...: coordinates in whole metres are coordinates). Anything else
// (bool, complex, strings, objects; another shape) is refused with ValueError.
class Points3 {
 public:
  Points3(const pybind11::handle& object, const char* argument);
  std::span<const glm::dvec3> span() const { return span_; }
  size_t size() const { return span_.size(); }

 private:
  pybind11::array keepAlive_;
  std::vector<glm::dvec3> copy_;
  std::span<const glm::dvec3> span_;
};

// A scalar or an (N,) array of doubles, for per-item values such as ray ranges.
std::vector<double> perItem(const pybind11::handle& object, const char* argument, size_t count);

// Every array argument of one call has the same N: `first` names the reference argument.
void requireSameLength(const char* first, size_t firstCount, const char* second, size_t secondCount);

// New arrays the caller owns: shape (n) or (n, columns).
template <typename T>
pybind11::array_t<T> newArray(size_t n) {
  return pybind11::array_t<T>({static_cast<pybind11::ssize_t>(n)});
}
template <typename T>
pybind11::array_t<T> newArray(size_t n, size_t columns) {
  return pybind11::array_t<T>({static_cast<pybind11::ssize_t>(n), static_cast<pybind11::ssize_t>(columns)});
}

// "shape (4, 2) and dtype int64", for messages.
std::string describeArray(const pybind11::array& array);

// What the float-array readers take, for their messages: "float or integer numbers".
inline constexpr const char* kNumberDtypes = "with a float or integer dtype";

// Whether an array's dtype is a real number type: float or (unsigned) integer, not bool,
// complex, strings or objects.
bool holdsRealNumbers(const pybind11::array& array);

// An array of real numbers other than float32 and float64 (integers, float16, longdouble) as
// a new C-contiguous float64 array; float32 and float64 arrays as they are.
pybind11::array floatOrConverted(const pybind11::array& array);

}  // namespace voxen::python
