// The texts writers store next to ROS messages: the ROS 1 MD5 sums and full definitions
// (genmsg's "full text", as rosbag writes it in a connection record: the message's .msg file
// as released in Noetic, comments included, then each dependency after a line of 80 '=' and
// "MSG: pkg/Type", with a blank line between them), and the ROS 2 "ros2msg" schema texts
// (the same layout without comments, as MCAP writers store them). The MD5 sums are genmsg's
// over these definitions with comments stripped; they were checked against them.
#include "voxen/input/ros_messages.hpp"

// std_msgs/Header's full text: both messages depend on it. A macro, so that it joins the
// messages' own literals at compile time.
#define VOXEN_ROS1_HEADER_DEFINITION \
      "MSG: std_msgs/Header\n" \
      "# Standard metadata for higher-level stamped data types.\n" \
      "# This is generally used to communicate timestamped data \n" \
      "# in a particular coordinate frame.\n" \
      "# \n" \
      "# sequence ID: consecutively increasing ID \n" \
      "uint32 seq\n" \
      "#Two-integer timestamp that is expressed as:\n" \
      "# * stamp.sec: seconds (stamp_secs) since epoch (in Python the variable is called 'secs')\n" \
      "# * stamp.nsec: nanoseconds since stamp_secs (in Python the variable is called 'nsecs')\n" \
      "# time-handling sugar is provided by the client library\n" \
      "time stamp\n" \
      "#Frame this data is associated with\n" \
      "string frame_id\n"


namespace voxen::ros {


const std::string& pointCloud2Md5() {
  static const std::string md5 = "1158d486dd51d683ce2f1be655c3c181";
  return md5;
}

const std::string& tfMessageMd5() {
  static const std::string md5 = "94810edda583a504dfda3829e70d7eec";
  return md5;
}

const std::string& pointCloud2Ros1Definition() {
  static const std::string text =
      "# This message holds a collection of N-dimensional points, which may\n"
      "# contain additional information such as normals, intensity, etc. The\n"
      "# point data is stored as a binary blob, its layout described by the\n"
      "# contents of the \"fields\" array.\n"
      "\n"
      "# The point cloud data may be organized 2d (image-like) or 1d\n"
      "# (unordered). Point clouds organized as 2d images may be produced by\n"
      "# camera depth sensors such as stereo or time-of-flight.\n"
      "\n"
      "# Time of sensor data acquisition, and the coordinate frame ID (for 3d\n"
      "# points).\n"
      "Header header\n"
      "\n"
      "# 2D structure of the point cloud. If the cloud is unordered, height is\n"
      "# 1 and width is the length of the point cloud.\n"
      "uint32 height\n"
      "uint32 width\n"
      "\n"
      "# Describes the channels and their layout in the binary data blob.\n"
      "PointField[] fields\n"
      "\n"
      "bool    is_bigendian # Is this data bigendian?\n"
      "uint32  point_step   # Length of a point in bytes\n"
      "uint32  row_step     # Length of a row in bytes\n"
      "uint8[] data         # Actual point data, size is (row_step*height)\n"
      "\n"
      "bool is_dense        # True if there are no invalid points\n"
      "\n"
      "================================================================================\n"
      VOXEN_ROS1_HEADER_DEFINITION
      "\n"
      "================================================================================\n"
      "MSG: sensor_msgs/PointField\n"
      "# This message holds the description of one point entry in the\n"
      "# PointCloud2 message format.\n"
      "uint8 INT8    = 1\n"
      "uint8 UINT8   = 2\n"
      "uint8 INT16   = 3\n"
      "uint8 UINT16  = 4\n"
      "uint8 INT32   = 5\n"
      "uint8 UINT32  = 6\n"
      "uint8 FLOAT32 = 7\n"
      "uint8 FLOAT64 = 8\n"
      "\n"
      "string name      # Name of field\n"
      "uint32 offset    # Offset from start of point struct\n"
      "uint8  datatype  # Datatype enumeration, see above\n"
      "uint32 count     # How many elements in the field\n";
  return text;
}

const std::string& tfMessageRos1Definition() {
  static const std::string text =
      "geometry_msgs/TransformStamped[] transforms\n"
      "\n"
      "================================================================================\n"
      "MSG: geometry_msgs/TransformStamped\n"
      "# This expresses a transform from coordinate frame header.frame_id\n"
      "# to the coordinate frame child_frame_id\n"
      "#\n"
      "# This message is mostly used by the \n"
      "# <a href=\"http://wiki.ros.org/tf\">tf</a> package. \n"
      "# See its documentation for more information.\n"
      "\n"
      "Header header\n"
      "string child_frame_id # the frame id of the child frame\n"
      "Transform transform\n"
      "\n"
      "================================================================================\n"
      VOXEN_ROS1_HEADER_DEFINITION
      "\n"
      "================================================================================\n"
      "MSG: geometry_msgs/Transform\n"
      "# This represents the transform between two coordinate frames in free space.\n"
      "\n"
      "Vector3 translation\n"
      "Quaternion rotation\n"
      "\n"
      "================================================================================\n"
      "MSG: geometry_msgs/Vector3\n"
      "# This represents a vector in free space. \n"
      "# It is only meant to represent a direction. Therefore, it does not\n"
      "# make sense to apply a translation to it (e.g., when applying a \n"
      "# generic rigid transformation to a Vector3, tf2 will only apply the\n"
      "# rotation). If you want your data to be translatable too, use the\n"
      "# geometry_msgs/Point message instead.\n"
      "\n"
      "float64 x\n"
      "float64 y\n"
      "float64 z\n"
      "\n"
      "================================================================================\n"
      "MSG: geometry_msgs/Quaternion\n"
      "# This represents an orientation in free space in quaternion form.\n"
      "\n"
      "float64 x\n"
      "float64 y\n"
      "float64 z\n"
      "float64 w\n";
  return text;
}

const std::string& pointCloud2Ros2Schema() {
  static const std::string text =
      "std_msgs/Header header\n"
      "uint32 height\n"
      "uint32 width\n"
      "sensor_msgs/PointField[] fields\n"
      "bool is_bigendian\n"
      "uint32 point_step\n"
      "uint32 row_step\n"
      "uint8[] data\n"
      "bool is_dense\n"
      "================================================================================\n"
      "MSG: std_msgs/Header\n"
      "builtin_interfaces/Time stamp\n"
      "string frame_id\n"
      "================================================================================\n"
      "MSG: builtin_interfaces/Time\n"
      "int32 sec\n"
      "uint32 nanosec\n"
      "================================================================================\n"
      "MSG: sensor_msgs/PointField\n"
      "uint8 INT8 = 1\n"
      "uint8 UINT8 = 2\n"
      "uint8 INT16 = 3\n"
      "uint8 UINT16 = 4\n"
      "uint8 INT32 = 5\n"
      "uint8 UINT32 = 6\n"
      "uint8 FLOAT32 = 7\n"
      "uint8 FLOAT64 = 8\n"
      "string name\n"
      "uint32 offset\n"
      "uint8 datatype\n"
      "uint32 count\n";
  return text;
}

const std::string& tfMessageRos2Schema() {
  static const std::string text =
      "geometry_msgs/TransformStamped[] transforms\n"
      "================================================================================\n"
      "MSG: geometry_msgs/TransformStamped\n"
      "std_msgs/Header header\n"
      "string child_frame_id\n"
      "geometry_msgs/Transform transform\n"
      "================================================================================\n"
      "MSG: std_msgs/Header\n"
      "builtin_interfaces/Time stamp\n"
      "string frame_id\n"
      "================================================================================\n"
      "MSG: builtin_interfaces/Time\n"
      "int32 sec\n"
      "uint32 nanosec\n"
      "================================================================================\n"
      "MSG: geometry_msgs/Transform\n"
      "geometry_msgs/Vector3 translation\n"
      "geometry_msgs/Quaternion rotation\n"
      "================================================================================\n"
      "MSG: geometry_msgs/Vector3\n"
      "float64 x\n"
      "float64 y\n"
      "float64 z\n"
      "================================================================================\n"
      "MSG: geometry_msgs/Quaternion\n"
      "float64 x\n"
      "float64 y\n"
      "float64 z\n"
      "float64 w\n";
  return text;
}

}  // namespace voxen::ros
