// Depth recordings as `voxen generate --depth-recording` writes them (voxen/testdata/
// depth_recording.hpp: a bag, an MCAP file, a TUM RGB-D folder) read back through
// voxen::DepthSource: the same images, cameras, stamps and optical-frame poses as generated.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/input/depth_source.hpp"
#include "voxen/testdata/depth_camera.hpp"
#include "voxen/testdata/depth_recording.hpp"

namespace {

void checkPose(const voxen::DepthFrame& got, const voxen::DepthFrame& want, double margin) {
  for (int i = 0; i < 3; ++i) CHECK(got.position[i] == Approx(want.position[i]).margin(margin));
  const double sign = glm::dot(got.orientation, want.orientation) < 0 ? -1.0 : 1.0;
  for (int i = 0; i < 4; ++i) CHECK(sign * got.orientation[i] == Approx(want.orientation[i]).margin(margin));
}

}  // namespace

TEST_CASE("Depth source: generated depth recordings (bag, MCAP, TUM folder) read back as generated", "[depth][input][mcap]") {
  vt::TempDir dir("depth-generated");
  const voxen::SyntheticScene scene = voxen::SyntheticScene::generate(1);
  voxen::DepthCameraConfig camera;
  camera.width = 40, camera.height = 30, camera.frames = 3, camera.rateHz = 2.0, camera.threads = 1;
  std::vector<voxen::GeneratedDepthFrame> generated;
  voxen::generateDepthFrames(scene, camera, [&](const voxen::GeneratedDepthFrame& f) { generated.push_back(f); });
  REQUIRE(generated.size() == 3);

  std::vector<std::filesystem::path> recordings{dir.path() / "walk.mcap"};
#if VOXEN_HAVE_ROSBAG
  recordings.push_back(dir.path() / "walk.bag");
#endif
  for (const auto& path : recordings) {
    INFO(path.string());
    voxen::writeDepthRecording(scene, camera, path);
    voxen::DepthSource source(path);
    CHECK(source.info().topic == "/camera/depth/image_rect_raw");
    CHECK(source.info().intrinsics == camera.intrinsics());
    voxen::DepthFrame f;
    for (const voxen::GeneratedDepthFrame& want : generated) {
      REQUIRE(source.next(f));
      CHECK(f.depth.depth16 == want.frame.depth.depth16);
      CHECK(f.depth.depthScale == 0.001);
      CHECK(f.time == want.frame.time);
      checkPose(f, want.frame, 1e-12);
    }
    CHECK_FALSE(source.next(f));
  }

  // TUM: 5000 units a metre where the camera gave millimetres: both round the same depth.
  const auto folder = dir.path() / "walk";
  voxen::writeDepthRecording(scene, camera, folder);
  voxen::DepthSource source(folder);  // its camera_info.yaml
  CHECK(source.info().intrinsics.width == camera.width);
  CHECK(source.info().intrinsics.fx == Approx(camera.intrinsics().fx).epsilon(1e-12));
  voxen::DepthFrame f;
  for (const voxen::GeneratedDepthFrame& want : generated) {
    REQUIRE(source.next(f));
    REQUIRE(f.depth.depth16.size() == want.frame.depth.depth16.size());
    size_t far = 0;
    for (size_t i = 0; i < f.depth.depth16.size(); ++i) {
      const double a = f.depth.depth16[i] * f.depth.depthScale, b = want.frame.depth.depth16[i] * 0.001;
      far += (a == 0) != (b == 0) || std::abs(a - b) > 0.0006;
    }
    CHECK(far == 0);
    CHECK(f.time == Approx(want.frame.time).margin(1e-6));
    checkPose(f, want.frame, 1e-6);
  }
  CHECK_FALSE(source.next(f));
}
