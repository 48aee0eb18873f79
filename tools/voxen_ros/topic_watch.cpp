#include "topic_watch.hpp"

#include <ros/console.h>
#include <ros/master.h>

#include <cstdio>

namespace voxen_ros {

namespace {

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

TopicWatch::TopicWatch(std::string resolvedTopic, double timeoutSeconds)
    : topic_(std::move(resolvedTopic)), timeout_(timeoutSeconds), lastCloudNs_(nowNs()), lastWarningNs_(nowNs()) {}

void TopicWatch::cloudArrived() {
  lastCloudNs_.store(nowNs());
  anyCloud_.store(true);
}

std::string TopicWatch::tick() {
  const int64_t now = nowNs(), last = lastCloudNs_.load();
  const int64_t timeoutNs = int64_t(timeout_ * 1e9);
  if (now - last < timeoutNs || now - lastWarningNs_ < timeoutNs) return {};
  lastWarningNs_ = now;
  std::string clouds, others;
  ros::master::V_TopicInfo topics;
  if (ros::master::getTopics(topics)) {
    for (const ros::master::TopicInfo& t : topics) {
      std::string& list = t.datatype == "sensor_msgs/PointCloud2" ? clouds : others;
      list += (list.empty() ? "" : ", ") + t.name + (t.datatype == "sensor_msgs/PointCloud2" ? "" : " (" + t.datatype + ")");
    }
  } else {
    others = "(the master did not answer)";
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3g", double(now - last) * 1e-9);
  const bool never = !anyCloud_.load();
  std::string message = "no cloud on " + topic_ + " for " + seconds + " s" + (never ? " (none since start)" : "") +
                        "; point cloud topics published: " + (clouds.empty() ? std::string("none") : clouds) +
                        "; other topics: " + (others.empty() ? std::string("none") : others) +
                        " (set the parameter ~cloud_topic, or remap)";
  ROS_WARN("voxen_ros: %s", message.c_str());
  return message;
}

}  // namespace voxen_ros
