#pragma once
// The ROS side's pieces (C++17, engine_bridge.hpp): parameters, messages and services.
//
// Threads: readParameters() once at start-up; the conversions are pure; the services run on
// the spinner's threads and call the Engine, whose methods any thread may call.
#include <ros/node_handle.h>
#include <ros/publisher.h>
#include <ros/service_server.h>
#include <sensor_msgs/PointCloud2.h>
#include <tf2_msgs/TFMessage.h>

#include <vector>

#include "engine_bridge.hpp"

namespace voxen_ros {

// Every parameter of parameterSpecs() that is set in `priv`, as the kind it is set with
// (a number given as an integer is read either way by the engine side).
Parameters readParameters(const ros::NodeHandle& priv);

// The message's fields, its data borrowed (the message is kept alive by the cloud).
CloudMessage cloudOf(const sensor_msgs::PointCloud2ConstPtr& msg);
std::vector<Transform> transformsOf(const tf2_msgs::TFMessage& msg);

// The node's topics (private namespace), latched so a late subscriber gets the last:
//   ~map nav_msgs/OccupancyGrid, ~occupied_voxels sensor_msgs/PointCloud2,
//   ~occupied_markers visualization_msgs/MarkerArray, ~status std_msgs/String.
class RosPublishers {
 public:
  explicit RosPublishers(ros::NodeHandle& priv);
  // On the engine's publisher thread (ros::Publisher::publish is thread-safe).
  void send(const PublicationData& data);

 private:
  ros::Publisher grid_, cloud_, markers_, status_;
};

// ~query_occupancy, ~query_clearance, ~raycast, ~check_path, ~save_map (docs/ros1.md).
std::vector<ros::ServiceServer> advertiseServices(ros::NodeHandle& priv, Engine& engine);

}  // namespace voxen_ros
