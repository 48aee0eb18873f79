# Debian's librosbag-storage-dev (ROS 1's bag library, packaged without ROS): an interface
# target, voxen_rosbag_storage, with its libraries and the include folders its headers need
# (bag.h includes pluginlib, class_loader, rcpputils, rcutils and ament_index_cpp headers,
# which Debian installs one folder deeper than the headers name them).
# Optional, like VOXEN_POSTGRES: with -DVOXEN_ROSBAG=OFF, or where the package is missing, no
# voxen_rosbag is built and VOXEN_ROSBAG_FOUND is FALSE (ROS 1 bags are then refused by name).
option(VOXEN_ROSBAG "build ROS 1 bag input (voxen::rosbag) when librosbag-storage-dev is found" ON)
set(VOXEN_ROSBAG_FOUND FALSE)
if(NOT VOXEN_ROSBAG)
  message(STATUS "voxen input: no ROS 1 bag support (VOXEN_ROSBAG=OFF)")
  return()
endif()
find_path(VOXEN_ROSBAG_INCLUDE rosbag/bag.h)
find_path(VOXEN_PLUGINLIB_INCLUDE pluginlib/class_loader.hpp PATH_SUFFIXES pluginlib)
find_path(VOXEN_CLASS_LOADER_INCLUDE class_loader/class_loader.hpp PATH_SUFFIXES class_loader)
find_path(VOXEN_RCPPUTILS_INCLUDE rcpputils/shared_library.hpp PATH_SUFFIXES rcpputils)
find_path(VOXEN_RCUTILS_INCLUDE rcutils/types.h PATH_SUFFIXES rcutils)
find_path(VOXEN_AMENT_INDEX_INCLUDE ament_index_cpp/get_resource.hpp PATH_SUFFIXES ament_index_cpp)
set(_voxen_rosbag_libs rosbag_storage roscpp_serialization rostime cpp_common console_bridge boost_filesystem)
set(_voxen_rosbag_paths)
foreach(_lib ${_voxen_rosbag_libs})
  find_library(VOXEN_LIB_${_lib} ${_lib})
  list(APPEND _voxen_rosbag_paths ${VOXEN_LIB_${_lib}})
endforeach()
foreach(_var VOXEN_ROSBAG_INCLUDE VOXEN_PLUGINLIB_INCLUDE VOXEN_CLASS_LOADER_INCLUDE VOXEN_RCPPUTILS_INCLUDE
        VOXEN_RCUTILS_INCLUDE VOXEN_AMENT_INDEX_INCLUDE)
  if(NOT ${_var})
    message(STATUS "voxen input: no ROS 1 bag support (librosbag-storage-dev not found: ${_var}; "
                   "apt-get install librosbag-storage-dev, or run scripts/setup.sh)")
    return()
  endif()
endforeach()
foreach(_lib ${_voxen_rosbag_libs})
  if(NOT VOXEN_LIB_${_lib})
    message(STATUS "voxen input: no ROS 1 bag support (librosbag-storage-dev not found: library ${_lib}; "
                   "apt-get install librosbag-storage-dev, or run scripts/setup.sh)")
    return()
  endif()
endforeach()
set(VOXEN_ROSBAG_FOUND TRUE)
message(STATUS "voxen input: ROS 1 bag support (librosbag-storage, voxen::rosbag)")
if(NOT TARGET voxen_rosbag_storage)
  add_library(voxen_rosbag_storage INTERFACE)
  # SYSTEM: the ROS headers' own warnings are not ours.
  target_include_directories(voxen_rosbag_storage SYSTEM INTERFACE ${VOXEN_ROSBAG_INCLUDE} ${VOXEN_PLUGINLIB_INCLUDE}
    ${VOXEN_CLASS_LOADER_INCLUDE} ${VOXEN_RCPPUTILS_INCLUDE} ${VOXEN_RCUTILS_INCLUDE} ${VOXEN_AMENT_INDEX_INCLUDE})
  target_link_libraries(voxen_rosbag_storage INTERFACE ${_voxen_rosbag_paths})
endif()
# What an installed voxen_rosbag names for programs linking it (plain library names, as for png).
set(VOXEN_ROSBAG_INSTALL_LIBS)
foreach(_lib ${_voxen_rosbag_libs})
  list(APPEND VOXEN_ROSBAG_INSTALL_LIBS $<INSTALL_INTERFACE:${_lib}>)
endforeach()
