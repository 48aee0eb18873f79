// The depth camera's recordings (issue 40): an MCAP file whose images, camera infos and tf
// read back to the frames and poses generated, the same bytes on any thread count, and a TUM
// RGB-D folder's files; refusals leave nothing behind.
#include <catch2/catch.hpp>

#include <glm/gtc/quaternion.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/depth_source.hpp"
#include "voxen/input/mcap_reader.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/testdata/depth_recording.hpp"

namespace {

using namespace voxen;

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

DepthCameraConfig tinyCamera(unsigned threads) {
  DepthCameraConfig c;
  c.width = 40;
  c.height = 30;
  c.frames = 3;
  c.threads = threads;
  c.depthNoiseStdDev = 0.005;
  return c;
}

// The frames a DepthSource reads back from `path`.
std::vector<DepthFrame> readBack(const std::filesystem::path& path) {
  DepthSource source(path);
  std::vector<DepthFrame> frames;
  DepthFrame f;
  while (source.next(f)) frames.push_back(f);
  return frames;
}

// A CDR message's fields in order (little-endian, aligned from the end of the 4-byte header).
struct CdrIn {
  std::span<const uint8_t> b;
  size_t at = 4;
  template <typename T>
  T get() {
    at += (sizeof(T) - (at - 4) % sizeof(T)) % sizeof(T);
    T v;
    std::memcpy(&v, b.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  std::string string() {
    const uint32_t n = get<uint32_t>();
    std::string s(reinterpret_cast<const char*>(b.data() + at), n ? n - 1 : 0);
    at += n;
    return s;
  }
};

}  // namespace

TEST_CASE("depth recording: an MCAP file of images, camera infos and tf that pose each frame exactly", "[depthcam]") {
  const SyntheticScene scene = SyntheticScene::generate(1);
  vt::TempDir dir("depth-mcap");
  const DepthCameraConfig camera = tinyCamera(1);
  std::vector<GeneratedDepthFrame> frames;
  const DepthRecordingSummary s = writeDepthRecording(scene, camera, dir / "walk.mcap", {},
                                                      [&](const GeneratedDepthFrame& f, const DepthRecordingSummary&) {
                                                        frames.push_back(f);
                                                      });
  CHECK(s.frames == 3);
  CHECK(s.transforms == 5);  // two static, one per frame
  CHECK(s.bytes == std::filesystem::file_size(dir / "walk.mcap"));

  mcap::Reader reader(dir / "walk.mcap");
  std::map<std::string, uint16_t> channel;
  std::map<std::string, std::string> schema;
  for (const auto& [id, c] : reader.channels()) {
    channel[c.topic] = id;
    schema[c.topic] = reader.schemas().at(c.schemaId).name;
    CHECK(c.messageEncoding == "cdr");
  }
  CHECK(schema["/camera/depth/image_rect_raw"] == "sensor_msgs/msg/Image");
  CHECK(schema["/camera/depth/camera_info"] == "sensor_msgs/msg/CameraInfo");
  CHECK(schema["/tf"] == "tf2_msgs/msg/TFMessage");
  CHECK(schema["/tf_static"] == "tf2_msgs/msg/TFMessage");
  CHECK(reader.messageCount(channel["/camera/depth/image_rect_raw"]) == 3);
  CHECK(reader.messageCount(channel["/camera/depth/camera_info"]) == 3);
  CHECK(reader.messageCount(channel["/tf"]) == 3);
  CHECK(reader.messageCount(channel["/tf_static"]) == 1);

  // The images: the frames' millimetres, stamped and framed.
  const uint16_t images[] = {channel["/camera/depth/image_rect_raw"]};
  const auto imageAt = reader.index(images);
  REQUIRE(imageAt.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    const mcap::Message m = reader.read(imageAt[i]);
    CdrIn in{m.data};
    const int32_t sec = in.get<int32_t>();
    const uint32_t nsec = in.get<uint32_t>();
    CHECK(int64_t(sec) * 1000000000 + nsec == frames[i].stampNs);
    CHECK(in.string() == "camera_depth_optical_frame");
    CHECK(in.get<uint32_t>() == 30);
    CHECK(in.get<uint32_t>() == 40);
    CHECK(in.string() == "16UC1");
    CHECK(in.get<uint8_t>() == 0);
    CHECK(in.get<uint32_t>() == 80);
    REQUIRE(in.get<uint32_t>() == 2400);
    CHECK(std::memcmp(m.data.data() + in.at, frames[i].frame.depth.depth16.data(), 2400) == 0);
  }
  // The camera info: K and P from the intrinsics, plumb_bob with five zeros.
  const uint16_t infos[] = {channel["/camera/depth/camera_info"]};
  {
    const mcap::Message m = reader.read(reader.index(infos).front());
    CdrIn in{m.data};
    in.get<int32_t>(), in.get<uint32_t>(), in.string();
    CHECK(in.get<uint32_t>() == 30);
    CHECK(in.get<uint32_t>() == 40);
    CHECK(in.string() == "plumb_bob");
    REQUIRE(in.get<uint32_t>() == 5);
    for (int i = 0; i < 5; ++i) CHECK(in.get<double>() == 0.0);
    const CameraIntrinsics k = camera.intrinsics();
    const double K[9] = {k.fx, 0, k.cx, 0, k.fy, k.cy, 0, 0, 1};
    for (double v : K) CHECK(in.get<double>() == v);
  }
  // tf: map -> odom -> base_link -> optical composes to each frame's pose.
  const uint16_t statics[] = {channel["/tf_static"]}, moving[] = {channel["/tf"]};
  const auto staticTf = ros::decodeTfMessage(reader.read(reader.index(statics).front()).data, ros::MessageEncoding::Cdr, "tf_static");
  REQUIRE(staticTf.size() == 2);
  CHECK(staticTf[0].parentFrame == "map");
  CHECK(staticTf[0].childFrame == "odom");
  CHECK(staticTf[1].parentFrame == "base_link");
  CHECK(staticTf[1].childFrame == "camera_depth_optical_frame");
  const auto tfAt = reader.index(moving);
  REQUIRE(tfAt.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    const auto tf = ros::decodeTfMessage(reader.read(tfAt[i]).data, ros::MessageEncoding::Cdr, "tf");
    REQUIRE(tf.size() == 1);
    CHECK(tf[0].parentFrame == "odom");
    CHECK(tf[0].childFrame == "base_link");
    CHECK(tf[0].stampNs == frames[i].stampNs);
    const glm::dvec3 position = tf[0].rotation * staticTf[1].translation + tf[0].translation;
    const glm::dquat rotation = tf[0].rotation * staticTf[1].rotation;
    CHECK(glm::length(position - frames[i].frame.position) < 1e-12);
    CHECK(std::abs(glm::dot(rotation, frames[i].frame.orientation)) > 1.0 - 1e-12);
  }

  // The same bytes from another thread count.
  writeDepthRecording(scene, tinyCamera(3), dir / "again.mcap");
  CHECK(readFile(dir / "walk.mcap") == readFile(dir / "again.mcap"));
}

TEST_CASE("depth recording: a TUM RGB-D folder of 16-bit PNGs, depth.txt, groundtruth.txt and camera_info.yaml",
          "[depthcam]") {
  const SyntheticScene scene = SyntheticScene::generate(1);
  vt::TempDir dir("depth-tum");
  DepthCameraConfig camera = tinyCamera(2);
  camera.rateHz = 4.0;
  std::vector<GeneratedDepthFrame> frames;
  const DepthRecordingSummary s = writeDepthRecording(scene, camera, dir.path() / "tum/", {},
                                                      [&](const GeneratedDepthFrame& f, const DepthRecordingSummary&) {
                                                        frames.push_back(f);
                                                      });
  CHECK(s.frames == 3);
  const std::filesystem::path tum = dir / "tum";
  for (const char* name : {"depth.txt", "groundtruth.txt", "camera_info.yaml"}) CHECK(std::filesystem::is_regular_file(tum / name));
  std::istringstream depthList(readFile(tum / "depth.txt")), truth(readFile(tum / "groundtruth.txt"));
  std::string line;
  std::vector<std::string> entries, poses;
  while (std::getline(depthList, line))
    if (!line.empty() && line[0] != '#') entries.push_back(line);
  while (std::getline(truth, line))
    if (!line.empty() && line[0] != '#') poses.push_back(line);
  REQUIRE(entries.size() == 3);
  REQUIRE(poses.size() == 3);
  CHECK(entries[1] == "0.250000 depth/0.250000.png");
  for (size_t i = 0; i < 3; ++i) {
    const std::string png = readFile(tum / entries[i].substr(entries[i].find(' ') + 1));
    REQUIRE(png.size() > 33);
    CHECK(png.substr(1, 3) == "PNG");
    const auto be32 = [&](size_t at) {
      return uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 | uint32_t(uint8_t(png[at + 2])) << 8 |
             uint8_t(png[at + 3]);
    };
    CHECK(be32(16) == 40);
    CHECK(be32(20) == 30);
    CHECK(int(png[24]) == 16);  // bit depth
    CHECK(int(png[25]) == 0);   // greyscale
    std::istringstream pose(poses[i]);
    double t, x, y, z, qx, qy, qz, qw;
    pose >> t >> x >> y >> z >> qx >> qy >> qz >> qw;
    CHECK(t == Approx(frames[i].frame.time).margin(1e-6));
    CHECK(x == Approx(frames[i].frame.position.x).margin(1e-8));
    CHECK(z == Approx(frames[i].frame.position.z).margin(1e-8));
    CHECK(qw == Approx(frames[i].frame.orientation.w).margin(1e-8));
  }
  const std::string yaml = readFile(tum / "camera_info.yaml");
  CHECK(yaml.find("image_width: 40\n") != std::string::npos);
  CHECK(yaml.find("distortion_model: plumb_bob\n") != std::string::npos);
  CHECK(yaml.find("camera_matrix:\n  rows: 3\n  cols: 3\n  data: [") != std::string::npos);
  // Nothing but the folder is left beside it.
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()) == 1);

  // A folder with something in it is refused, and left as it was.
  CHECK_THROWS_WITH(writeDepthRecording(scene, camera, tum), Catch::Contains("not empty"));
  CHECK(std::filesystem::is_regular_file(tum / "depth.txt"));
  CHECK_THROWS_WITH(writeDepthRecording(scene, camera, dir / "x.mcap", {"bz2"}), Catch::Contains("compression"));
  CHECK_FALSE(std::filesystem::exists(dir / "x.mcap"));
}

TEST_CASE("depth recording: voxen::DepthSource reads each format back to the frames generated", "[depthcam]") {
  const SyntheticScene scene = SyntheticScene::generate(5);
  vt::TempDir dir("depth-roundtrip");
  DepthCameraConfig camera = tinyCamera(2);
  camera.rateHz = 4.0;  // stamps TUM's six decimals hold exactly
  std::vector<GeneratedDepthFrame> frames;
  const auto keep = [&](const GeneratedDepthFrame& f, const DepthRecordingSummary&) { frames.push_back(f); };
  writeDepthRecording(scene, camera, dir / "walk.mcap", {}, keep);
  std::vector<std::filesystem::path> recordings = {dir / "walk.mcap"};
  try {
    writeDepthRecording(scene, camera, dir / "walk.bag");
    recordings.push_back(dir / "walk.bag");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("no ROS 1 bag support") != std::string::npos);
  }
  for (const auto& path : recordings) {
    INFO(path.filename().string());
    const std::vector<DepthFrame> read = readBack(path);
    REQUIRE(read.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
      const DepthFrame& a = frames[i].frame;
      CHECK(read[i].intrinsics == a.intrinsics);
      CHECK(read[i].time == a.time);
      CHECK(read[i].depth.encoding == DepthEncoding::Unsigned16);
      CHECK(read[i].depth.depthScale == 0.001);
      CHECK(read[i].depth.depth16 == a.depth.depth16);
      CHECK(glm::length(read[i].position - a.position) < 1e-12);
      CHECK(std::abs(glm::dot(read[i].orientation, a.orientation)) > 1.0 - 1e-12);
    }
  }
  // The TUM folder: 5000 units per metre of the measured depth, poses to nine decimals.
  writeDepthRecording(scene, camera, dir / "tum");
  const std::vector<DepthFrame> read = readBack(dir / "tum");
  REQUIRE(read.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    const GeneratedDepthFrame& g = frames[i];
    CHECK(read[i].intrinsics.fx == Approx(g.frame.intrinsics.fx).epsilon(1e-15));
    CHECK(read[i].intrinsics.cx == g.frame.intrinsics.cx);
    CHECK(read[i].time == Approx(g.frame.time).margin(1e-9));
    REQUIRE(read[i].depth.depth16.size() == g.measuredDepth.size());
    CHECK(read[i].depth.depthScale == 1.0 / 5000.0);
    size_t differ = 0;
    for (size_t p = 0; p < g.measuredDepth.size(); ++p)
      differ += read[i].depth.depth16[p] != uint16_t(std::round(g.measuredDepth[p] * 5000.0));
    CHECK(differ == 0);
    CHECK(glm::length(read[i].position - g.frame.position) < 2e-9);
    CHECK(std::abs(glm::dot(read[i].orientation, g.frame.orientation)) > 1.0 - 1e-9);
  }
}
