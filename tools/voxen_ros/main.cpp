// voxen_ros: Voxen as a ROS 1 node (docs/ros1.md). Clouds (sensor_msgs/PointCloud2) and tf
// in; the map out as an OccupancyGrid, a cloud and markers of occupied voxels, and a status;
// queries as services; the map saved to ~output at shutdown (SIGINT, SIGTERM, rosnode kill).
//
// This file and ros_*.cpp are the ROS side, C++17 (engine_bridge.hpp says why); the Engine
// is the engine side. Threads: the ROS spinner's two threads run the callbacks (clouds into
// the bounded queue, tf into the live tf buffer, services on snapshots); the engine's mapping
// thread owns the Mapper and its publisher thread makes the messages' contents; main waits
// for shutdown, then stops the subscriptions and the engine (which saves the map).
#include <ros/ros.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>

#include "ros_side.hpp"
#include "topic_watch.hpp"

namespace {

// ros::requestShutdown() only sets a flag, so a signal handler may call it.
void requestStop(int) { ros::requestShutdown(); }

void logLine(voxen_ros::LogLevel level, const std::string& line) {
  // After ros::shutdown() rosconsole prints nothing: the engine's last lines (the save at
  // shutdown, the final counts) go to stderr directly.
  if (!ros::ok()) {
    const char* names[] = {"DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
    if (level != voxen_ros::LogLevel::Debug) std::fprintf(stderr, "[%s] %s\n", names[int(level)], line.c_str());
    return;
  }
  switch (level) {
    case voxen_ros::LogLevel::Debug: ROS_DEBUG("%s", line.c_str()); break;
    case voxen_ros::LogLevel::Info: ROS_INFO("%s", line.c_str()); break;
    case voxen_ros::LogLevel::Warn: ROS_WARN("%s", line.c_str()); break;
    case voxen_ros::LogLevel::Error: ROS_ERROR("%s", line.c_str()); break;
    case voxen_ros::LogLevel::Fatal: ROS_FATAL("%s", line.c_str()); break;
  }
}

int runNode() {
  ros::NodeHandle nh;
  ros::NodeHandle priv("~");
  voxen_ros::setLogSink(logLine);
  voxen_ros::RosPublishers publishers(priv);
  voxen_ros::Engine engine(voxen_ros::readParameters(priv),
                           [&publishers](voxen_ros::PublicationData data) { publishers.send(data); });
  ROS_INFO("voxen_ros: %s", engine.settingsText().c_str());
  const std::vector<ros::ServiceServer> services = voxen_ros::advertiseServices(priv, engine);
  voxen_ros::TopicWatch watch(nh.resolveName(engine.cloudTopic()), engine.cloudTimeout());

  // The callbacks only hand the messages over: a whole cloud or nothing.
  const uint32_t queueSize = engine.queueSize();
  ros::Subscriber clouds = nh.subscribe<sensor_msgs::PointCloud2>(
      engine.cloudTopic(), queueSize, [&](const sensor_msgs::PointCloud2ConstPtr& msg) {
        watch.cloudArrived();
        if (!engine.pushCloud(voxen_ros::cloudOf(msg)))
          ROS_WARN_THROTTLE(5.0, "voxen_ros: mapping is behind: cloud dropped whole (%llu so far; ~queue_size %u)",
                            static_cast<unsigned long long>(engine.droppedClouds()), queueSize);
      });
  // tf arrives in stamp order over each connection; a deep queue so that none is lost.
  ros::Subscriber tfMoving = nh.subscribe<tf2_msgs::TFMessage>(
      "/tf", 10000, [&engine](const tf2_msgs::TFMessageConstPtr& msg) { engine.addTransforms(voxen_ros::transformsOf(*msg), false); });
  ros::Subscriber tfStatic = nh.subscribe<tf2_msgs::TFMessage>(
      "/tf_static", 1000, [&engine](const tf2_msgs::TFMessageConstPtr& msg) { engine.addTransforms(voxen_ros::transformsOf(*msg), true); });
  ros::WallTimer watchTimer = nh.createWallTimer(ros::WallDuration(std::min(1.0, engine.cloudTimeout() / 4)),
                                                 [&watch](const ros::WallTimerEvent&) { watch.tick(); });

  engine.start();
  // Two threads: a save request waits for the mapping thread while queries go on.
  ros::AsyncSpinner spinner(2);
  spinner.start();
  ROS_INFO("voxen_ros: listening to %s, /tf and /tf_static", nh.resolveName(engine.cloudTopic()).c_str());
  ros::waitForShutdown();

  spinner.stop();
  clouds.shutdown();
  tfMoving.shutdown();
  tfStatic.shutdown();
  return engine.stop() ? 0 : 1;  // the queued clouds, the last publication, the save to ~output
}

}  // namespace

int main(int argc, char** argv) {
  ros::init(argc, argv, "voxen_ros", ros::init_options::NoSigintHandler);
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  try {
    return runNode();
  } catch (const std::exception& e) {
    // By then the node handles are gone and roscpp shut down: logLine falls back to stderr.
    logLine(voxen_ros::LogLevel::Fatal, std::string("voxen_ros: ") + e.what());
  }
  return 2;
}
