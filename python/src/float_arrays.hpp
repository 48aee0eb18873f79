#pragma once
// Float arrays other than (N, 3) points: per-item values such as times, shape (N,), and
// tables such as trajectories, shape (M, K) for one of a few K. Checked once, with the same
// wording as Points3 (argument, shape and dtype expected and given).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <initializer_list>
#include <span>
#include <vector>

namespace voxen::python {

// Real numbers as doubles, row-major: read in place when the array is a C-contiguous float64
// one, converted once otherwise (float32, integers, strided views, Fortran order).
class FloatArray {
 public:
  // An (N,) array.
  static FloatArray vector(const pybind11::handle& object, const char* argument);
  // An (M, K) array with K one of `columns`.
  static FloatArray table(const pybind11::handle& object, const char* argument, std::initializer_list<size_t> columns);

  std::span<const double> values() const { return values_; }
  size_t rows() const { return rows_; }
  size_t columns() const { return columns_; }
  double at(size_t row, size_t column) const { return values_[row * columns_ + column]; }

 private:
  pybind11::array keepAlive_;
  std::vector<double> copy_;
  std::span<const double> values_;
  size_t rows_ = 0, columns_ = 1;
};

}  // namespace voxen::python
