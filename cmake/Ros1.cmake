# The ROS 1 node voxen_ros (tools/voxen_ros), built from Debian's ROS 1 packages (roscpp
# 1.15, the message headers, and gencpp for the node's own services), not from a ROS
# installation or catkin. Optional, like VOXEN_POSTGRES: with -DVOXEN_ROS1=OFF, or where a
# package is missing, no voxen_ros is built, VOXEN_ROS1_FOUND is FALSE, and a STATUS line says
# which package to install. Defines, when found:
#   voxen_ros1_deps                  interface target: roscpp's libraries and include folders
#                                    (SYSTEM: the ROS headers' own warnings are not ours)
#   voxen_ros1_generate_srv(...)     the node's .srv files to C++ headers (gencpp) and Python
#                                    modules (genpy, for the tests' service calls)
#   VOXEN_ROS1_PYTHON                the system Python that has genmsg, rospy and rosbag
option(VOXEN_ROS1 "build the ROS 1 node voxen_ros when Debian's roscpp and message packages are found" ON)
set(VOXEN_ROS1_FOUND FALSE)
if(NOT VOXEN_ROS1)
  message(STATUS "voxen_ros: no ROS 1 node (VOXEN_ROS1=OFF)")
  return()
endif()

set(_voxen_ros1_hint "apt-get install libroscpp-dev libsensor-msgs-dev libnav-msgs-dev libvisualization-msgs-dev \
libtf2-msgs-dev libstd-srvs-dev ros-geometry-msgs ros-std-msgs python3-gencpp python3-genpy, or run scripts/setup.sh")
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(VOXEN_ROSCPP QUIET IMPORTED_TARGET roscpp)
endif()
if(NOT VOXEN_ROSCPP_FOUND)
  message(STATUS "voxen_ros: no ROS 1 node (roscpp not found by pkg-config; ${_voxen_ros1_hint})")
  return()
endif()
# The message headers the node includes (header-only packages), and the message definitions
# its services name (gencpp reads them to make the services' headers and MD5 sums).
foreach(_header sensor_msgs/PointCloud2.h nav_msgs/OccupancyGrid.h visualization_msgs/MarkerArray.h
        tf2_msgs/TFMessage.h std_srvs/Trigger.h std_msgs/String.h geometry_msgs/Point.h)
  string(MAKE_C_IDENTIFIER ${_header} _var)
  find_path(VOXEN_ROS1_${_var} ${_header})
  if(NOT VOXEN_ROS1_${_var})
    message(STATUS "voxen_ros: no ROS 1 node (${_header} not found; ${_voxen_ros1_hint})")
    return()
  endif()
endforeach()
find_path(VOXEN_ROS1_GEOMETRY_MSG_DIR Point.msg PATHS /usr/share/geometry_msgs/msg NO_DEFAULT_PATH)
find_path(VOXEN_ROS1_STD_MSG_DIR Header.msg PATHS /usr/share/std_msgs/msg NO_DEFAULT_PATH)
find_file(VOXEN_ROS1_GENCPP gen_cpp.py PATHS /usr/lib/gencpp NO_DEFAULT_PATH)
find_path(VOXEN_ROS1_GENCPP_TEMPLATES msg.h.template PATHS /usr/share/gencpp NO_DEFAULT_PATH)
find_file(VOXEN_ROS1_GENPY gensrv_py.py PATHS /usr/lib/genpy NO_DEFAULT_PATH)
# Debian's ROS Python packages are for the system Python, not one a PATH may put first.
find_program(VOXEN_ROS1_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
foreach(_var VOXEN_ROS1_GEOMETRY_MSG_DIR VOXEN_ROS1_STD_MSG_DIR VOXEN_ROS1_GENCPP VOXEN_ROS1_GENCPP_TEMPLATES
        VOXEN_ROS1_GENPY VOXEN_ROS1_PYTHON)
  if(NOT ${_var})
    message(STATUS "voxen_ros: no ROS 1 node (${_var} not found; ${_voxen_ros1_hint})")
    return()
  endif()
endforeach()
execute_process(COMMAND ${VOXEN_ROS1_PYTHON} -c "import genmsg, gencpp, genpy"
  RESULT_VARIABLE _voxen_ros1_genmsg OUTPUT_QUIET ERROR_QUIET)
if(NOT _voxen_ros1_genmsg EQUAL 0)
  message(STATUS "voxen_ros: no ROS 1 node (${VOXEN_ROS1_PYTHON} cannot import genmsg, gencpp and genpy; ${_voxen_ros1_hint})")
  return()
endif()

set(VOXEN_ROS1_FOUND TRUE)
message(STATUS "voxen_ros: ROS 1 node (roscpp ${VOXEN_ROSCPP_VERSION})")
if(NOT TARGET voxen_ros1_deps)
  add_library(voxen_ros1_deps INTERFACE)
  # An imported target's include folders are SYSTEM for its consumers.
  target_link_libraries(voxen_ros1_deps INTERFACE PkgConfig::VOXEN_ROSCPP)
endif()

# voxen_ros1_generate_srv(OUT_HEADERS OUT_PYTHON PACKAGE pkg INCLUDE_DIR dir PYTHON_DIR dir SRV files...):
# OUT_HEADERS and OUT_PYTHON name variables that receive the generated files (for a target's
# sources and a custom target), as catkin's add_service_files + generate_messages would make.
function(voxen_ros1_generate_srv out_headers out_python)
  cmake_parse_arguments(ARG "" "PACKAGE;INCLUDE_DIR;PYTHON_DIR" "SRV" ${ARGN})
  set(_includes -Igeometry_msgs:${VOXEN_ROS1_GEOMETRY_MSG_DIR} -Istd_msgs:${VOXEN_ROS1_STD_MSG_DIR})
  set(_headers)
  set(_modules)
  foreach(_srv ${ARG_SRV})
    get_filename_component(_name ${_srv} NAME_WE)
    set(_out ${ARG_INCLUDE_DIR}/${ARG_PACKAGE}/${_name}.h ${ARG_INCLUDE_DIR}/${ARG_PACKAGE}/${_name}Request.h
             ${ARG_INCLUDE_DIR}/${ARG_PACKAGE}/${_name}Response.h)
    add_custom_command(OUTPUT ${_out}
      COMMAND ${VOXEN_ROS1_PYTHON} ${VOXEN_ROS1_GENCPP} ${_srv} -p ${ARG_PACKAGE} -o ${ARG_INCLUDE_DIR}/${ARG_PACKAGE}
              -e ${VOXEN_ROS1_GENCPP_TEMPLATES} ${_includes}
      DEPENDS ${_srv} COMMENT "gencpp ${ARG_PACKAGE}/${_name}" VERBATIM)
    list(APPEND _headers ${_out})
    set(_py ${ARG_PYTHON_DIR}/${ARG_PACKAGE}/srv/_${_name}.py)
    add_custom_command(OUTPUT ${_py}
      COMMAND ${VOXEN_ROS1_PYTHON} ${VOXEN_ROS1_GENPY} ${_srv} -p ${ARG_PACKAGE} -o ${ARG_PYTHON_DIR}/${ARG_PACKAGE}/srv ${_includes}
      DEPENDS ${_srv} COMMENT "genpy ${ARG_PACKAGE}/${_name}" VERBATIM)
    list(APPEND _modules ${_py})
  endforeach()
  # The package's __init__.py files, once every module is there.
  set(_init ${ARG_PYTHON_DIR}/${ARG_PACKAGE}/srv/__init__.py)
  add_custom_command(OUTPUT ${_init} ${ARG_PYTHON_DIR}/${ARG_PACKAGE}/__init__.py
    COMMAND ${VOXEN_ROS1_PYTHON} ${VOXEN_ROS1_GENPY} --initpy -p ${ARG_PACKAGE} -o ${ARG_PYTHON_DIR}/${ARG_PACKAGE}/srv
    COMMAND ${CMAKE_COMMAND} -E touch ${ARG_PYTHON_DIR}/${ARG_PACKAGE}/__init__.py
    DEPENDS ${_modules} COMMENT "genpy ${ARG_PACKAGE} package" VERBATIM)
  list(APPEND _modules ${_init})
  set(${out_headers} ${_headers} PARENT_SCOPE)
  set(${out_python} ${_modules} PARENT_SCOPE)
endfunction()
