// CloudPosing (cloud_posing.hpp): a cloud's points decoded and posed into the fixed frame.
#include "recording/cloud_posing.hpp"

#include <cmath>
#include <cstring>

#include "recording/recording.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen::detail {

namespace {

// The poses of one cloud's times, looked up once each. A spinning lidar's points share
// their time by column (an Ouster cloud's rows are rings, so the same times come back
// every row), and a cloud without deskew has one time: a pose costs about 100 ns through
// tf (two slerps and the composition), a cache hit a few. Open addressing on the time's
// bits with a few probes, so that a cloud's thousands of column times all stay (a direct
// mapped table lost a fifth of them to collisions, recomputed on every row); a slot of an
// earlier cloud is stale by its generation. Per thread, since clouds are posed on the
// pipeline's threads at the same time. Only work is saved: a pose read from the cache is
// the one at(t) gives.
class PoseCache {
 public:
  void next() { ++generation_; }
  template <typename Compute>
  const std::optional<RigidPose>& at(double t, Compute&& compute) {
    uint64_t bits;
    std::memcpy(&bits, &t, 8);
    const size_t home = size_t((bits * 0x9E3779B97F4A7C15ull) >> (64 - kBits));
    for (size_t probe = 0; probe < kProbes; ++probe) {
      Slot& slot = slots_[(home + probe) & (kSlots - 1)];
      if (slot.generation != generation_) return fill(slot, t, compute);  // free in this cloud
      if (slot.time == t) return slot.pose;
    }
    return fill(slots_[home], t, compute);  // full around here: the newest time wins the home slot
  }

 private:
  static constexpr int kBits = 13;
  static constexpr size_t kSlots = size_t(1) << kBits, kProbes = 8;
  struct Slot {
    double time = 0.0;
    uint64_t generation = 0;
    std::optional<RigidPose> pose;
  };
  template <typename Compute>
  const std::optional<RigidPose>& fill(Slot& slot, double t, Compute& compute) {
    slot.pose = compute();
    slot.time = t;
    slot.generation = generation_;
    return slot.pose;
  }
  uint64_t generation_ = 0;
  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
};

PoseCache& poseCache() {
  thread_local PoseCache cache;
  return cache;
}

}  // namespace

size_t CloudPosing::pose(const ros::PointCloud2& cloud, const std::string& at, std::vector<double>& rows,
                       SourceSkips& skips) const {
  if (checkFrame_ && frameName(cloud.frameId) != sensorFrame_)
    throw SettingError(SettingError::Kind::Change, "RecordingOptions::sensorFrame", "sensor frame",
                       at + ": is in frame '" + cloud.frameId + "', the first cloud in '" + sensorFrame_ +
                           "'; name the frame to use as {}");
  thread_local std::vector<double> decoded;
  decoded.clear();
  const size_t points = ros::decodeCloudRows(cloud, layout_, at, decoded);
  const size_t in = ros::cloudRowColumns(layout_);
  const size_t columns = layout_.hasIntensity ? 8 : 7;
  const double stamp = ros::stampSeconds(cloud.stampNs);
  rows.resize(points * columns);
  // The reader drops a cloud stamped before the one recorded ahead of it (it takes the
  // chunks in order): a map made in order must not go back in time.
  skips.orderTime = stamp;
  const bool moves = poser_.movesPoints();
  const bool excluding = exclusion_.active();
  size_t hint = 0, kept = 0;
  PoseCache& cache = poseCache();
  cache.next();
  for (size_t i = 0; i < points; ++i) {
    const double* v = decoded.data() + i * in;
    double* o = rows.data() + kept * columns;
    const double t = deskew_ ? v[3] : stamp;
    if (!(std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]) && std::isfinite(t))) {
      // Kept as it is: the pipeline skips and counts non-finite points.
      o[0] = v[0], o[1] = v[1], o[2] = v[2], o[3] = t, o[4] = o[5] = o[6] = 0.0;
      if (layout_.hasIntensity) o[7] = v[4];
      ++kept;
      continue;
    }
    const std::optional<RigidPose>& pose = cache.at(t, [&] { return poser_.at(t, hint); });
    if (!pose) {
      skips.add(t);
      continue;
    }
    const glm::dvec3 p(v[0], v[1], v[2]);
    // Returns from the robot, in the sensor frame: as measured, or (points already in the
    // trajectory's frame) relative to the sensor's position.
    if (excluding) {
      const SensorExclusion::Verdict verdict = exclusion_.judge(moves ? p : p - pose->translation);
      if (verdict != SensorExclusion::Verdict::Kept) {
        ++(verdict == SensorExclusion::Verdict::InBox ? skips.inBox : skips.nearSensor);
        continue;
      }
    }
    const glm::dvec3 world = moves ? applyPose(*pose, p) : p;
    o[0] = world.x, o[1] = world.y, o[2] = world.z, o[3] = t;
    o[4] = pose->translation.x, o[5] = pose->translation.y, o[6] = pose->translation.z;
    if (layout_.hasIntensity) o[7] = v[4];
    ++kept;
  }
  rows.resize(kept * columns);
  return kept;
}

}  // namespace voxen::detail
