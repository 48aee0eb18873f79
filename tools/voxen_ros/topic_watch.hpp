#pragma once
// The warning for a cloud topic that never arrives (or stops): after ~cloud_timeout seconds
// without a cloud, the node says so once per timeout, naming the topic it listens to (as
// resolved) and the topics the master knows, the sensor_msgs/PointCloud2 ones first, so a
// wrong name or namespace shows at once.
//
// Threads: tick() from one ROS timer; cloudArrived() from any thread.
#include <atomic>
#include <chrono>
#include <string>

namespace voxen_ros {

class TopicWatch {
 public:
  TopicWatch(std::string resolvedTopic, double timeoutSeconds);
  void cloudArrived();
  // Warns when due; returns the warning (empty when none was due).
  std::string tick();

 private:
  std::string topic_;
  double timeout_;
  std::atomic<int64_t> lastCloudNs_;
  int64_t lastWarningNs_ = 0;
  std::atomic<bool> anyCloud_{false};
};

}  // namespace voxen_ros
