// ROS 1 bags and MCAP files read as rays: poses from tf through a chain of frames worked out
// by hand, deskew by each point's time, the same generated run as bag, MCAP and PLY +
// trajectory giving the same rays bit for bit, and the skips and refusals a recording needs.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "support/test_helpers.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/mcap_reader.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/testdata/ros_bag_writer.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/testdata/lidar_recording.hpp"

using Catch::Matchers::Contains;
using voxen::Ray;
namespace ros = voxen::ros;

namespace {

struct Recorded {
  std::vector<ros::PointCloud2> clouds;  // data spans into `storage`
  std::vector<std::vector<uint8_t>> storage;
  std::vector<ros::TransformStamped> moving, statics;
};

// One point per entry: float32 x y z, and a float32 'time' (seconds after the stamp) when
// withTime.
ros::PointCloud2& addCloud(Recorded& r, int64_t stampNs, const std::string& frame,
                           const std::vector<std::array<float, 4>>& points, bool withTime) {
  using T = ros::PointFieldType;
  ros::PointCloud2 c;
  c.stampNs = stampNs;
  c.frameId = frame;
  c.width = uint32_t(points.size());
  c.fields = {{"x", 0, uint8_t(T::Float32), 1}, {"y", 4, uint8_t(T::Float32), 1}, {"z", 8, uint8_t(T::Float32), 1}};
  if (withTime) c.fields.push_back({"time", 12, uint8_t(T::Float32), 1});
  c.pointStep = withTime ? 16 : 12;
  c.rowStep = c.pointStep * c.width;
  std::vector<uint8_t>& data = r.storage.emplace_back(c.rowStep);
  for (size_t i = 0; i < points.size(); ++i) std::memcpy(data.data() + i * c.pointStep, points[i].data(), c.pointStep);
  c.data = data;
  r.clouds.push_back(c);
  return r.clouds.back();
}

ros::TransformStamped transform(int64_t stampNs, const std::string& parent, const std::string& child, glm::dvec3 t,
                                glm::dquat q = {1, 0, 0, 0}) {
  ros::TransformStamped x;
  x.stampNs = stampNs, x.parentFrame = parent, x.childFrame = child, x.translation = t, x.rotation = q;
  return x;
}

void writeBag(const std::filesystem::path& path, const Recorded& r) {
  voxen::RosBagWriter bag(path, "");
  for (const auto& t : r.statics)
    bag.write("/tf_static", t.stampNs, std::string(ros::kTfMessageRos1Type), ros::tfMessageMd5(),
              ros::tfMessageRos1Definition(), ros::encodeTfMessage(std::span(&t, 1), ros::MessageEncoding::Ros1));
  for (const auto& t : r.moving)
    bag.write("/tf", t.stampNs, std::string(ros::kTfMessageRos1Type), ros::tfMessageMd5(),
              ros::tfMessageRos1Definition(), ros::encodeTfMessage(std::span(&t, 1), ros::MessageEncoding::Ros1));
  // Recorded in the order given (container time rising), whatever their stamps say.
  int64_t time = 1;
  for (const auto& c : r.clouds)
    bag.write("/points", time++, std::string(ros::kPointCloud2Ros1Type), ros::pointCloud2Md5(),
              ros::pointCloud2Ros1Definition(), ros::encodePointCloud2(c, ros::MessageEncoding::Ros1));
  bag.close();
}

void writeMcap(const std::filesystem::path& path, const Recorded& r) {
  voxen::mcap::Writer mcap(path, {.compression = "zstd"});
  const auto bytes = [](const std::string& s) { return std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  const uint16_t tfSchema = mcap.addSchema(std::string(ros::kTfMessageRos2Type), "ros2msg", bytes(ros::tfMessageRos2Schema()));
  const uint16_t cloudSchema =
      mcap.addSchema(std::string(ros::kPointCloud2Ros2Type), "ros2msg", bytes(ros::pointCloud2Ros2Schema()));
  const uint16_t tfStatic = mcap.addChannel(tfSchema, "/tf_static", "cdr");
  const uint16_t tf = mcap.addChannel(tfSchema, "/tf", "cdr");
  const uint16_t points = mcap.addChannel(cloudSchema, "/points", "cdr");
  for (const auto& t : r.statics)
    mcap.write(tfStatic, uint64_t(t.stampNs), uint64_t(t.stampNs), ros::encodeTfMessage(std::span(&t, 1), ros::MessageEncoding::Cdr));
  for (const auto& t : r.moving)
    mcap.write(tf, uint64_t(t.stampNs), uint64_t(t.stampNs), ros::encodeTfMessage(std::span(&t, 1), ros::MessageEncoding::Cdr));
  uint64_t time = 1;
  for (const auto& c : r.clouds) mcap.write(points, time, time, ros::encodePointCloud2(c, ros::MessageEncoding::Cdr)), ++time;
  mcap.close();
}

std::vector<Ray> readAll(const std::filesystem::path& path, voxen::RayReaderOptions options = {},
                         voxen::RayLoadStats* stats = nullptr,
                         std::optional<std::filesystem::path> trajectory = std::nullopt) {
  voxen::RayReader reader(path, trajectory, options);
  std::vector<Ray> rays;
  while (reader.read(rays, 1000) > 0) {
  }
  if (stats) *stats = reader.stats();
  return rays;
}

// Stamps from T0 (10,000 s: a clock far from 0, so that offsets of a fraction of a second
// can only be offsets, as with real recordings).
constexpr int64_t kT0 = 10000000000000;
constexpr double kT0s = 10000.0;

// map -> odom: static, 10 m along x. odom -> base_link: moving, (0, 0, 0) at T0 and
// (2, 0, 0) at T0 + 1 s, turned 90 degrees about z there. base_link -> lidar: static, 1 m up.
Recorded handTree() {
  Recorded r;
  r.statics = {transform(kT0, "map", "odom", {10, 0, 0}), transform(kT0, "base_link", "lidar", {0, 0, 1})};
  const double h = std::sqrt(0.5);
  r.moving = {transform(kT0, "odom", "base_link", {0, 0, 0}),
              transform(kT0 + 1000000000, "odom", "base_link", {2, 0, 0}, glm::dquat(h, 0, 0, h))};
  return r;
}

bool sameRays(const std::vector<Ray>& a, const std::vector<Ray>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i].sample, &b[i].sample, sizeof a[i].sample) != 0 ||
        std::memcmp(&a[i].origin, &b[i].origin, sizeof a[i].origin) != 0 || a[i].time != b[i].time ||
        std::memcmp(&a[i].intensity, &b[i].intensity, sizeof(float)) != 0)
      return false;
  }
  return true;
}

}  // namespace

TEST_CASE("Recordings: points posed through map -> odom -> base_link -> lidar, worked out by hand", "[rosbag][mcap][tf][input]") {
  vt::TempDir dir("recording-hand");
  for (const bool mcap : {false, true}) {
    DYNAMIC_SECTION((mcap ? "MCAP" : "bag")) {
      Recorded r = handTree();
      // Stamped at 0.5 s: base_link at (1, 0, 0), turned 45 degrees. Point times 0, +0.25 s.
      addCloud(r, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}, {0, 0, 0, 0.25f}}, true);
      const auto path = dir / (mcap ? "hand.mcap" : "hand.bag");
      mcap ? writeMcap(path, r) : writeBag(path, r);
      const std::vector<Ray> rays = readAll(path);
      REQUIRE(rays.size() == 2);
      const double s = std::sqrt(0.5);
      // At 0.5 s: map = (10, 0, 0) + (1, 0, 0) + R45 ((0, 0, 1) + p); p = (1, 0, 0) -> (11 + s, s, 1).
      CHECK(rays[0].origin.x == Approx(11.0).margin(1e-12));
      CHECK(rays[0].origin.z == Approx(1.0).margin(1e-12));
      CHECK(rays[0].sample.x == Approx(11.0 + s).margin(1e-12));
      CHECK(rays[0].sample.y == Approx(s).margin(1e-12));
      CHECK(rays[0].sample.z == Approx(1.0).margin(1e-12));
      CHECK(rays[0].time == Approx(kT0s + 0.5).margin(1e-9));
      // At 0.75 s (deskewed): base_link at (1.5, 0, 0), the point is the lidar itself.
      CHECK(rays[1].time == Approx(kT0s + 0.75).margin(1e-9));
      CHECK(rays[1].sample.x == Approx(11.5).margin(1e-9));
      CHECK(rays[1].sample.z == Approx(1.0).margin(1e-12));
      CHECK(rays[1].origin.x == Approx(11.5).margin(1e-9));

      // Without deskew both points take the stamp's pose.
      voxen::RayReaderOptions options;
      options.recording.deskew = false;
      const std::vector<Ray> stamped = readAll(path, options);
      REQUIRE(stamped.size() == 2);
      CHECK(stamped[1].sample.x == Approx(11.0).margin(1e-12));
      CHECK(stamped[1].time == Approx(kT0s + 0.5).margin(1e-9));

      // In the odom frame instead: no map -> odom offset.
      options = {};
      options.recording.fixedFrame = "odom";
      CHECK(readAll(path, options)[0].sample.x == Approx(1.0 + s).margin(1e-12));
    }
  }
}

TEST_CASE("Recordings: points outside the tf data and clouds going back in time are skipped and counted",
          "[rosbag][mcap][tf][input]") {
  vt::TempDir dir("recording-skips");
  Recorded r = handTree();
  addCloud(r, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}, {1, 0, 0, 0.75f}}, true);  // the second at 1.25 s: past the tf
  addCloud(r, kT0 + 800000000, "lidar", {{1, 0, 0, 0.0f}}, true);
  addCloud(r, kT0 + 600000000, "lidar", {{1, 0, 0, 0.0f}, {2, 0, 0, 0.0f}}, true);  // stamped before the last one
  writeBag(dir / "skips.bag", r);
  voxen::RayLoadStats stats;
  voxen::RayReader reader(dir / "skips.bag");
  std::vector<Ray> rays;
  while (reader.read(rays, 100) > 0) {
  }
  stats = reader.stats();
  CHECK(rays.size() == 2);
  CHECK(stats.points == 5);
  CHECK(stats.skippedOutsideTrajectory == 1);
  CHECK(stats.skippedBackwards == 2);
  CHECK_THAT(reader.summary(), Contains("outside the span of tf (map -> odom -> base_link -> lidar)"));
  CHECK_THAT(reader.summary(), Contains("2 skipped in clouds stamped before the cloud recorded ahead of them"));
}

TEST_CASE("Recordings: what cannot be read is refused, naming the file, topic, frame or field", "[rosbag][mcap][input]") {
  vt::TempDir dir("recording-refusals");
  Recorded r = handTree();
  addCloud(r, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
  writeBag(dir / "ok.bag", r);
  voxen::RayReaderOptions options;
  options.recording.cloudTopic = "/nope";
  CHECK_THROWS_WITH(readAll(dir / "ok.bag", options), Contains("cloud topic /nope: no such topic; its topics: "));
  options = {};
  options.recording.fixedFrame = "elsewhere";
  CHECK_THROWS_WITH(readAll(dir / "ok.bag", options), Contains("elsewhere"));
  options = {};
  options.recording.sensorFrame = "camera";
  CHECK_THROWS_WITH(readAll(dir / "ok.bag", options), Contains("camera"));

  // Without tf: asks for a trajectory.
  Recorded bare;
  addCloud(bare, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
  writeBag(dir / "bare.bag", bare);
  CHECK_THROWS_WITH(readAll(dir / "bare.bag"), Contains("has no /tf or /tf_static topic"));

  // A cloud without z.
  Recorded noZ = handTree();
  ros::PointCloud2& c = addCloud(noZ, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
  c.fields[2].name = "w";
  writeBag(dir / "noz.bag", noZ);
  CHECK_THROWS_WITH(readAll(dir / "noz.bag"), Contains("noz.bag") && Contains("/points"));

  // A later cloud in another frame than the first.
  Recorded frames = handTree();
  addCloud(frames, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
  addCloud(frames, kT0 + 600000000, "base_link", {{1, 0, 0, 0.0f}}, true);
  writeMcap(dir / "frames.mcap", frames);
  CHECK_THROWS_WITH(readAll(dir / "frames.mcap"), Contains("cloud message 1 of 2: is in frame 'base_link'"));

  // Truncated files: an Error, never a crash or a hang.
  const std::string bag = [&] {
    std::ifstream in(dir / "ok.bag", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  for (size_t cut = 13; cut < bag.size(); cut += std::max<size_t>(1, bag.size() / 37)) {
    dir.write("cut.bag", bag.substr(0, cut));
    CHECK_THROWS_AS(readAll(dir / "cut.bag"), voxen::Error);
  }
  // Every 5th byte flipped in turn (the records after the bag header's 4 KB of padding):
  // rays or a voxen::Error, never a crash (librosbag-storage trusts the bag's offsets and
  // lengths; Voxen checks them first) or another exception.
  size_t refused = 0;
  for (size_t at = 13; at < bag.size(); at += at < 4096 ? 97 : 5) {
    std::string flipped = bag;
    flipped[at] = char(flipped[at] ^ 0xFF);
    dir.write("flipped.bag", flipped);
    try {
      readAll(dir / "flipped.bag");
    } catch (const voxen::Error&) {
      ++refused;
    }
  }
  CHECK(refused > 100);
}

TEST_CASE("Recordings: two different tf transforms at one stamp are refused on the sensor's chain, a warning off it",
          "[rosbag][mcap][tf][input]") {
  vt::TempDir dir("recording-tf-conflicts");
  for (const bool mcap : {false, true}) {
    DYNAMIC_SECTION((mcap ? "MCAP" : "bag")) {
      const std::filesystem::path file = dir / (mcap ? "c.mcap" : "c.bag");
      const auto write = [&](const Recorded& r) { mcap ? writeMcap(file, r) : writeBag(file, r); };
      // odom -> base_link twice at T0 + 1 s: 2 m along x, and 50 m off. Before, the later
      // silently won and the cloud landed 50 m off.
      Recorded onChain = handTree();
      onChain.moving.push_back(transform(kT0 + 1000000000, "odom", "base_link", {52, 0, 0}));
      addCloud(onChain, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
      write(onChain);
      CHECK_THROWS_WITH(readAll(file), Contains(file.string() + ": topic /tf: two different transforms of frame "
                                                "'base_link' in 'odom' at the same stamp 10001 s") &&
                                           Contains("(2, 0, 0) and (52, 0, 0)") && Contains("sensor's chain"));
      // The same transform twice (two publishers agreeing) is no conflict.
      Recorded repeated = handTree();
      repeated.moving.push_back(repeated.moving.back());
      addCloud(repeated, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
      write(repeated);
      CHECK(readAll(file).size() == 1);
      // A conflict on a link the sensor's chain does not pass: read, with a warning counting it.
      Recorded offChain = handTree();
      offChain.moving.push_back(transform(kT0, "odom", "wheel", {0, 1, 0}));
      offChain.moving.push_back(transform(kT0, "odom", "wheel", {0, 9, 0}));
      addCloud(offChain, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
      write(offChain);
      voxen::RayReader reader(file);
      std::vector<Ray> rays;
      while (reader.read(rays, 1000) > 0) {
      }
      CHECK(rays.size() == 1);
      REQUIRE(reader.warnings().size() == 1);
      CHECK_THAT(reader.warnings()[0], Contains("1 stamp of 1 link off the sensor's chain carry two different transforms") &&
                                           Contains("frame 'wheel' in 'odom' at 10000 s") &&
                                           Contains("(0, 1, 0) and (0, 9, 0)"));
    }
  }
}

TEST_CASE("Recordings: returns from the robot (minimum range, body box) are judged in the sensor frame and counted",
          "[rosbag][mcap][tf][input]") {
  vt::TempDir dir("recording-exclusion");
  // At T0 + 1 s base_link is turned 90 degrees about z, so the lidar's x is the map's y: a box
  // along the lidar's x drops the points ahead of it, whichever way the robot faces.
  Recorded r = handTree();
  addCloud(r, kT0 + 1000000000, "lidar", {{0.5f, 0, 0, 0}, {0, 0.5f, 0, 0}, {0.1f, 0.1f, 0, 0}, {3, 0, 0, 0}}, true);
  writeBag(dir / "x.bag", r);
  voxen::RayReaderOptions options;
  options.exclusion.box = std::array<glm::dvec3, 2>{glm::dvec3(0.2, -0.1, -0.1), glm::dvec3(1, 0.1, 0.1)};
  options.exclusion.minRange = 0.3;
  voxen::RayLoadStats stats;
  const std::vector<Ray> rays = readAll(dir / "x.bag", options, &stats);
  // (0.5, 0, 0) in the box; (0.1, 0.1, 0) nearer than 0.3 m; (0, 0.5, 0) and (3, 0, 0) kept.
  REQUIRE(rays.size() == 2);
  CHECK(stats.skippedInBox == 1);
  CHECK(stats.skippedNearSensor == 1);
  CHECK(stats.points == 4);
  // The lidar at (12, 0, 1), turned 90 degrees: its (0, 0.5, 0) is the map's (-0.5, 0, 0).
  CHECK(rays[0].sample.x == Approx(11.5));
  CHECK(rays[0].sample.y == Approx(0.0).margin(1e-12));
  CHECK(rays[1].sample.y == Approx(3.0));
}

TEST_CASE("Recordings: one generated run as bag, MCAP and PLY + trajectory gives the same rays bit for bit",
          "[rosbag][mcap][input]") {
  vt::TempDir dir("recording-equal");
  const voxen::SyntheticScene scene = voxen::SyntheticScene::generate(3);
  voxen::LidarConfig lidar;
  lidar.rings = 8, lidar.columns = 128, lidar.scans = 3, lidar.seed = 3, lidar.threads = 1;
  voxen::LidarRecordingOptions options;
  options.compression = "lz4";
  options.plyPath = dir / "run.ply";
  options.trajectoryPath = dir / "run.txt";
  voxen::writeLidarRecording(scene, lidar, dir / "run.bag", options);
  voxen::writeLidarRecording(scene, lidar, dir / "run.mcap", {.compression = "zstd"});

  voxen::RayLoadStats plyStats, bagStats;
  const std::vector<Ray> ply = readAll(dir / "run.ply", {}, &plyStats, dir / "run.txt");
  const std::vector<Ray> bag = readAll(dir / "run.bag", {}, &bagStats);
  REQUIRE(ply.size() > 1000);
  CHECK(bagStats.rays == plyStats.rays);
  CHECK(bagStats.skippedNonFinite > 0);  // the no-return beams, NaN in the organised clouds
  CHECK(sameRays(ply, bag));
  CHECK(sameRays(bag, readAll(dir / "run.mcap")));
  CHECK(sameRays(bag, readAll(dir / "run.bag", {.threads = 3, .chunkPoints = 100})));

  // The trajectory file instead of tf: the same poses, slerped by the trajectory.
  const std::vector<Ray> withTrajectory = readAll(dir / "run.bag", {}, nullptr, dir / "run.txt");
  REQUIRE(withTrajectory.size() == bag.size());
  for (size_t i = 0; i < bag.size(); i += 97) {
    CHECK(glm::length(withTrajectory[i].sample - bag[i].sample) < 1e-9);
    CHECK(glm::length(withTrajectory[i].origin - bag[i].origin) < 1e-12);
  }
}

TEST_CASE("Recordings: what drivers and converters write (empty clouds first, clocks from 0, a topic on two "
          "channels, '/' frames, bad tf off the chain)", "[rosbag][mcap][tf][input]") {
  vt::TempDir dir("recording-real");
  SECTION("Empty clouds before the first with points are passed over") {
    Recorded r = handTree();
    addCloud(r, kT0 + 400000000, "lidar", {}, true);
    addCloud(r, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
    writeBag(dir / "empty-first.bag", r);
    voxen::RayLoadStats stats;
    CHECK(readAll(dir / "empty-first.bag", {}, &stats).size() == 1);
  }
  SECTION("Every cloud empty: an input of no points, not an error (voxen map judges an empty map)") {
    for (const bool mcap : {false, true}) {
      Recorded r = handTree();
      addCloud(r, kT0 + 400000000, "lidar", {}, true);
      addCloud(r, kT0 + 500000000, "lidar", {}, true);
      const std::filesystem::path file = dir / (mcap ? "all-empty.mcap" : "all-empty.bag");
      mcap ? writeMcap(file, r) : writeBag(file, r);
      voxen::RayReader reader(file);
      std::vector<Ray> rays;
      while (reader.read(rays, 100) > 0) {
      }
      CHECK(rays.empty());
      CHECK(reader.stats().points == 0);
      CHECK_THAT(reader.summary(), Contains("topic /points (2 clouds, every one empty)"));
    }
  }
  SECTION("A clock from 0: offsets stay offsets (the second cloud shows they do not move with the stamps)") {
    Recorded r;
    r.statics = {transform(0, "map", "lidar", {0, 0, 0})};
    r.moving = {transform(0, "map", "odom", {0, 0, 0}), transform(2000000000, "map", "odom", {0, 0, 0})};
    r.statics[0].parentFrame = "odom";
    for (const int64_t stamp : {30000000, 530000000, 1030000000})
      addCloud(r, stamp, "lidar", {{1, 0, 0, 0.0f}, {1, 0, 0, 0.09f}}, true);
    writeBag(dir / "sim.bag", r);
    const std::vector<Ray> rays = readAll(dir / "sim.bag");
    REQUIRE(rays.size() == 6);
    CHECK(rays[2].time == Approx(0.53).margin(1e-9));
    CHECK(rays[5].time == Approx(1.12).margin(1e-6));
  }
  SECTION("One topic on two MCAP channels: every cloud read") {
    Recorded r = handTree();
    for (int k = 0; k < 4; ++k) addCloud(r, kT0 + 100000000 * (k + 1), "lidar", {{1, 0, 0, 0.0f}}, true);
    voxen::mcap::Writer mcap(dir / "two.mcap");
    const auto bytes = [](const std::string& s) { return std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
    const uint16_t tfSchema = mcap.addSchema(std::string(ros::kTfMessageRos2Type), "ros2msg", bytes(ros::tfMessageRos2Schema()));
    const uint16_t cloudSchema =
        mcap.addSchema(std::string(ros::kPointCloud2Ros2Type), "ros2msg", bytes(ros::pointCloud2Ros2Schema()));
    const uint16_t tfStatic = mcap.addChannel(tfSchema, "/tf_static", "cdr");
    const uint16_t tf = mcap.addChannel(tfSchema, "/tf", "cdr");
    const uint16_t a = mcap.addChannel(cloudSchema, "/points", "cdr"), b = mcap.addChannel(cloudSchema, "/points", "cdr");
    for (const auto& t : r.statics)
      mcap.write(tfStatic, uint64_t(t.stampNs), uint64_t(t.stampNs), ros::encodeTfMessage(std::span(&t, 1), ros::MessageEncoding::Cdr));
    for (const auto& t : r.moving)
      mcap.write(tf, uint64_t(t.stampNs), uint64_t(t.stampNs), ros::encodeTfMessage(std::span(&t, 1), ros::MessageEncoding::Cdr));
    for (size_t k = 0; k < r.clouds.size(); ++k)
      mcap.write(k % 2 ? b : a, uint64_t(r.clouds[k].stampNs), 0, ros::encodePointCloud2(r.clouds[k], ros::MessageEncoding::Cdr));
    mcap.close();
    CHECK(readAll(dir / "two.mcap").size() == 4);
  }
  SECTION("Frames written with a leading '/' are tf2's frames without it") {
    Recorded r = handTree();
    r.statics[1].childFrame = "/lidar";
    addCloud(r, kT0 + 500000000, "/lidar", {{1, 0, 0, 0.0f}}, true);
    writeBag(dir / "slash.bag", r);
    CHECK(readAll(dir / "slash.bag").size() == 1);
  }
  SECTION("A bad transform off the sensor's chain is set aside; on it, an error naming the file and message") {
    Recorded r = handTree();
    r.statics.push_back(transform(kT0, "map", "camera", {std::nan(""), 0, 0}));
    addCloud(r, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
    writeBag(dir / "camera.bag", r);
    voxen::RayReader reader(dir / "camera.bag");
    std::vector<Ray> rays;
    while (reader.read(rays, 100) > 0) {
    }
    CHECK(rays.size() == 1);
    CHECK_THAT(reader.summary(), Contains("1 tf transform of frames off the sensor's chain refused"));
    Recorded onChain = handTree();
    onChain.statics[1].translation.x = std::nan("");
    addCloud(onChain, kT0 + 500000000, "lidar", {{1, 0, 0, 0.0f}}, true);
    writeBag(dir / "nan.bag", onChain);
    CHECK_THAT(vt::errorOf([&] { readAll(dir / "nan.bag"); }), Contains("nan.bag: topic /tf_static, message") && Contains("non-finite translation"));
  }
}
