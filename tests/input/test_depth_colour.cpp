// Colour for depth frames (issue 40: "optional colour from an RGB topic or the TUM rgb/ folder"):
// voxen::DepthSource with DepthSourceOptions::withColour on generated recordings (bag, MCAP,
// TUM folder: the generator's colour images back pixel for pixel), on small recordings written
// here (rgb8, bgr8, rgba8, bgra8, mono8 and PNG CompressedImages; PNGs written with libpng's
// simplified API, independent of the reader's code), the nearest-stamp association and its
// tolerance, the topic choice, the undistortion map applied to colour, inspect's colour
// topics, and the refusals with their messages.
#include <catch2/catch.hpp>

#include <png.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "input/test_recording.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/colour_decode.hpp"
#include "voxen/input/depth_decode.hpp"
#include "voxen/input/depth_source.hpp"
#include "voxen/input/image_messages.hpp"
#include "voxen/input/mcap_reader.hpp"
#include "voxen/input/recording_info.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/testdata/depth_camera.hpp"
#include "voxen/testdata/depth_recording.hpp"
#include "voxen/testdata/ros_bag_writer.hpp"
#include "voxen/testdata/scene_colours.hpp"
#include "voxen/testdata/truth_mesh.hpp"

using Catch::Matchers::Contains;
namespace ros = voxen::ros;

namespace {

constexpr int64_t kT0 = 20000000000000;  // 20,000 s
constexpr int64_t kMs = 1000000;
constexpr uint32_t kW = 6, kH = 4;
const std::string kDepthTopic = "/camera/depth/image_rect_raw";
const std::string kColourTopic = "/camera/color/image_raw";

// A recording (input/test_recording.hpp) whose images and camera_info are written at their
// header stamps, the camera_info on the depth camera's topic.
struct Recording : vt::TestRecording {
  void image(const std::string& topic, const ros::Image& m) { TestRecording::image(topic, m.stampNs, m); }
  void compressed(const std::string& topic, const ros::CompressedImage& m) { TestRecording::compressed(topic, m.stampNs, m); }
  void cameraInfo(const ros::CameraInfo& m) { TestRecording::cameraInfo("/camera/depth/camera_info", m.stampNs, m); }
};

std::vector<std::filesystem::path> writeBoth(const std::filesystem::path& dir, const std::string& name, const Recording& r) {
  return vt::writeTestRecordings(dir, name, r);
}

ros::CameraInfo pinhole(std::vector<double> d = {0, 0, 0, 0, 0}) {
  ros::CameraInfo c;
  c.stampNs = kT0;
  c.frameId = "camera_depth_optical_frame";
  c.width = kW, c.height = kH;
  c.distortionModel = "plumb_bob";
  c.d = std::move(d);
  c.k = {5, 0, 2.5, 0, 5, 1.5, 0, 0, 1};
  c.r = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  c.p = {5, 0, 2.5, 0, 0, 5, 1.5, 0, 0, 0, 1, 0};
  return c;
}

ros::TransformStamped link(int64_t stampNs, const std::string& parent, const std::string& child) {
  ros::TransformStamped t;
  t.stampNs = stampNs, t.parentFrame = parent, t.childFrame = child;
  return t;
}

// A still camera (map -> camera_depth_optical_frame, identity from T0 to T0 + 10 s), its
// camera_info, and 16UC1 depth images at `stamps` whose pixels are 1000 + the pixel's index.
Recording depthRecording(const std::vector<int64_t>& stamps, ros::CameraInfo camera = pinhole()) {
  Recording r;
  r.tf("/tf", link(kT0, "map", "camera_depth_optical_frame"));
  r.tf("/tf", link(kT0 + 10000 * kMs, "map", "camera_depth_optical_frame"));
  r.cameraInfo(camera);
  for (const int64_t stamp : stamps) {
    ros::Image m;
    m.stampNs = stamp, m.frameId = "camera_depth_optical_frame", m.width = kW, m.height = kH, m.encoding = "16UC1";
    m.step = kW * 2;
    std::vector<uint8_t> data(m.step * kH);
    for (uint32_t i = 0; i < kW * kH; ++i) data[2 * i] = uint8_t((1000 + i) & 0xff), data[2 * i + 1] = uint8_t((1000 + i) >> 8);
    m.data = r.keep(std::move(data));
    r.image(kDepthTopic, m);
  }
  return r;
}

// The expected colour of pixel i of colour image `tag`: distinct per pixel and per image.
std::array<uint8_t, 3> rgbOf(uint32_t i, uint8_t tag) { return {uint8_t(10 * i), uint8_t(200 - 3 * i), tag}; }

// A raw colour image of an encoding, pixels rgbOf(i, tag) (grey for mono8: the red value),
// with padded rows.
ros::Image colourImage(Recording& r, int64_t stampNs, const std::string& encoding, uint8_t tag, uint32_t w = kW,
                       uint32_t h = kH) {
  ros::Image m;
  m.stampNs = stampNs, m.frameId = "camera_color_optical_frame", m.width = w, m.height = h, m.encoding = encoding;
  const size_t bytes = ros::imageEncodingPixelBytes(encoding) ? ros::imageEncodingPixelBytes(encoding) : 2;
  m.step = uint32_t(w * bytes + 3);
  std::vector<uint8_t> data(size_t(m.step) * h, 0xEE);
  for (uint32_t v = 0; v < h; ++v)
    for (uint32_t u = 0; u < w; ++u) {
      const uint32_t i = v * w + u;
      const auto c = rgbOf(i, tag);
      uint8_t* p = data.data() + size_t(v) * m.step + bytes * u;
      if (encoding == "mono8") p[0] = c[0];
      else if (encoding == "rgb8" || encoding == "rgba8") p[0] = c[0], p[1] = c[1], p[2] = c[2];
      else if (encoding == "bgr8" || encoding == "bgra8") p[0] = c[2], p[1] = c[1], p[2] = c[0];
      if (bytes == 4) p[3] = 0x7F;  // alpha, dropped
    }
  m.data = r.keep(std::move(data));
  return m;
}

// An RGB (or grey, or RGBA) PNG written by libpng's simplified API.
std::vector<uint8_t> testPng(const std::vector<uint8_t>& pixels, uint32_t w, uint32_t h, uint32_t format) {
  return vt::testPng(pixels.data(), w, h, format);
}

std::vector<uint8_t> expectedRgb(uint8_t tag, bool mono = false) {
  std::vector<uint8_t> rgb;
  for (uint32_t i = 0; i < kW * kH; ++i) {
    const auto c = rgbOf(i, tag);
    if (mono) rgb.insert(rgb.end(), {c[0], c[0], c[0]});
    else rgb.insert(rgb.end(), c.begin(), c.end());
  }
  return rgb;
}

std::vector<voxen::DepthFrame> readAll(const std::filesystem::path& path, const voxen::DepthSourceOptions& options,
                                       voxen::DepthSourceStats* stats = nullptr) {
  voxen::DepthSource source(path, options);
  std::vector<voxen::DepthFrame> frames;
  voxen::DepthFrame f;
  while (source.next(f)) frames.push_back(f);
  if (stats) *stats = source.stats();
  return frames;
}

voxen::DepthSourceOptions withColour() {
  voxen::DepthSourceOptions o;
  o.withColour = true;
  return o;
}

void writeText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace

TEST_CASE("Depth colour: generated recordings (MCAP, bag, TUM folder) give back the generator's colour images", "[depth][colour][input][mcap]") {
  vt::TempDir dir("colour-generated");
  const voxen::SyntheticScene scene = voxen::SyntheticScene::generate(1);
  voxen::DepthCameraConfig camera;
  camera.width = 40, camera.height = 30, camera.frames = 3, camera.rateHz = 2.0, camera.threads = 1, camera.colour = true;
  std::vector<voxen::GeneratedDepthFrame> generated;
  voxen::generateDepthFrames(scene, camera, [&](const voxen::GeneratedDepthFrame& f) { generated.push_back(f); });
  REQUIRE(generated.size() == 3);
  // Every measured pixel is coloured, black only where nothing was measured, and the frames show
  // several surfaces.
  std::map<std::array<uint8_t, 3>, size_t> seen;
  for (const auto& g : generated) {
    REQUIRE(g.frame.colour);
    REQUIRE(g.frame.colour->rgb.size() == size_t(40) * 30 * 3);
    for (size_t i = 0; i < g.frame.depth.depth16.size(); ++i) {
      const std::array<uint8_t, 3> c{g.frame.colour->rgb[3 * i], g.frame.colour->rgb[3 * i + 1], g.frame.colour->rgb[3 * i + 2]};
      CHECK((c == std::array<uint8_t, 3>{0, 0, 0}) == (g.trueDepth[i] == 0.0));
      ++seen[c];
    }
  }
  CHECK(seen.size() >= 4);

  std::vector<std::filesystem::path> outputs{dir.path() / "walk.mcap", dir.path() / "walk"};
#if VOXEN_HAVE_ROSBAG
  outputs.push_back(dir.path() / "walk.bag");
#endif
  for (const auto& path : outputs) {
    INFO(path.string());
    const voxen::DepthRecordingSummary summary = voxen::writeDepthRecording(scene, camera, path);
    CHECK(summary.colourImages == 3);
    voxen::DepthSource source(path, withColour());
    const bool tum = path.extension().empty();
    CHECK(source.info().colourTopic == (tum ? "rgb.txt" : kColourTopic));
    CHECK(source.info().colourEncoding == (tum ? "8-bit PNG" : "rgb8"));
    CHECK(source.info().colourImages == 3);
    voxen::DepthFrame f;
    for (const voxen::GeneratedDepthFrame& want : generated) {
      REQUIRE(source.next(f));
      REQUIRE(f.colour);
      CHECK(f.colour->width == 40);
      CHECK(f.colour->height == 30);
      CHECK(f.colour->rgb == want.frame.colour->rgb);
    }
    CHECK_FALSE(source.next(f));
    CHECK(source.stats().framesWithColour == 3);
    CHECK(source.stats().framesWithoutColour == 0);

    // Not asked for: no colour, and the colour topic is not looked at.
    voxen::DepthSource plain(path);
    CHECK(plain.info().colourTopic.empty());
    REQUIRE(plain.next(f));
    CHECK_FALSE(f.colour);
    CHECK(plain.stats().framesWithColour + plain.stats().framesWithoutColour == 0);
  }

  // Without --color the generator writes no colour topic and no rgb.txt.
  camera.colour = false;
  voxen::writeDepthRecording(scene, camera, dir.path() / "plain.mcap");
  voxen::writeDepthRecording(scene, camera, dir.path() / "plain");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "plain" / "rgb.txt"));
  CHECK_THROWS_WITH(voxen::DepthSource(dir.path() / "plain.mcap", withColour()), Contains("holds no colour image topic"));
  CHECK_THROWS_WITH(voxen::DepthSource(dir.path() / "plain", withColour()), Contains("has no rgb.txt"));
}

TEST_CASE("Depth colour: the scene's surfaces have their own colours and a checker", "[depth][colour][synthetic]") {
  const voxen::SyntheticScene scene = voxen::SyntheticScene::generate(1);
  // Straight down from the corridor onto the floor, straight up onto the ceiling.
  const glm::dvec3 corridor(scene.pathPoints[0], 1.0);
  const auto down = scene.raycastHit(corridor, {0, 0, -1}, 10.0), up = scene.raycastHit(corridor, {0, 0, 1}, 10.0);
  REQUIRE(down);
  REQUIRE(up);
  CHECK(down->distance == Approx(1.0));
  CHECK(voxen::surfaceOf(scene, *down) == voxen::SceneSurface::Floor);
  CHECK(voxen::surfaceOf(scene, *up) == voxen::SceneSurface::Ceiling);
  CHECK(scene.raycast(corridor, {0, 0, -1}, 10.0) == down->distance);
  // Every surface a different base colour; the checker darkens alternate cells.
  std::map<std::array<uint8_t, 3>, int> bases;
  for (int s = 0; s < voxen::kSceneSurfaces; ++s) ++bases[voxen::surfaceBaseColour(voxen::SceneSurface(s))];
  CHECK(bases.size() == size_t(voxen::kSceneSurfaces));
  const auto floor = voxen::SceneSurface::Floor;
  CHECK(voxen::surfaceColour(floor, {0.25, 0.25, -1e-6}) != voxen::surfaceColour(floor, {0.75, 0.25, -1e-6}));
  CHECK(voxen::surfaceColour(floor, {0.25, 0.25, -1e-6}) == voxen::surfaceColour(floor, {0.75, 0.75, -1e-6}));
  CHECK(voxen::surfaceColour(floor, {-0.25, 0.25, -1e-6}) != voxen::surfaceColour(floor, {0.25, 0.25, -1e-6}));
  // The truth mesh's vertex colours: one per vertex, each primitive in its surface's colour.
  const voxen::TriangleMesh plain = voxen::sceneTruthMesh(scene, 0.01), coloured = voxen::sceneTruthMesh(scene, 0.01, true);
  CHECK(plain.colours.empty());
  REQUIRE(coloured.colours.size() == coloured.vertices.size());
  CHECK(coloured.vertices == plain.vertices);
  CHECK(coloured.colours.front() == voxen::surfaceBaseColour(voxen::surfaceOf(scene, {0.0, voxen::SyntheticScene::Hit::Kind::Box, 0})));
  if (!scene.spheres.empty()) CHECK(coloured.colours.back() == voxen::surfaceBaseColour(voxen::SceneSurface::Ball));
}

TEST_CASE("Depth colour: rgb8, bgr8, rgba8, bgra8, mono8 and PNG CompressedImages to RGB", "[depth][colour][input][mcap]") {
  vt::TempDir dir("colour-encodings");
  for (const std::string encoding : {"rgb8", "bgr8", "rgba8", "bgra8", "mono8"}) {
    INFO(encoding);
    Recording r = depthRecording({kT0 + 100 * kMs});
    r.image(kColourTopic, colourImage(r, kT0 + 100 * kMs, encoding, 7));
    voxen::DepthSourceOptions options = withColour();
    if (encoding == "mono8") options.colourTopic = kColourTopic;  // never chosen by itself
    for (const auto& path : writeBoth(dir.path(), encoding, r)) {
      INFO(path.string());
      voxen::DepthSourceStats stats;
      const auto frames = readAll(path, options, &stats);
      REQUIRE(frames.size() == 1);
      REQUIRE(frames[0].colour);
      CHECK(frames[0].colour->rgb == expectedRgb(7, encoding == "mono8"));
      CHECK(stats.framesWithColour == 1);
    }
  }
  // PNG CompressedImages, as image_transport's compressed plugin writes them: RGB, grey, RGBA.
  struct Case {
    const char* format;
    uint32_t pngFormat;
  };
  for (const Case c : {Case{"bgr8; png compressed bgr8", PNG_FORMAT_RGB}, Case{"mono8; png compressed mono8", PNG_FORMAT_GRAY},
                       Case{"png", PNG_FORMAT_RGBA}}) {
    INFO(c.format);
    const bool grey = c.pngFormat == PNG_FORMAT_GRAY, alpha = c.pngFormat == PNG_FORMAT_RGBA;
    std::vector<uint8_t> pixels;
    for (uint32_t i = 0; i < kW * kH; ++i) {
      const auto rgb = rgbOf(i, 9);
      if (grey) pixels.push_back(rgb[0]);
      else pixels.insert(pixels.end(), rgb.begin(), rgb.end());
      if (alpha) pixels.push_back(0x80);
    }
    Recording r = depthRecording({kT0 + 100 * kMs});
    ros::CompressedImage m;
    m.stampNs = kT0 + 100 * kMs, m.frameId = "camera_color_optical_frame", m.format = c.format;
    m.data = r.keep(testPng(pixels, kW, kH, c.pngFormat));
    r.compressed(kColourTopic + "/compressed", m);
    for (const auto& path : writeBoth(dir.path(), grey ? "png-grey" : alpha ? "png-rgba" : "png-rgb", r)) {
      INFO(path.string());
      const auto frames = readAll(path, withColour());
      REQUIRE(frames.size() == 1);
      REQUIRE(frames[0].colour);
      CHECK(frames[0].colour->rgb == expectedRgb(9, grey));
    }
  }
  // The internal codec: its own PNGs back as written.
  const std::vector<uint8_t> rgb = expectedRgb(3);
  uint32_t w = 0, h = 0;
  CHECK(voxen::detail::decodePngRgb8(voxen::detail::encodePngRgb8(rgb, kW, kH), "test", w, h) == rgb);
  CHECK((w == kW && h == kH));
  // Cut short, both codecs (colour and 16-bit depth, sharing libpng's I/O and error callbacks,
  // depth/png_io.hpp) refuse it with libpng's reason after the jump, not a crash.
  std::vector<uint8_t> cut = voxen::detail::encodePngRgb8(rgb, kW, kH);
  cut.resize(cut.size() / 2);
  CHECK_THROWS_WITH(voxen::detail::decodePngRgb8(cut, "cut.png", w, h), Contains("cut.png: the PNG does not decode: the PNG ends early"));
  const std::vector<uint16_t> depth(size_t(kW) * kH, 1234);
  cut = voxen::detail::encodePng16(depth, kW, kH);
  CHECK(voxen::detail::decodePng16(cut, "depth.png", w, h) == depth);
  cut.resize(cut.size() / 2);
  CHECK_THROWS_WITH(voxen::detail::decodePng16(cut, "depth.png", w, h), Contains("depth.png: the PNG does not decode: the PNG ends early"));
}

TEST_CASE("Depth colour: each depth frame takes the nearest colour stamp within the tolerance", "[depth][colour][input][mcap]") {
  using voxen::detail::nearestStamp;
  const std::vector<int64_t> stamps{100, 90, 130, 110};
  CHECK(nearestStamp(stamps, 100, 0) == 0u);
  CHECK(nearestStamp(stamps, 105, 20) == 0u);   // a tie between 100 and 110: the earlier stamp
  CHECK(nearestStamp(stamps, 121, 20) == 2u);   // 130 is 9 away, 110 is 11
  CHECK(nearestStamp(stamps, 151, 20) == std::nullopt);
  CHECK(nearestStamp(stamps, 150, 20) == 2u);   // the tolerance is inclusive
  CHECK(nearestStamp({}, 0, 100) == std::nullopt);

  vt::TempDir dir("colour-stamps");
  // Depth at 0, 100, 200, 300, 400 ms; colour at 5 (tag 1), 90 (2), 115 (3), 230 (4), 300 (5),
  // written out of stamp order around 90/115 as a recorder may.
  Recording r = depthRecording({kT0, kT0 + 100 * kMs, kT0 + 200 * kMs, kT0 + 300 * kMs, kT0 + 400 * kMs});
  const std::pair<int64_t, uint8_t> colours[] = {{5, 1}, {115, 3}, {90, 2}, {230, 4}, {300, 5}};
  for (const auto& [ms, tag] : colours) r.image(kColourTopic, colourImage(r, kT0 + ms * kMs, "rgb8", tag));
  for (const auto& path : writeBoth(dir.path(), "stamps", r)) {
    INFO(path.string());
    voxen::DepthSourceStats stats;
    const auto frames = readAll(path, withColour(), &stats);
    REQUIRE(frames.size() == 5);
    const auto tagOf = [](const voxen::DepthFrame& f) { return f.colour ? int(f.colour->rgb[2]) : -1; };
    CHECK(tagOf(frames[0]) == 1);   // 5 ms away
    CHECK(tagOf(frames[1]) == 2);   // 90 (10 ms) before 115 (15 ms)
    CHECK(tagOf(frames[2]) == -1);  // 230 is 30 ms away: kept without colour
    CHECK(tagOf(frames[3]) == 5);
    CHECK(tagOf(frames[4]) == -1);  // past the last colour image
    CHECK(frames[2].depth.depth16.size() == kW * kH);
    CHECK(stats.framesWithColour == 3);
    CHECK(stats.framesWithoutColour == 2);
    // A wider tolerance reaches 230 from 200; 0 takes exact stamps only.
    voxen::DepthSourceOptions wide = withColour();
    wide.colourMaxTimeDifference = 0.05;
    CHECK(tagOf(readAll(path, wide)[2]) == 4);
    voxen::DepthSourceOptions exact = withColour();
    exact.colourMaxTimeDifference = 0.0;
    voxen::DepthSourceStats exactStats;
    const auto exactFrames = readAll(path, exact, &exactStats);
    CHECK(tagOf(exactFrames[3]) == 5);
    CHECK(exactStats.framesWithColour == 1);
    voxen::DepthSourceOptions negative = withColour();
    negative.colourMaxTimeDifference = -0.01;
    CHECK_THROWS_AS(voxen::DepthSource(path, negative), voxen::SettingError);
  }
  // Colour on another clock, seconds before every depth image: passed over, no frame coloured.
  Recording late = depthRecording({kT0 + 5000 * kMs, kT0 + 5100 * kMs});
  for (int k = 0; k < 4; ++k) late.image(kColourTopic, colourImage(late, kT0 + k * 100 * kMs, "rgb8", uint8_t(k)));
  voxen::DepthSourceStats lateStats;
  for (const auto& f : readAll(writeBoth(dir.path(), "late", late)[0], withColour(), &lateStats)) CHECK_FALSE(f.colour);
  CHECK(lateStats.framesWithoutColour == 2);
}

TEST_CASE("Depth colour: TUM folders pair rgb.txt's images by the nearest timestamp within 0.02 s", "[depth][colour][input]") {
  vt::TempDir dir("colour-tum");
  const voxen::SyntheticScene scene = voxen::SyntheticScene::generate(2);
  voxen::DepthCameraConfig camera;
  camera.width = 16, camera.height = 12, camera.frames = 3, camera.threads = 1, camera.colour = true;
  std::vector<voxen::GeneratedDepthFrame> generated;
  voxen::generateDepthFrames(scene, camera, [&](const voxen::GeneratedDepthFrame& f) { generated.push_back(f); });
  const auto folder = dir.path() / "tum";
  voxen::writeDepthRecording(scene, camera, folder);
  // Depth at 0, 0.1, 0.2 s; colour renamed to 0.015 (frame 0's image), 0.1 (frame 1's) and
  // 0.23 (frame 2's: 30 ms from its depth image).
  writeText(folder / "rgb.txt", "# color images\n0.015000 rgb/0.000000.png\n0.100000 rgb/0.100000.png\n"
                                "0.230000 rgb/0.200000.png\n");
  voxen::DepthSourceStats stats;
  const auto frames = readAll(folder, withColour(), &stats);
  REQUIRE(frames.size() == 3);
  REQUIRE(frames[0].colour);
  CHECK(frames[0].colour->rgb == generated[0].frame.colour->rgb);
  REQUIRE(frames[1].colour);
  CHECK(frames[1].colour->rgb == generated[1].frame.colour->rgb);
  CHECK_FALSE(frames[2].colour);
  CHECK(stats.framesWithColour == 2);
  CHECK(stats.framesWithoutColour == 1);

  // A colour image of another size is refused, naming both files and sizes; so is a topic.
  voxen::DepthCameraConfig other = camera;
  other.width = 20;
  const auto wider = dir.path() / "wider";
  voxen::writeDepthRecording(scene, other, wider);
  std::filesystem::copy_file(wider / "rgb" / "0.000000.png", folder / "rgb" / "wide.png");
  writeText(folder / "rgb.txt", "0.000000 rgb/wide.png\n");
  CHECK_THROWS_WITH(voxen::DepthSource(folder, withColour()),
                    Contains("wide.png: the colour images are 20 x 12, the depth images (") && Contains(") 16 x 12") &&
                        Contains("does not resize"));
  voxen::DepthSourceOptions topic;
  topic.colourTopic = "/camera/color/image_raw";
  CHECK_THROWS_WITH(voxen::DepthSource(folder, topic), Contains("has no colour topic"));
}

TEST_CASE("Depth colour: the colour topic chosen, and what is refused with its message", "[depth][colour][input][mcap]") {
  vt::TempDir dir("colour-refusals");
  const auto tryOpen = [](const std::filesystem::path& path, const voxen::DepthSourceOptions& options) {
    try {
      voxen::DepthSource source(path, options);
      voxen::DepthFrame f;
      while (source.next(f)) {
      }
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Two colour topics: the one in the depth topic's namespace; its raw topic before /compressed.
  {
    Recording r = depthRecording({kT0 + 100 * kMs});
    r.image("/other/color/image_raw", colourImage(r, kT0 + 100 * kMs, "rgb8", 1));
    r.image(kColourTopic, colourImage(r, kT0 + 100 * kMs, "bgr8", 2));
    ros::CompressedImage c;
    c.stampNs = kT0 + 100 * kMs, c.format = "rgb8; png compressed bgr8";
    c.data = r.keep(testPng(expectedRgb(3), kW, kH, PNG_FORMAT_RGB));
    r.compressed(kColourTopic + "/compressed", c);
    r.image("/camera/infra1/image_rect_raw", colourImage(r, kT0 + 100 * kMs, "mono8", 4));
    const auto path = writeBoth(dir.path(), "choice", r)[0];
    voxen::DepthSource source(path, withColour());
    CHECK(source.info().colourTopic == kColourTopic);
    CHECK(source.info().colourEncoding == "bgr8");
    voxen::DepthSourceOptions named = withColour();
    named.colourTopic = kColourTopic + "/compressed";
    CHECK(readAll(path, named)[0].colour->rgb == expectedRgb(3));
    named.colourTopic = "/camera/nothing";
    CHECK_THAT(tryOpen(path, named), Contains("colour topic /camera/nothing: no such topic") && Contains("/other/color/image_raw (rgb8, 6 x 4)"));
    named.colourTopic = kDepthTopic;
    CHECK_THAT(tryOpen(path, named), Contains("holds depth images (16UC1), not colour"));

    // What inspect lists: every colour topic, with why one would not be read.
    const voxen::RecordingInfo info = voxen::inspectRecording(path);
    REQUIRE(info.colourTopics.size() == 4);
    std::map<std::string, voxen::RecordingInfo::ColourTopic> byName;
    for (const auto& t : info.colourTopics) byName[t.name] = t;
    CHECK(byName[kColourTopic].encoding == "bgr8");
    CHECK(byName[kColourTopic].width == kW);
    CHECK(byName[kColourTopic].note.empty());
    CHECK(byName[kColourTopic + "/compressed"].encoding == "rgb8; png compressed bgr8");
    CHECK(byName[kColourTopic + "/compressed"].height == kH);
    CHECK_THAT(byName["/camera/infra1/image_rect_raw"].note, Contains("read as colour when named"));
  }
  // Two equally near: a SettingError naming the field and listing both.
  {
    Recording r = depthRecording({kT0 + 100 * kMs});
    r.image("/camera/color/image_raw", colourImage(r, kT0 + 100 * kMs, "rgb8", 1));
    r.image("/camera/rgb/image_raw", colourImage(r, kT0 + 100 * kMs, "rgb8", 2));
    const auto path = writeBoth(dir.path(), "two", r)[0];
    try {
      voxen::DepthSource source(path, withColour());
      FAIL("two colour topics were not refused");
    } catch (const voxen::SettingError& e) {
      CHECK(e.field() == "DepthSourceOptions::colourTopic");
      CHECK_THAT(std::string(e.what()), Contains("/camera/color/image_raw (rgb8, 6 x 4), /camera/rgb/image_raw (rgb8, 6 x 4)"));
    }
  }
  // An unsupported encoding, a JPEG, a size mismatch, mono8 alone.
  {
    Recording r = depthRecording({kT0 + 100 * kMs});
    r.image("/camera/color/yuv", colourImage(r, kT0 + 100 * kMs, "yuv422", 1));
    r.image("/camera/color/small", colourImage(r, kT0 + 100 * kMs, "rgb8", 1, kW - 2, kH));
    ros::CompressedImage jpeg;
    jpeg.stampNs = kT0 + 100 * kMs, jpeg.format = "rgb8; jpeg compressed bgr8";
    jpeg.data = r.keep({0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0});
    r.compressed("/camera/color/image_raw/compressed", jpeg);
    r.image("/camera/ir/image", colourImage(r, kT0 + 100 * kMs, "mono8", 1));
    for (const auto& path : writeBoth(dir.path(), "refused", r)) {
      INFO(path.string());
      voxen::DepthSourceOptions o = withColour();
      o.colourTopic = "/camera/color/yuv";
      CHECK_THAT(tryOpen(path, o), Contains("topic /camera/color/yuv, message 0 of 1: encoding 'yuv422' is not a colour "
                                            "encoding Voxen reads (rgb8, bgr8, rgba8, bgra8, mono8)"));
      o.colourTopic = "/camera/color/image_raw/compressed";
      CHECK_THAT(tryOpen(path, o), Contains("topic /camera/color/image_raw/compressed, message 0 of 1: format 'rgb8; jpeg "
                                            "compressed bgr8' is JPEG, which Voxen does not read: no JPEG decoder"));
      o.colourTopic = "/camera/color/small";
      CHECK_THAT(tryOpen(path, o), Contains("the colour topic /camera/color/small's images are 4 x 4, the depth topic " +
                                            kDepthTopic + "'s 6 x 4") && Contains("does not resize"));
    }
    // inspect says why each would not be read.
    std::map<std::string, std::string> notes;
    for (const auto& t : voxen::inspectRecording(writeBoth(dir.path(), "refused-inspect", r)[0]).colourTopics) notes[t.name] = t.note;
    CHECK_THAT(notes["/camera/color/yuv"], Contains("encoding not read as colour (rgb8, bgr8, rgba8, bgra8, mono8)"));
    CHECK_THAT(notes["/camera/color/small"], Contains("not the depth images' size (6 x 4)"));
    CHECK_THAT(notes["/camera/color/image_raw/compressed"], Contains("JPEG: not read (no JPEG decoder"));
    CHECK_THAT(notes["/camera/ir/image"], Contains("read as colour when named"));
    Recording mono = depthRecording({kT0 + 100 * kMs});
    mono.image("/camera/ir/image", colourImage(mono, kT0 + 100 * kMs, "mono8", 1));
    CHECK_THAT(tryOpen(writeBoth(dir.path(), "mono", mono)[0], withColour()),
               Contains("holds no colour image topic") && Contains("mono8 topics are read when named: /camera/ir/image (mono8, 6 x 4)"));
  }
}

TEST_CASE("Depth colour: a distorted camera's undistortion map moves the colour with the depth", "[depth][colour][input][mcap]") {
  vt::TempDir dir("colour-undistort");
  Recording r = depthRecording({kT0 + 100 * kMs}, pinhole({0.8, -0.1, 0.05, -0.05, 0}));
  r.image(kColourTopic, colourImage(r, kT0 + 100 * kMs, "rgb8", 5));
  const auto frames = readAll(writeBoth(dir.path(), "distorted", r)[0], withColour());
  REQUIRE(frames.size() == 1);
  REQUIRE(frames[0].colour);
  const voxen::DepthFrame& f = frames[0];
  // Depth 1000 + i marks source pixel i: the colour there must be source pixel i's colour.
  size_t moved = 0, empty = 0;
  for (uint32_t k = 0; k < kW * kH; ++k) {
    INFO(k);
    const uint16_t d = f.depth.depth16[k];
    const std::array<uint8_t, 3> got{f.colour->rgb[3 * k], f.colour->rgb[3 * k + 1], f.colour->rgb[3 * k + 2]};
    if (d == 0) {
      CHECK(got == std::array<uint8_t, 3>{0, 0, 0});
      ++empty;
      continue;
    }
    CHECK(got == rgbOf(d - 1000u, 5));
    moved += d - 1000u != k;
  }
  CHECK(moved + empty > 0);  // the map is not the identity
}
