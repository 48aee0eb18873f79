#pragma once
// A live cloud's rays, made as `voxen map` makes them from a recording
// (engine/input/src/recording/recording_point_input.cpp and ray_chunk.cpp): the topic's field
// layout chosen from its first two clouds with points (voxen/input/cloud_decoder.hpp: x y z,
// the time field and its unit and reference, intensity), every point decoded with it, posed by
// tf at its own time (deskew) or at header.stamp, returns from the robot dropped in the sensor
// frame (min_range, exclude_box), non-finite points and points outside tf's span skipped, and
// a cloud stamped before the one taken ahead of it skipped whole. The same clouds in the same
// order give the same rays, bit for bit, so the node's map equals voxen map's of the bag.
//
// Threads: one object per mapping thread; not shared.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine_bridge.hpp"
#include "voxen/input/cloud_decoder.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/input/tf_buffer.hpp"
#include "voxen/map/ray.hpp"

namespace voxen_ros {

// The engine's view of a cloud message (its data borrowed from the message).
voxen::ros::PointCloud2 cloudView(const CloudMessage& msg);
// As the engine's recording types hold a tf message's transform (frames as written).
voxen::ros::TransformStamped transformOf(const Transform& t);

// A cloud's points decoded with the topic's layout: rows of x, y, z, time (seconds) [, intensity].
struct DecodedCloud {
  std::vector<double> rows;
  size_t points = 0;
  double stamp = 0.0;
  // The span of the times a point is posed at (finite ones); empty when none is finite.
  bool anyTime = false;
  double timeMin = 0.0, timeMax = 0.0;
};

// What posing a cloud did with its points.
struct PoseCounts {
  uint64_t rays = 0, nonFinite = 0, outsideTf = 0, inBox = 0, nearSensor = 0;
};

class CloudRays {
 public:
  CloudRays(std::string sensorFrame, bool deskew, voxen::SensorExclusion exclusion)
      : sensorFrameParam_(std::move(sensorFrame)), deskew_(deskew), exclusion_(exclusion) {}

  bool hasLayout() const { return layout_.has_value(); }
  const voxen::ros::CloudLayout& layout() const { return *layout_; }
  // From the topic's first cloud with points and, when there is one, its second (which tells
  // offsets from absolute times near a clock's 0). Throws voxen::Error naming the cloud.
  void chooseLayout(const voxen::ros::PointCloud2& first, const std::string& where, const voxen::ros::PointCloud2* second);
  // The frame the clouds are in: the parameter, else the first cloud's header.frame_id.
  const std::string& sensorFrame() const { return sensorFrame_; }

  // Decodes a cloud (checked against the layout and, without a sensor_frame parameter, the
  // first cloud's frame). Throws voxen::Error naming the cloud.
  DecodedCloud decode(const voxen::ros::PointCloud2& cloud, const std::string& where) const;

  // Whether the cloud goes back in time (stamped before the last cloud taken): skipped whole,
  // as the file reader skips it. Otherwise it becomes the last cloud taken.
  bool goesBack(double stamp);

  // The rays of a decoded cloud posed by `chain`, appended to `rays`.
  PoseCounts pose(const DecodedCloud& cloud, const voxen::TfBuffer::Chain& chain, std::vector<voxen::Ray>& rays) const;

 private:
  std::string sensorFrameParam_, sensorFrame_;
  bool deskew_ = true;
  voxen::SensorExclusion exclusion_;
  std::optional<voxen::ros::CloudLayout> layout_;
  std::optional<double> lastStamp_;
};

}  // namespace voxen_ros
