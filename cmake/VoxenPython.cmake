# VOXEN_PYTHON: the Python package (python/), ON by default when an interpreter with its
# development files, NumPy and pybind11 are found; OFF with a status line saying what is
# missing otherwise, so a build without them still configures.
#
# The first python3 on PATH may be one without NumPy (pyenv's shims): FindPython3 stops at the
# first interpreter it meets, so when that one lacks NumPy the system's /usr/bin/python3
# (where Debian's python3-numpy and python3-pybind11 live) is tried before giving up.
# -DPython3_EXECUTABLE=... picks one explicitly (and is never replaced).
set(_voxen_python_missing "")
set(_voxen_python_chosen ${Python3_EXECUTABLE})  # given with -D (or kept from a configure before)
find_package(Python3 COMPONENTS Interpreter Development.Module NumPy QUIET)
if(NOT Python3_NumPy_FOUND AND NOT _voxen_python_chosen AND EXISTS /usr/bin/python3
   AND NOT Python3_EXECUTABLE STREQUAL "/usr/bin/python3")
  unset(Python3_EXECUTABLE CACHE)
  unset(_Python3_EXECUTABLE CACHE)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter for VOXEN_PYTHON" FORCE)
  find_package(Python3 COMPONENTS Interpreter Development.Module NumPy QUIET)
endif()
if(NOT Python3_FOUND OR NOT Python3_Development.Module_FOUND)
  list(APPEND _voxen_python_missing "Python 3 development files (python3-dev)")
elseif(NOT Python3_NumPy_FOUND)
  list(APPEND _voxen_python_missing "NumPy for ${Python3_EXECUTABLE} (python3-numpy)")
endif()
if(NOT _voxen_python_missing)
  # pybind11 uses the Python3 found above (its new FindPython mode).
  set(PYBIND11_FINDPYTHON ON)
  find_package(pybind11 CONFIG QUIET)
  if(NOT pybind11_FOUND)
    list(APPEND _voxen_python_missing "pybind11 (python3-pybind11 / pybind11-dev)")
  endif()
endif()
if(_voxen_python_missing)
  list(JOIN _voxen_python_missing ", " _voxen_python_missing_text)
  message(STATUS "Python package: OFF (missing ${_voxen_python_missing_text})")
  option(VOXEN_PYTHON "Build the Python package voxen (pybind11, NumPy)" OFF)
  if(VOXEN_PYTHON)
    message(FATAL_ERROR "VOXEN_PYTHON is ON but ${_voxen_python_missing_text} not found")
  endif()
else()
  option(VOXEN_PYTHON "Build the Python package voxen (pybind11, NumPy)" ON)
  message(STATUS "Python package: ${VOXEN_PYTHON} (${Python3_EXECUTABLE}, Python ${Python3_VERSION}, NumPy ${Python3_NumPy_VERSION}, pybind11 ${pybind11_VERSION})")
endif()
