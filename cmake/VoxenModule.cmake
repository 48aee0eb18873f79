# voxen_add_module(NAME [BUILD_ONLY] [PUBLIC_DEPS ...] [PRIVATE_DEPS ...] [EXCLUDE ...]): one
# static library per module, voxen_<NAME>, built from the .cpp files under <module>/src/ and its
# subfolders (a module with several formats keeps one folder per format), except those whose
# path below src/ matches one of the EXCLUDE regular expressions (a folder built into a library
# of its own, or the sources of an optional dependency this build lacks). Its headers:
#   <module>/include/voxen/<NAME>/   the public API: installed, reachable by any module or
#                                    program that links the target
#   <module>/internal/voxen/<NAME>/  (optional) headers shared with the modules and tests
#                                    of this build only: never installed
# Both are included as "voxen/<NAME>/file.hpp". The link dependencies are the layering: a
# module sees the headers of the modules it links (and theirs), nothing else, so an
# include that crosses the layering the wrong way fails to compile. BUILD_ONLY modules
# (test-data generators) serve the tools, tests and samples and are not installed.
# voxen_link_rosbag(TARGET): a program that reads ROS 1 bags where this build can (voxen::rosbag,
# engine/input/CMakeLists.txt) links it and gets VOXEN_HAVE_ROSBAG=1 (0 without), so its start-up
# calls voxen::enableRosBagInput() only where the library exists.
function(voxen_link_rosbag TARGET)
  if(TARGET voxen_rosbag)
    target_link_libraries(${TARGET} PRIVATE voxen_rosbag)
    target_compile_definitions(${TARGET} PRIVATE VOXEN_HAVE_ROSBAG=1)
  else()
    target_compile_definitions(${TARGET} PRIVATE VOXEN_HAVE_ROSBAG=0)
  endif()
endfunction()

function(voxen_add_module NAME)
  cmake_parse_arguments(ARG "BUILD_ONLY" "" "PUBLIC_DEPS;PRIVATE_DEPS;EXCLUDE" ${ARGN})
  set(_target voxen_${NAME})
  file(GLOB_RECURSE _sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  foreach(_pattern ${ARG_EXCLUDE})
    list(FILTER _sources EXCLUDE REGEX "^${CMAKE_CURRENT_SOURCE_DIR}/src/${_pattern}")
  endforeach()
  add_library(${_target} STATIC ${_sources})
  add_library(voxen::${NAME} ALIAS ${_target})
  target_include_directories(${_target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/internal)
    target_include_directories(${_target} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/internal>)
  endif()
  target_include_directories(${_target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${_target} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  # Carried to every consumer, so a project that sets no standard still compiles our headers.
  target_compile_features(${_target} PUBLIC cxx_std_20)
  voxen_warnings(${_target})
  set_target_properties(${_target} PROPERTIES POSITION_INDEPENDENT_CODE ON EXPORT_NAME ${NAME})
  if(NOT ARG_BUILD_ONLY)
    set_property(GLOBAL APPEND PROPERTY VOXEN_MODULE_TARGETS ${_target})
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  else()
    # Not installed, but drawn in the module diagram (cmake/ModuleGraph.cmake).
    set_property(GLOBAL APPEND PROPERTY VOXEN_BUILD_ONLY_TARGETS ${_target})
  endif()
endfunction()
