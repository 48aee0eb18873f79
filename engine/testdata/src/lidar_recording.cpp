#include "voxen/testdata/lidar_recording.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "voxen/host/error.hpp"
#include "voxen/input/mcap_reader.hpp"
#include "voxen/testdata/ros_bag_writer.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/input/tf_buffer.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen {

namespace {

constexpr uint32_t kPointStep = 24;  // x y z intensity (float32), t (uint32), ring (uint16), 2 bytes padding

std::vector<ros::PointField> cloudFields() {
  using T = ros::PointFieldType;
  return {{"x", 0, uint8_t(T::Float32), 1},         {"y", 4, uint8_t(T::Float32), 1},
          {"z", 8, uint8_t(T::Float32), 1},         {"intensity", 12, uint8_t(T::Float32), 1},
          {"t", 16, uint8_t(T::Uint32), 1},         {"ring", 20, uint8_t(T::Uint16), 1}};
}

// One container or the other, written the same way.
class RecordingOut {
 public:
  RecordingOut(const std::filesystem::path& path, const std::string& compression) {
    const std::string ext = path.extension().string();
    if (ext == ".bag") {
      bag_ = std::make_unique<RosBagWriter>(path, compression);
    } else if (ext == ".mcap") {
      mcap::WriterOptions options;
      if (!compression.empty() && compression != "zstd" && compression != "lz4")
        throw Error(path.string() + ": unknown MCAP compression '" + compression + "' (zstd, lz4)");
      options.compression = compression;
      mcap_ = std::make_unique<mcap::Writer>(path, options);
      const std::string& cs = ros::pointCloud2Ros2Schema();
      const std::string& ts = ros::tfMessageRos2Schema();
      cloudSchema_ = mcap_->addSchema(std::string(ros::kPointCloud2Ros2Type), "ros2msg",
                                      std::span(reinterpret_cast<const uint8_t*>(cs.data()), cs.size()));
      tfSchema_ = mcap_->addSchema(std::string(ros::kTfMessageRos2Type), "ros2msg",
                                   std::span(reinterpret_cast<const uint8_t*>(ts.data()), ts.size()));
    } else {
      throw Error(path.string() + ": a recording is written as .bag (ROS 1) or .mcap (ROS 2), by its extension");
    }
  }
  ros::MessageEncoding encoding() const { return bag_ ? ros::MessageEncoding::Ros1 : ros::MessageEncoding::Cdr; }

  void cloud(const std::string& topic, int64_t timeNs, std::span<const uint8_t> bytes) {
    if (bag_) {
      bag_->write(topic, timeNs, std::string(ros::kPointCloud2Ros1Type), ros::pointCloud2Md5(),
                  ros::pointCloud2Ros1Definition(), bytes);
    } else {
      if (!cloudChannel_) cloudChannel_ = mcap_->addChannel(cloudSchema_, topic, "cdr");
      mcap_->write(*cloudChannel_, uint64_t(timeNs), uint64_t(timeNs), bytes);
    }
  }
  void tf(bool isStatic, int64_t timeNs, std::span<const uint8_t> bytes) {
    const std::string topic = isStatic ? "/tf_static" : "/tf";
    if (bag_) {
      bag_->write(topic, timeNs, std::string(ros::kTfMessageRos1Type), ros::tfMessageMd5(), ros::tfMessageRos1Definition(),
                  bytes);
    } else {
      std::optional<uint16_t>& channel = isStatic ? staticChannel_ : tfChannel_;
      if (!channel) channel = mcap_->addChannel(tfSchema_, topic, "cdr");
      mcap_->write(*channel, uint64_t(timeNs), uint64_t(timeNs), bytes);
    }
  }
  void close() {
    if (bag_) bag_->close();
    if (mcap_) mcap_->close();
  }

 private:
  std::unique_ptr<RosBagWriter> bag_;
  std::unique_ptr<mcap::Writer> mcap_;
  uint16_t cloudSchema_ = 0, tfSchema_ = 0;
  std::optional<uint16_t> cloudChannel_, tfChannel_, staticChannel_;
};

int64_t toNs(double seconds) { return std::llround(seconds * 1e9); }

}  // namespace

LidarRecordingSummary writeLidarRecording(const SyntheticScene& scene, const LidarConfig& config,
                                          const std::filesystem::path& path, const LidarRecordingOptions& options,
                                          const std::function<void(const LidarScan&, const LidarRecordingSummary&)>& progress) {
  config.validate();
  const auto started = std::chrono::steady_clock::now();
  RecordingOut out(path, options.compression);
  const ros::MessageEncoding encoding = out.encoding();
  LidarRecordingSummary summary;

  // tf: map -> odom static, odom -> lidar at every trajectory sample (stamps in whole ns).
  std::vector<ros::TransformStamped> samples;
  for (const TrajectorySample& s : lidarTrajectory(scene, config, options.tfRateHz)) {
    ros::TransformStamped t;
    t.stampNs = toNs(s.time);
    t.parentFrame = "odom";
    t.childFrame = "lidar";
    t.translation = s.position;
    t.rotation = glm::normalize(s.orientation);
    samples.push_back(t);
  }
  ros::TransformStamped mapOdom;
  mapOdom.stampNs = samples.front().stampNs;
  mapOdom.parentFrame = "map";
  mapOdom.childFrame = "odom";
  TfBuffer tf;
  tf.add(mapOdom, true);
  for (const auto& s : samples) tf.add(s, false);
  const TfBuffer::Chain chain = tf.chain("map", "lidar");

  std::optional<LidarPlyWriter> ply;
  std::optional<detail::AtomicFileWriter> trajectoryOut;
  if (!options.plyPath.empty()) ply.emplace(options.plyPath, "voxen synthetic lidar, the points of " + path.filename().string());
  if (!options.trajectoryPath.empty()) trajectoryOut.emplace(options.trajectoryPath, "trajectory");

  {
    const std::vector<uint8_t> bytes = ros::encodeTfMessage(std::span(&mapOdom, 1), encoding);
    out.tf(true, mapOdom.stampNs, bytes);
  }
  size_t nextSample = 0;
  const auto tfUpTo = [&](int64_t ns) {
    while (nextSample < samples.size() && samples[nextSample].stampNs <= ns) {
      const std::vector<uint8_t> bytes = ros::encodeTfMessage(std::span(&samples[nextSample], 1), encoding);
      out.tf(false, samples[nextSample].stampNs, bytes);
      ++nextSample;
      ++summary.transforms;
    }
  };

  std::vector<uint8_t> data;
  ros::PointCloud2 cloud;
  cloud.frameId = "lidar";
  cloud.fields = cloudFields();
  cloud.pointStep = kPointStep;
  cloud.height = uint32_t(config.rings);
  cloud.width = uint32_t(config.columns);
  cloud.rowStep = kPointStep * cloud.width;
  cloud.isDense = false;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  generateLidarScans(scene, config, [&](const LidarScan& scan) {
    const int64_t stampNs = toNs(scan.startTime);
    const double stamp = ros::stampSeconds(stampNs);
    data.assign(size_t(cloud.rowStep) * cloud.height, 0);
    size_t hint = 0;
    for (int column = 0; column < config.columns; ++column) {
      for (int ring = 0; ring < config.rings; ++ring) {
        const size_t r = size_t(column) * config.rings + ring;
        const Ray& ray = scan.rays[r];
        // Rows are rings, columns are columns: the order an organised cloud is read in.
        uint8_t* p = data.data() + size_t(ring) * cloud.rowStep + size_t(column) * kPointStep;
        const uint32_t t = uint32_t(std::max<int64_t>(0, toNs(ray.time) - stampNs));
        const double time = stamp + double(t) * 1e-9;
        float xyz[3] = {nan, nan, nan};
        const auto pose = chain.at(time, hint);
        if (!pose) throw Error(path.string() + ": the generated tf does not cover time " + std::to_string(time));
        if (!scan.noReturn[r]) {
          // Into the lidar frame at the point's (rounded) time: the inverse of the reader's pose.
          const glm::dvec3 local = glm::conjugate(pose->rotation) * (ray.sample - pose->translation);
          for (int a = 0; a < 3; ++a) xyz[a] = float(local[a]);
        }
        std::memcpy(p, xyz, 12);
        std::memcpy(p + 12, &ray.intensity, 4);
        std::memcpy(p + 16, &t, 4);
        const uint16_t ringIndex = uint16_t(ring);
        std::memcpy(p + 20, &ringIndex, 2);
      }
    }
    // The PLY in the reader's order (row by row), each point posed as the reader poses it.
    if (ply) {
      for (int ring = 0; ring < config.rings; ++ring) {
        hint = 0;
        for (int column = 0; column < config.columns; ++column) {
          const size_t r = size_t(column) * config.rings + ring;
          if (scan.noReturn[r]) continue;
          const uint8_t* p = data.data() + size_t(ring) * cloud.rowStep + size_t(column) * kPointStep;
          float xyz[3];
          uint32_t t;
          std::memcpy(xyz, p, 12);
          std::memcpy(&t, p + 16, 4);
          Ray posed;
          posed.time = stamp + double(t) * 1e-9;
          const auto pose = chain.at(posed.time, hint);
          posed.sample = applyPose(*pose, glm::dvec3(xyz[0], xyz[1], xyz[2]));
          posed.origin = pose->translation;
          posed.intensity = scan.rays[r].intensity;
          ply->write(posed);
        }
      }
    }
    cloud.stampNs = stampNs;
    cloud.data = data;
    const int64_t endNs = toNs(scan.startTime + 1.0 / config.scanRateHz);
    tfUpTo(endNs);  // a driver publishes the scan once it is complete, after the poses it spans
    const std::vector<uint8_t> bytes = ros::encodePointCloud2(cloud, encoding);
    out.cloud(options.cloudTopic, endNs, bytes);
    ++summary.clouds;
    summary.points += scan.rays.size();
    summary.returns += scan.returns;
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (progress) progress(scan, summary);
  });
  tfUpTo(std::numeric_limits<int64_t>::max());
  out.close();
  if (ply) ply->close();
  if (trajectoryOut) {
    // 17 digits: the times and positions read back are the tf samples' own doubles.
    std::string text = "# time x y z qx qy qz qw (odom -> lidar)\n";
    char line[320];
    for (const auto& s : samples) {
      const glm::dquat& q = s.rotation;
      const int n = std::snprintf(line, sizeof line, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
                                  ros::stampSeconds(s.stampNs), s.translation.x, s.translation.y, s.translation.z, q.x,
                                  q.y, q.z, q.w);
      text.append(line, size_t(n));
    }
    trajectoryOut->write(text.data(), text.size());
    trajectoryOut->commit();
  }
  summary.bytes = std::filesystem::file_size(path);
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace voxen
