#include "cloud_rays.hpp"

#include "voxen/host/error.hpp"

namespace voxen_ros {

using voxen::detail::frameName;

voxen::ros::PointCloud2 cloudView(const CloudMessage& msg) {
  voxen::ros::PointCloud2 c;
  c.stampNs = msg.stampNs;
  c.frameId = msg.frameId;
  c.height = msg.height;
  c.width = msg.width;
  c.fields.reserve(msg.fields.size());
  for (const CloudField& f : msg.fields)
    c.fields.push_back({.name = f.name, .offset = f.offset, .datatype = f.datatype, .count = f.count});
  c.isBigEndian = msg.bigEndian;
  c.pointStep = msg.pointStep;
  c.rowStep = msg.rowStep;
  c.data = std::span<const uint8_t>(msg.data, msg.size);
  c.isDense = msg.dense;
  return c;
}

voxen::ros::TransformStamped transformOf(const Transform& t) {
  voxen::ros::TransformStamped v;
  v.stampNs = t.stampNs;
  v.parentFrame = t.parent;
  v.childFrame = t.child;
  v.translation = {t.translation[0], t.translation[1], t.translation[2]};
  // By member, as the bag decoder sets them (glm's constructor order is not the message's).
  v.rotation.x = t.rotation[0];
  v.rotation.y = t.rotation[1];
  v.rotation.z = t.rotation[2];
  v.rotation.w = t.rotation[3];
  return v;
}

void CloudRays::chooseLayout(const voxen::ros::PointCloud2& first, const std::string& where,
                             const voxen::ros::PointCloud2* second) {
  voxen::ros::CloudLayout layout = voxen::ros::chooseCloudLayout(first, where, second);
  const std::string frame = sensorFrameParam_.empty() ? frameName(first.frameId) : frameName(sensorFrameParam_);
  if (frame.empty())
    throw voxen::Error(where + ": has no header.frame_id; name the sensor frame with the parameter ~sensor_frame");
  sensorFrame_ = frame;
  maker_.emplace(std::move(layout), frame, deskew_, exclusion_);
}

bool CloudRays::goesBack(double stamp) {
  if (lastStamp_ && stamp < *lastStamp_) return true;
  lastStamp_ = stamp;
  return false;
}

PoseCounts CloudRays::make(voxen::ros::PointCloud2 cloud, const voxen::TfBuffer::Chain& chain, const std::string& where,
                           std::vector<voxen::Ray>& rays) {
  // A sensor_frame parameter names the clouds' frame whatever their header says (voxen map's
  // --sensor-frame: no check); without it a cloud in another frame is refused by the maker.
  if (!sensorFrameParam_.empty()) cloud.frameId = sensorFrame_;
  made_.rays = std::move(rays);
  maker_->make(cloud, chain, where, made_);
  rays = std::move(made_.rays);
  const voxen::RayLoadStats& s = made_.stats;
  return {.rays = s.rays, .nonFinite = s.skippedNonFinite, .outsideTf = s.skippedOutsideTrajectory,
          .inBox = s.skippedInBox, .nearSensor = s.skippedNearSensor};
}

}  // namespace voxen_ros
