#pragma once
// One registration function per file, called in order by module.cpp: errors first, since
// the others' signatures and translators refer to its exception types.
#include <pybind11/pybind11.h>

namespace voxen::python {

void bindErrors(pybind11::module_& m);
void bindContext(pybind11::module_& m);
void bindMapper(pybind11::module_& m);
void bindReadCloud(pybind11::module_& m);
void bindMapFile(pybind11::module_& m);
void bindTransformTree(pybind11::module_& m);

}  // namespace voxen::python
