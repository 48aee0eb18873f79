#include "cloud_rays.hpp"

#include <cmath>
#include <limits>

#include "voxen/host/error.hpp"

namespace voxen_ros {

namespace {

std::string frameName(const std::string& frame) { return !frame.empty() && frame[0] == '/' ? frame.substr(1) : frame; }

}  // namespace

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
  layout_ = std::move(layout);
}

DecodedCloud CloudRays::decode(const voxen::ros::PointCloud2& cloud, const std::string& where) const {
  // The file reader refuses a cloud in another frame than the first's unless the frame is named.
  if (sensorFrameParam_.empty() && frameName(cloud.frameId) != sensorFrame_)
    throw voxen::Error(where + ": is in frame '" + cloud.frameId + "', the first cloud in '" + sensorFrame_ +
                       "'; name the frame to use with the parameter ~sensor_frame");
  DecodedCloud out;
  out.points = voxen::ros::decodeCloudRows(cloud, *layout_, where, out.rows);
  out.stamp = voxen::ros::stampSeconds(cloud.stampNs);
  const size_t in = voxen::ros::cloudRowColumns(*layout_);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t i = 0; i < out.points; ++i) {
    const double t = deskew_ ? out.rows[i * in + 3] : out.stamp;
    if (!std::isfinite(t)) continue;
    lo = std::min(lo, t), hi = std::max(hi, t);
  }
  out.anyTime = lo <= hi;
  out.timeMin = lo, out.timeMax = hi;
  return out;
}

bool CloudRays::goesBack(double stamp) {
  if (lastStamp_ && stamp < *lastStamp_) return true;
  lastStamp_ = stamp;
  return false;
}

PoseCounts CloudRays::pose(const DecodedCloud& cloud, const voxen::TfBuffer::Chain& chain, std::vector<voxen::Ray>& rays) const {
  PoseCounts counts;
  const voxen::ros::CloudLayout& layout = *layout_;
  const size_t in = voxen::ros::cloudRowColumns(layout);
  const bool excluding = exclusion_.active();
  size_t hint = 0;
  rays.reserve(rays.size() + cloud.points);
  for (size_t i = 0; i < cloud.points; ++i) {
    const double* v = cloud.rows.data() + i * in;
    const double t = deskew_ ? v[3] : cloud.stamp;
    // A point with a NaN is never posed: it counts as non-finite only (ray_chunk.cpp).
    if (!(std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]) && std::isfinite(t))) {
      ++counts.nonFinite;
      continue;
    }
    const std::optional<voxen::RigidPose> pose = chain.at(t, hint);
    if (!pose) {
      ++counts.outsideTf;
      continue;
    }
    const glm::dvec3 p(v[0], v[1], v[2]);
    // Returns from the robot, judged in the sensor frame (tf moves the points).
    if (excluding) {
      const voxen::SensorExclusion::Verdict verdict = exclusion_.judge(p);
      if (verdict != voxen::SensorExclusion::Verdict::Kept) {
        ++(verdict == voxen::SensorExclusion::Verdict::InBox ? counts.inBox : counts.nearSensor);
        continue;
      }
    }
    voxen::Ray ray;
    ray.sample = voxen::applyPose(*pose, p);
    ray.time = t;
    ray.origin = pose->translation;
    if (layout.hasIntensity) {
      // As the file reader keeps it: a double past a float's range is infinite as a float.
      const double intensity = v[4];
      if (std::abs(intensity) <= double(std::numeric_limits<float>::max())) {
        ray.intensity = float(intensity);
      } else {
        const float inf = std::numeric_limits<float>::infinity();
        ray.intensity = std::isnan(intensity) ? std::numeric_limits<float>::quiet_NaN() : intensity > 0 ? inf : -inf;
      }
    }
    if (!(std::isfinite(ray.sample.x) && std::isfinite(ray.sample.y) && std::isfinite(ray.sample.z) &&
          std::isfinite(ray.origin.x) && std::isfinite(ray.origin.y) && std::isfinite(ray.origin.z))) {
      ++counts.nonFinite;
      continue;
    }
    rays.push_back(ray);
    ++counts.rays;
  }
  return counts;
}

}  // namespace voxen_ros
