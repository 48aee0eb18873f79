# cmake -P script behind the `install_consumer` test: installs the build tree into a
# scratch prefix, then configures, builds and runs tests/install_consumer against it, and
# then SAMPLE_SOURCE_DIR (samples/custom_layer: a program's own layer and pass, its SPIR-V
# compiled by its build against the installed GLSL includes) as a project of its own.
# Inputs: BUILD_DIR, CONSUMER_SOURCE_DIR, SAMPLE_SOURCE_DIR (optional), BUILD_TYPE,
# GENERATOR (optional), CXX_COMPILER, C_COMPILER.
foreach(_var BUILD_DIR CONSUMER_SOURCE_DIR)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_install_test.cmake needs -D${_var}=...")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

set(_prefix "${BUILD_DIR}/install-test")
set(_consumer_build "${BUILD_DIR}/install-consumer-build")
set(_sample_build "${BUILD_DIR}/install-custom-layer-build")
file(REMOVE_RECURSE "${_prefix}" "${_consumer_build}" "${_sample_build}")

function(_run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${step} failed (${_rc})\n--- stdout\n${_out}\n--- stderr\n${_err}")
  endif()
  message(STATUS "install_consumer: ${step} ok")
  set(_last_output "${_out}" PARENT_SCOPE)
endfunction()

_run("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${_prefix}" --config "${BUILD_TYPE}")

set(_configure "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${_consumer_build}"
  "-DCMAKE_PREFIX_PATH=${_prefix}" "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
if(GENERATOR)
  list(APPEND _configure -G "${GENERATOR}")
endif()
if(CXX_COMPILER)
  list(APPEND _configure "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(C_COMPILER)
  list(APPEND _configure "-DCMAKE_C_COMPILER=${C_COMPILER}")
endif()
_run("configure the consumer" ${_configure})
_run("build the consumer" "${CMAKE_COMMAND}" --build "${_consumer_build}" --config "${BUILD_TYPE}")

# The consumer must not have reached into the source or build tree for headers.
file(READ "${_consumer_build}/CMakeCache.txt" _cache)
string(FIND "${_cache}" "voxen_DIR:PATH=${_prefix}" _found)
if(_found EQUAL -1)
  message(FATAL_ERROR "install_consumer: find_package(voxen) did not use the installed package under ${_prefix}")
endif()

set(_exe "${_consumer_build}/voxen_install_consumer")
if(NOT EXISTS "${_exe}")
  set(_exe "${_consumer_build}/${BUILD_TYPE}/voxen_install_consumer")
endif()
_run("run the consumer" "${_exe}")
message(STATUS "${_last_output}")

if(SAMPLE_SOURCE_DIR)
  # The same configure line, for the sample's folder as its own project.
  set(_configure_sample ${_configure})
  list(TRANSFORM _configure_sample REPLACE "^${CONSUMER_SOURCE_DIR}$" "${SAMPLE_SOURCE_DIR}")
  list(TRANSFORM _configure_sample REPLACE "^${_consumer_build}$" "${_sample_build}")
  _run("configure samples/custom_layer" ${_configure_sample})
  _run("build samples/custom_layer" "${CMAKE_COMMAND}" --build "${_sample_build}" --config "${BUILD_TYPE}")
  file(READ "${_sample_build}/CMakeCache.txt" _cache)
  string(FIND "${_cache}" "voxen_DIR:PATH=${_prefix}" _found)
  if(_found EQUAL -1)
    message(FATAL_ERROR "install_consumer: samples/custom_layer did not use the installed package under ${_prefix}")
  endif()
  set(_exe "${_sample_build}/custom_layer")
  if(NOT EXISTS "${_exe}")
    set(_exe "${_sample_build}/${BUILD_TYPE}/custom_layer")
  endif()
  # With the validation layer, as every test: any message fails the sample.
  set(ENV{VOXEN_VALIDATION} 1)
  _run("run samples/custom_layer" "${_exe}")
  message(STATUS "${_last_output}")
endif()
