#pragma once
// NumPy (4, 4) and (N, 4, 4) matrices and integer ids in and out of the transform tree.
// NumPy's matrices are row-major (m[row, column]) and glm's column-major (m[column][row]):
// a matrix crosses over transposed in memory, the same matrix in both languages.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <glm/mat4x4.hpp>

#include <cstdint>
#include <vector>

namespace voxen::python {

// A (4, 4) or (N, 4, 4) array of finite real numbers (float or integer, any layout) as glm
// matrices in float32, the transform tree's precision. ValueError naming `argument`, the
// shape and dtype expected and given, or the first matrix with a NaN/inf entry.
struct Matrices {
  std::vector<glm::mat4> values;
  bool single = false;  // given as one (4, 4) matrix
};
Matrices matricesOf(const pybind11::handle& object, const char* argument);

// An int or an (N,) integer array (any layout) as int64 values; `single` for an int. A
// float, a bool or an array of another dtype or shape is a ValueError naming `argument`.
struct Ids {
  std::vector<int64_t> values;
  bool single = false;
};
Ids idsOf(const pybind11::handle& object, const char* argument);

// glm matrices as a new (N, 4, 4) float32 array.
pybind11::array_t<float> matrixArray(const std::vector<glm::mat4>& matrices);

}  // namespace voxen::python
