// The extension module voxen._voxen; python/voxen/__init__.py re-exports its names.
#include "bindings.hpp"
#include "voxen/input/ros_bag_input.hpp"

PYBIND11_MODULE(_voxen, m) {
  m.doc() = "Voxen's C++ engine (occupancy mapping on Vulkan compute); import it as `voxen`.";
#if VOXEN_HAVE_ROSBAG
  voxen::enableRosBagInput();  // voxen::rosbag: this build reads ROS 1 bags
#endif
  voxen::python::bindErrors(m);
  voxen::python::bindContext(m);
  voxen::python::bindMapper(m);
  voxen::python::bindReadCloud(m);
  voxen::python::bindMapFile(m);
  voxen::python::bindTransformTree(m);
}
