// Depth images in (issue 40 item 1): small bags, MCAP files and TUM RGB-D folders written here,
// read back through voxen::DepthSource and checked exactly: 16UC1 and 32FC1 values, the
// compressedDepth PNG form (PNGs written with libpng here), CameraInfo, plumb_bob undistortion
// against a per-pixel reference, tf posing at the image's stamp, TUM lists and ground truth,
// `voxen inspect`'s depth topics, and the refusals with their messages.
#include <catch2/catch.hpp>

#include <png.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "support/test_helpers.hpp"
#include "input/test_recording.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/depth_decode.hpp"
#include "voxen/input/depth_source.hpp"
#include "voxen/input/image_messages.hpp"
#include "voxen/input/mcap_reader.hpp"
#include "voxen/input/recording_info.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/testdata/ros_bag_writer.hpp"

using Catch::Matchers::Contains;
namespace ros = voxen::ros;

namespace {

using DepthRecording = vt::TestRecording;

// A 16-bit grey PNG written by libpng's simplified API, independent of the reader's code.
std::vector<uint8_t> testPng16(const std::vector<uint16_t>& values, uint32_t width, uint32_t height) {
  return vt::testPng(values.data(), width, height, PNG_FORMAT_LINEAR_Y);
}

// MCAP files here have zstd chunks (the colour tests' have none).
void writeMcap(const std::filesystem::path& path, const DepthRecording& r) { vt::writeTestMcap(path, r, "zstd"); }
std::vector<std::filesystem::path> writeBoth(const std::filesystem::path& dir, const std::string& name, const DepthRecording& r) {
  return vt::writeTestRecordings(dir, name, r, "zstd");
}

constexpr int64_t kT0 = 10000000000000;  // 10,000 s
constexpr uint32_t kW = 8, kH = 6;

ros::TransformStamped transform(int64_t stampNs, const std::string& parent, const std::string& child, glm::dvec3 t,
                                glm::dquat q = {1, 0, 0, 0}) {
  ros::TransformStamped x;
  x.stampNs = stampNs, x.parentFrame = parent, x.childFrame = child, x.translation = t, x.rotation = q;
  return x;
}

// ROS's optical frame under a camera link: z forward, x right, y down (x, y, z, w = -0.5 0.5 -0.5 0.5).
const glm::dquat kOptical(0.5, -0.5, 0.5, -0.5);

// map -> odom static 10 m along x; odom -> camera_link moving from (0, 0, 0) at T0 to (2, 0, 0)
// turned 90 degrees about z at T0 + 1 s; camera_link -> camera_depth_optical_frame static.
void addTree(DepthRecording& r) {
  const double h = std::sqrt(0.5);
  r.tf("/tf_static", transform(kT0, "map", "odom", {10, 0, 0}));
  r.tf("/tf_static", transform(kT0, "camera_link", "camera_depth_optical_frame", {0.1, 0, 0.2}, kOptical));
  r.tf("/tf", transform(kT0, "odom", "camera_link", {0, 0, 0}));
  r.tf("/tf", transform(kT0 + 1000000000, "odom", "camera_link", {2, 0, 0}, glm::dquat(h, 0, 0, h)));
}

ros::CameraInfo pinhole(uint32_t w = kW, uint32_t h = kH) {
  ros::CameraInfo c;
  c.frameId = "camera_depth_optical_frame";
  c.width = w, c.height = h;
  c.distortionModel = "plumb_bob";
  c.d = {0, 0, 0, 0, 0};
  c.k = {10, 0, 3.5, 0, 11, 2.5, 0, 0, 1};
  c.r = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  c.p = {10, 0, 3.5, 0, 0, 11, 2.5, 0, 0, 0, 1, 0};
  return c;
}

std::vector<uint16_t> millimetres(uint32_t seed) {
  std::vector<uint16_t> v(kW * kH);
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = uint16_t(500 + 37 * i + seed);
  v[3] = 0;  // no measurement
  return v;
}

ros::Image image16(DepthRecording& r, int64_t stampNs, const std::vector<uint16_t>& values, bool bigEndian = false) {
  ros::Image m;
  m.stampNs = stampNs, m.frameId = "camera_depth_optical_frame", m.width = kW, m.height = kH, m.encoding = "16UC1";
  m.isBigEndian = bigEndian;
  m.step = kW * 2 + 4;  // padded rows
  std::vector<uint8_t> data(m.step * kH, 0xEE);
  for (uint32_t v = 0; v < kH; ++v)
    for (uint32_t u = 0; u < kW; ++u) {
      const uint16_t d = values[v * kW + u];
      uint8_t* p = data.data() + v * m.step + 2 * u;
      p[bigEndian ? 1 : 0] = uint8_t(d & 0xff), p[bigEndian ? 0 : 1] = uint8_t(d >> 8);
    }
  m.data = r.keep(std::move(data));
  return m;
}

std::vector<voxen::DepthFrame> readAll(const std::filesystem::path& path, const voxen::DepthSourceOptions& options = {},
                                       voxen::DepthSourceStats* stats = nullptr) {
  voxen::DepthSource source(path, options);
  std::vector<voxen::DepthFrame> frames;
  voxen::DepthFrame f;
  while (source.next(f)) frames.push_back(f);
  if (stats) *stats = source.stats();
  return frames;
}

void checkPose(const voxen::DepthFrame& f, glm::dvec3 position, glm::dquat orientation) {
  for (int i = 0; i < 3; ++i) CHECK(f.position[i] == Approx(position[i]).margin(1e-12));
  // q and -q are one rotation.
  const double sign = glm::dot(f.orientation, orientation) < 0 ? -1.0 : 1.0;
  for (int i = 0; i < 4; ++i) CHECK(sign * f.orientation[i] == Approx(orientation[i]).margin(1e-12));
}

}  // namespace

TEST_CASE("Depth source: 16UC1 and 32FC1 images read exactly and posed through tf at their stamps", "[depth][input][mcap][rosbag]") {
  vt::TempDir dir("depth-raw");
  DepthRecording r;
  addTree(r);
  r.cameraInfo("/camera/depth/camera_info", kT0, pinhole());
  const std::vector<uint16_t> a = millimetres(0), b = millimetres(5);
  r.image("/camera/depth/image_raw", kT0 + 250000000, image16(r, kT0 + 250000000, a));
  r.image("/camera/depth/image_raw", kT0 + 500000000, image16(r, kT0 + 500000000, b, true));
  r.image("/camera/depth/image_raw", kT0 + 2000000000, image16(r, kT0 + 2000000000, b));  // after the tf data
  for (const auto& path : writeBoth(dir.path(), "raw16", r)) {
    INFO(path.string());
    voxen::DepthSourceStats stats;
    const auto frames = readAll(path, {}, &stats);
    REQUIRE(frames.size() == 2);
    CHECK(stats.skippedOutsidePoses == 1);
    CHECK(frames[0].depth.encoding == voxen::DepthEncoding::Unsigned16);
    CHECK(frames[0].depth.depthScale == 0.001);
    CHECK(frames[0].depth.depth16 == a);
    CHECK(frames[1].depth.depth16 == b);  // big-endian rows
    CHECK(frames[0].time == ros::stampSeconds(kT0 + 250000000));
    CHECK(frames[0].intrinsics == voxen::CameraIntrinsics{kW, kH, 10, 11, 3.5, 2.5});
    // At T0 + 0.25 s: odom -> camera_link is (0.5, 0, 0), turned 22.5 degrees about z (slerp).
    const glm::dquat turn = glm::angleAxis(glm::radians(22.5), glm::dvec3(0, 0, 1));
    checkPose(frames[0], glm::dvec3(10.5, 0, 0) + turn * glm::dvec3(0.1, 0, 0.2), turn * kOptical);
    const glm::dquat turn2 = glm::angleAxis(glm::radians(45.0), glm::dvec3(0, 0, 1));
    checkPose(frames[1], glm::dvec3(11, 0, 0) + turn2 * glm::dvec3(0.1, 0, 0.2), turn2 * kOptical);
  }

  // 32FC1 metres; the maximum range makes deeper pixels NaN.
  DepthRecording f;
  addTree(f);
  f.cameraInfo("/cam/camera_info", kT0, pinhole());
  std::vector<float> metres(kW * kH);
  for (size_t i = 0; i < metres.size(); ++i) metres[i] = 0.25f + 0.1f * float(i);
  metres[7] = std::numeric_limits<float>::quiet_NaN();
  ros::Image m;
  m.stampNs = kT0 + 100000000, m.frameId = "camera_depth_optical_frame", m.width = kW, m.height = kH, m.encoding = "32FC1";
  m.step = kW * 4;
  std::vector<uint8_t> data(m.step * kH);
  std::memcpy(data.data(), metres.data(), data.size());
  m.data = f.keep(std::move(data));
  f.image("/cam/image", m.stampNs, m);
  for (const auto& path : writeBoth(dir.path(), "raw32", f)) {
    INFO(path.string());
    const auto frames = readAll(path, {.maxRange = 4.0});
    REQUIRE(frames.size() == 1);
    const voxen::DepthImage& d = frames[0].depth;
    REQUIRE(d.encoding == voxen::DepthEncoding::Float32);
    for (size_t i = 0; i < metres.size(); ++i) {
      INFO(i);
      if (std::isnan(metres[i]) || metres[i] > 4.0f) CHECK(std::isnan(d.depth32[i]));
      else CHECK(d.depth32[i] == metres[i]);
    }
  }
}

TEST_CASE("Depth source: compressedDepth PNGs (16UC1 and 32FC1 inverse depth) decode as the transport's decoder", "[depth][input][mcap]") {
  vt::TempDir dir("depth-compressed");
  const auto header = [](int32_t format, float a, float b) {
    std::vector<uint8_t> h(12);
    std::memcpy(h.data(), &format, 4), std::memcpy(h.data() + 4, &a, 4), std::memcpy(h.data() + 8, &b, 4);
    return h;
  };
  DepthRecording r;
  addTree(r);
  r.cameraInfo("/camera/depth/camera_info", kT0, pinhole());
  const std::vector<uint16_t> mm = millimetres(9);
  std::vector<uint8_t> payload = header(0, 0, 0);
  const std::vector<uint8_t> png = testPng16(mm, kW, kH);
  payload.insert(payload.end(), png.begin(), png.end());
  ros::CompressedImage c;
  c.stampNs = kT0 + 300000000, c.frameId = "camera_depth_optical_frame", c.format = "16UC1; compressedDepth png";
  c.data = r.keep(payload);
  r.compressed("/camera/depth/image_raw/compressedDepth", c.stampNs, c);
  const auto paths = writeBoth(dir.path(), "c16", r);
  for (const auto& path : paths) {
    INFO(path.string());
    const auto frames = readAll(path);
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].depth.depth16 == mm);
    CHECK(frames[0].depth.depthScale == 0.001);
  }

  // 32FC1: quantised inverse depth, A = z0 (z0 + 1), B = 1 - A / max with the transport's defaults.
  const float A = 100.0f * 101.0f, B = 1.0f - A / 10.0f;
  std::vector<uint16_t> q(kW * kH);
  for (size_t i = 0; i < q.size(); ++i) q[i] = uint16_t(1500 + 211 * i);
  q[2] = 0;  // beyond the transport's maximum: no measurement
  DepthRecording f;
  addTree(f);
  f.cameraInfo("/camera/depth/camera_info", kT0, pinhole());
  std::vector<uint8_t> payload32 = header(0, A, B);
  const std::vector<uint8_t> png32 = testPng16(q, kW, kH);
  payload32.insert(payload32.end(), png32.begin(), png32.end());
  c.format = "32FC1; compressedDepth";
  c.data = f.keep(payload32);
  f.compressed("/camera/depth/image_raw/compressedDepth", c.stampNs, c);
  for (const auto& path : writeBoth(dir.path(), "c32", f)) {
    INFO(path.string());
    const auto frames = readAll(path);
    REQUIRE(frames.size() == 1);
    const voxen::DepthImage& d = frames[0].depth;
    REQUIRE(d.encoding == voxen::DepthEncoding::Float32);
    for (size_t i = 0; i < q.size(); ++i) {
      INFO(i);
      if (q[i] == 0) CHECK(std::isnan(d.depth32[i]));
      else CHECK(d.depth32[i] == A / (float(q[i]) - B));
    }
  }

  // The library's encoder round-trips through its decoder, and RVL is refused by name.
  const std::vector<uint8_t> ours = voxen::detail::encodePng16(mm, kW, kH);
  uint32_t w = 0, h = 0;
  CHECK(voxen::detail::decodePng16(ours, "x", w, h) == mm);
  CHECK((w == kW && h == kH));
  ros::CompressedImage rvl;
  rvl.format = "16UC1; compressedDepth rvl";
  rvl.data = payload;
  CHECK_THAT(vt::errorOf([&] { voxen::detail::decodeCompressedDepth(rvl, "d.bag: topic /x, message 3"); }),
             Contains("d.bag: topic /x, message 3: format '16UC1; compressedDepth rvl': compressedDepth's RVL"));
}

TEST_CASE("Depth source: CameraInfo round-trips, and plumb_bob undistorts as a per-pixel reference does", "[depth][input]") {
  ros::CameraInfo c = pinhole(24, 18);
  c.d = {-0.2, 0.05, 0.001, -0.002, 0.01};
  c.k = {20, 0, 11.7, 0, 22, 8.3, 0, 0, 1};
  c.p = {18, 0, 12, 0, 0, 19, 9, 0, 0, 0, 1, 0};
  c.binningX = 1, c.roi = {0, 0, 18, 24, false};
  for (const auto e : {ros::MessageEncoding::Ros1, ros::MessageEncoding::Cdr}) {
    const ros::CameraInfo back = ros::decodeCameraInfo(ros::encodeCameraInfo(c, e), e, "x");
    CHECK(back.k == c.k);
    CHECK(back.p == c.p);
    CHECK(back.d == c.d);
    CHECK(back.distortionModel == "plumb_bob");
    CHECK(back.roi == c.roi);
    CHECK(back.frameId == c.frameId);
  }

  const voxen::detail::DepthCamera camera = voxen::detail::makeDepthCamera(c, "cam");
  CHECK(camera.intrinsics == voxen::CameraIntrinsics{24, 18, 18, 19, 12, 9});  // P's camera, as image_proc
  voxen::DepthImage image;
  image.width = 24, image.height = 18;
  image.depth16.resize(24 * 18);
  for (uint32_t i = 0; i < image.depth16.size(); ++i) image.depth16[i] = uint16_t(i + 1);  // each pixel its own value
  voxen::DepthImage out = image;
  voxen::detail::applyDepthCamera(camera, out, "cam");
  size_t outside = 0;
  for (uint32_t v = 0; v < 18; ++v) {
    for (uint32_t u = 0; u < 24; ++u) {
      const double x = (u - 12.0) / 18.0, y = (v - 9.0) / 19.0;
      const double r2 = x * x + y * y;
      const double radial = 1.0 + -0.2 * r2 + 0.05 * r2 * r2 + 0.01 * r2 * r2 * r2;
      const double xd = x * radial + 2.0 * 0.001 * x * y + -0.002 * (r2 + 2.0 * x * x);
      const double yd = y * radial + 0.001 * (r2 + 2.0 * y * y) + 2.0 * -0.002 * x * y;
      const double su = std::round(20.0 * xd + 11.7), sv = std::round(22.0 * yd + 8.3);
      const bool inside = su >= 0 && sv >= 0 && su < 24 && sv < 18;
      outside += !inside;
      INFO(u << ", " << v);
      CHECK(out.depth16[v * 24 + u] == (inside ? uint16_t(sv * 24 + su + 1) : 0));
    }
  }
  CHECK(outside < 24 * 18 / 4);
  // Deterministic: the same CameraInfo gives the same map.
  CHECK(voxen::detail::makeDepthCamera(c, "cam").sourcePixel == camera.sourcePixel);
  // No distortion and P = K: no map, the image unchanged.
  CHECK_FALSE(voxen::detail::makeDepthCamera(pinhole(), "cam").remaps());
  // Other models: refused by name unless every coefficient is 0.
  ros::CameraInfo rational = pinhole();
  rational.distortionModel = "rational_polynomial";
  rational.d = {0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_FALSE(voxen::detail::makeDepthCamera(rational, "cam").remaps());
  rational.d[5] = 0.01;
  CHECK_THAT(vt::errorOf([&] { voxen::detail::makeDepthCamera(rational, "d.bag: topic /camera/depth/camera_info"); }),
             Contains("d.bag: topic /camera/depth/camera_info: distortion model 'rational_polynomial'") &&
                 Contains("is not read: Voxen undistorts plumb_bob (k1 k2 p1 p2 k3) only"));
}

TEST_CASE("Depth source: TUM RGB-D folders, their lists, ground truth and camera file", "[depth][input]") {
  vt::TempDir dir("depth-tum");
  const auto folder = dir.path() / "rgbd_dataset_freiburg1_xyz";
  std::filesystem::create_directories(folder / "depth");
  const auto write = [](const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; };
  const std::vector<uint16_t> a = millimetres(1), b = millimetres(2);
  const auto png = [](const std::filesystem::path& p, const std::vector<uint8_t>& bytes) {
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  };
  png(folder / "depth/1305031102.160407.png", testPng16(a, kW, kH));
  png(folder / "depth/1305031102.194330.png", testPng16(b, kW, kH));
  write(folder / "depth.txt",
        "# depth maps\n# file: 'rgbd_dataset_freiburg1_xyz.bag'\n# timestamp filename\n"
        "1305031102.160407 depth/1305031102.160407.png\n1305031102.194330 depth/1305031102.194330.png\n"
        "1305031109.0 depth/missing.png\n");
  write(folder / "groundtruth.txt",
        "# ground truth trajectory\n# timestamp tx ty tz qx qy qz qw\n"
        "1305031102.1 1.0 2.0 3.0 0 0 0 1\n1305031102.2 2.0 2.0 3.0 0 0 0.7071067811865476 0.7071067811865476\n");
  const auto yaml = dir.path() / "camera.yaml";
  write(yaml,
        "image_width: 8\nimage_height: 6\ncamera_name: depth\ncamera_matrix:\n  rows: 3\n  cols: 3\n"
        "  data: [10, 0, 3.5,\n         0, 11, 2.5, 0, 0, 1]\ndistortion_model: plumb_bob\n"
        "distortion_coefficients: {rows: 1, cols: 5, data: [0, 0, 0, 0, 0]}\n"
        "rectification_matrix:\n  rows: 3\n  cols: 3\n  data: [1, 0, 0, 0, 1, 0, 0, 0, 1]\n"
        "projection_matrix:\n  rows: 3\n  cols: 4\n  data: [10, 0, 3.5, 0, 0, 11, 2.5, 0, 0, 0, 1, 0]\n");
  voxen::DepthSource source(folder, {.cameraInfoFile = yaml});
  CHECK(source.info().format == "TUM RGB-D folder");
  CHECK(source.info().images == 3);
  CHECK(source.info().intrinsics == voxen::CameraIntrinsics{kW, kH, 10, 11, 3.5, 2.5});
  std::vector<voxen::DepthFrame> frames;
  voxen::DepthFrame f;
  while (source.next(f)) frames.push_back(f);
  REQUIRE(frames.size() == 2);
  CHECK(source.stats().skippedOutsidePoses == 1);  // 1305031109 is past the ground truth: never read
  CHECK(frames[0].depth.depth16 == a);
  CHECK(frames[1].depth.depth16 == b);
  CHECK(frames[0].depth.depthScale == 1.0 / 5000.0);
  CHECK(frames[0].time == 1305031102.160407);
  const double w0 = (1305031102.160407 - 1305031102.1) / (1305031102.2 - 1305031102.1);
  const glm::dquat q1(0.7071067811865476, 0, 0, 0.7071067811865476);
  checkPose(frames[0], {1.0 + w0, 2, 3}, glm::slerp(glm::dquat(1, 0, 0, 0), q1, w0));

  // What inspect says of the folder.
  const voxen::RecordingInfo info = voxen::inspectRecording(folder);
  CHECK(info.format == voxen::InputFormat::TumRgbd);
  REQUIRE(info.depthTopics.size() == 1);
  CHECK(info.depthTopics[0].messages == 3);
  CHECK((info.depthTopics[0].width == kW && info.depthTopics[0].height == kH));

  // Refusals: no camera file, no depth.txt, a bad list line.
  CHECK_THAT(vt::errorOf([&] { voxen::DepthSource s(folder); }), Contains("carries no camera calibration"));
  std::filesystem::create_directories(dir.path() / "bare/depth");
  CHECK_THAT(vt::errorOf([&] { voxen::DepthSource s(dir.path() / "bare", {.cameraInfoFile = yaml}); }),
             Contains("bare: has no depth.txt"));
  write(folder / "depth.txt", "1305031102.160407\n");
  CHECK_THAT(vt::errorOf([&] { voxen::DepthSource s(folder, {.cameraInfoFile = yaml}); }),
             Contains("depth.txt:1: '1305031102.160407' is not 'timestamp filename'"));
}

TEST_CASE("Depth source: topics chosen, inspect's depth topics, and what is refused with its message", "[depth][input][mcap]") {
  vt::TempDir dir("depth-refusals");
  DepthRecording r;
  addTree(r);
  r.cameraInfo("/camera/depth/camera_info", kT0, pinhole());
  r.image("/camera/depth/image_raw", kT0 + 100000000, image16(r, kT0 + 100000000, millimetres(0)));
  ros::Image colour = image16(r, kT0 + 100000000, millimetres(0));
  colour.encoding = "rgb8", colour.step = kW * 3;
  colour.data = colour.data.first(kW * 3 * kH);
  r.image("/camera/color/image_raw", kT0 + 100000000, colour);
  ros::Image bgr = colour;
  bgr.encoding = "bgr8";
  r.image("/camera/depth/image_raw", kT0 + 200000000, bgr);  // message 1 of the depth topic
  const auto path = dir.path() / "mixed.mcap";
  writeMcap(path, r);

  // The only depth topic is found; its second message is a colour image.
  voxen::DepthSource source(path);
  CHECK(source.info().topic == "/camera/depth/image_raw");
  CHECK(source.info().cameraInfo == "/camera/depth/camera_info");
  voxen::DepthFrame f;
  CHECK(source.next(f));
  CHECK_THAT(vt::errorOf([&] { source.next(f); }),
             Contains("mixed.mcap: topic /camera/depth/image_raw, message 1 of 2: encoding 'bgr8' is not a depth encoding (16UC1, 32FC1)"));
  // The colour topic named as the depth topic.
  CHECK_THAT(vt::errorOf([&] { voxen::DepthSource s(path, {.depthTopic = "/camera/color/image_raw"}); }),
             Contains("topic /camera/color/image_raw, message 0 of 1: encoding 'rgb8' is not a depth encoding (16UC1, 32FC1)"));
  CHECK_THAT(vt::errorOf([&] { voxen::DepthSource s(path, {.depthTopic = "/nope"}); }),
             Contains("/nope: no such topic") && Contains("its depth image topics: /camera/depth/image_raw (16UC1)"));

  const voxen::RecordingInfo info = voxen::inspectRecording(path);
  REQUIRE(info.depthTopics.size() == 1);
  CHECK(info.depthTopics[0].name == "/camera/depth/image_raw");
  CHECK(info.depthTopics[0].encoding == "16UC1");
  CHECK((info.depthTopics[0].width == kW && info.depthTopics[0].height == kH && info.depthTopics[0].messages == 2));
  CHECK_THAT(info.depthTopics[0].cameraInfo, Contains("/camera/depth/camera_info: 8 x 6, K fx 10 fy 11 cx 3.5 cy 2.5"));

  // No camera_info beside the images.
  DepthRecording bare;
  addTree(bare);
  bare.image("/camera/depth/image_raw", kT0 + 100000000, image16(bare, kT0 + 100000000, millimetres(0)));
  writeMcap(dir.path() / "bare.mcap", bare);
  CHECK_THAT(vt::errorOf([&] { voxen::DepthSource s(dir.path() / "bare.mcap"); }),
             Contains("no camera_info for /camera/depth/image_raw: its sibling /camera/depth/camera_info is not in the "
                      "recording; its CameraInfo topics: none"));

  // An unknown distortion model with coefficients.
  DepthRecording fisheye;
  addTree(fisheye);
  ros::CameraInfo c = pinhole();
  c.distortionModel = "equidistant", c.d = {0.1, 0.01, 0, 0};
  fisheye.cameraInfo("/camera/depth/camera_info", kT0, c);
  fisheye.image("/camera/depth/image_raw", kT0 + 100000000, image16(fisheye, kT0 + 100000000, millimetres(0)));
  writeMcap(dir.path() / "fisheye.mcap", fisheye);
  CHECK_THAT(vt::errorOf([&] { voxen::DepthSource s(dir.path() / "fisheye.mcap"); }),
             Contains("fisheye.mcap: topic /camera/depth/camera_info, message 0: distortion model 'equidistant'"));
}
