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

# The exported targets keep volk private: no VK_NO_PROTOTYPES for consumers, no public
# header that includes volk.h.
file(GLOB _targets_files "${_prefix}/lib*/cmake/voxen/voxenTargets*.cmake")
foreach(_file IN LISTS _targets_files)
  file(READ "${_file}" _text)
  if(_text MATCHES "VK_NO_PROTOTYPES")
    message(FATAL_ERROR "install_consumer: ${_file} hands VK_NO_PROTOTYPES to consumers")
  endif()
endforeach()
file(GLOB_RECURSE _installed_headers "${_prefix}/include/voxen/*.hpp")
foreach(_header IN LISTS _installed_headers)
  file(STRINGS "${_header}" _volk REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]volk\\.h[>\"]")
  if(_volk)
    message(FATAL_ERROR "install_consumer: the public header ${_header} includes volk.h")
  endif()
endforeach()

# The consumer configures with only what the public headers need: the packages a static
# library needs only at link time (libpng, zlib; glslang when built without hot reload)
# are hidden from it.
set(_hidden PNG ZLIB)
file(GLOB _config "${_prefix}/lib*/cmake/voxen/voxenConfig.cmake")
file(STRINGS "${_config}" _hot_reload_off REGEX "set\\(VOXEN_HOT_RELOAD (OFF|FALSE|0)\\)")
if(_hot_reload_off)
  list(APPEND _hidden glslang)
endif()
set(_configure "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${_consumer_build}"
  "-DCMAKE_PREFIX_PATH=${_prefix}" "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
# With the warnings a careful consumer turns on, as errors (GCC and Clang spell them alike):
# the installed headers and the designated initializers a consumer writes draw none.
if(NOT CXX_COMPILER MATCHES "cl(\\.exe)?$")
  list(APPEND _configure "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror")
endif()
foreach(_package IN LISTS _hidden)
  list(APPEND _configure "-DCMAKE_DISABLE_FIND_PACKAGE_${_package}=ON")
endforeach()
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

# The consumer's compile line: C++20 although it asks for no standard (the exported
# requirement), and neither VK_NO_PROTOTYPES nor volk (private to Voxen).
if(EXISTS "${_consumer_build}/compile_commands.json")
  file(READ "${_consumer_build}/compile_commands.json" _commands)
  if(NOT _commands MATCHES "-std=(c|gnu)\\+\\+(20|2a)")
    message(FATAL_ERROR "install_consumer: the consumer was not compiled as C++20:\n${_commands}")
  endif()
  if(_commands MATCHES "VK_NO_PROTOTYPES|volk")
    message(FATAL_ERROR "install_consumer: the consumer's compile line has VK_NO_PROTOTYPES or volk:\n${_commands}")
  endif()
endif()

# The consumer's link line: voxen::voxen leaves ROS 1 bag input (voxen::rosbag, with boost,
# pluginlib and class_loader under it) out, so an embedder links none of them (issue 36).
file(GLOB_RECURSE _link_files "${_consumer_build}/CMakeFiles/voxen_install_consumer.dir/link.txt")
if(NOT _link_files)
  message(FATAL_ERROR "install_consumer: no link.txt for the consumer under ${_consumer_build} (a generator without it?)")
endif()
foreach(_file IN LISTS _link_files)
  file(READ "${_file}" _link)
  if(_link MATCHES "boost|pluginlib|class_loader|rosbag|console_bridge")
    message(FATAL_ERROR "install_consumer: the consumer's link line carries ROS 1 bag libraries:\n${_link}")
  endif()
endforeach()

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
