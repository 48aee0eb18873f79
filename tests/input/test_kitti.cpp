// KITTI odometry sequences: a small synthetic sequence written here, whose lidar poses are
// worked out by hand (below), read as rays in the first scan's lidar frame.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "support/test_helpers.hpp"
#include "voxen/input/kitti.hpp"
#include "voxen/input/ray_source.hpp"

using Catch::Matchers::Contains;
using voxen::Ray;

namespace {

std::string scanBytes(const std::vector<float>& values) {
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Tr: camera = R * lidar + t, with R taking the lidar's x (forward) to the camera's z, y (left)
// to -x and z (up) to -y, and t = (0.25, -0.5, 0.75). Camera poses: P0 identity; P1 2 m
// forward (camera z); P2 turned 90 degrees left (camera x -> z, z -> -x) and 4 m forward.
//   L1 = Tr^-1 P1 Tr: p -> p + R^T (0, 0, 2) = p + (2, 0, 0).
//   L2: p -> R^T Rc R p + R^T (Rc t + d - t); R^T Rc R turns 90 degrees about z, and
//       Rc t + d - t = (-0.75, -0.5, 0.25) + (0, 0, 4) - t = (-1, 0, 3.5), so R^T (...) = (3.5, 1, 0).
void writeSequence(const vt::TempDir& dir, bool withTimes = true) {
  dir.write("seq/calib.txt",
            "P0: 7.18 0 6.07e+02 0 0 7.18 1.85e+02 0 0 0 1 0\n"
            "Tr: 0 -1 0 0.25 0 0 -1 -0.5 1 0 0 0.75\n");
  dir.write("seq/poses.txt",
            "1 0 0 0 0 1 0 0 0 0 1 0\n"
            "1 0 0 0 0 1 0 0 0 0 1 2\n"
            "0 0 -1 0 0 1 0 0 1 0 0 4\n");
  if (withTimes) dir.write("seq/times.txt", "0.0\n0.125\n0.25\n");
  dir.write("seq/velodyne/000000.bin", scanBytes({1, 2, 0.5f, 0.25f}));
  dir.write("seq/velodyne/000001.bin", scanBytes({1, 0, 0, 0.5f, -1, 0.5f, 0.25f, 0.75f}));
  dir.write("seq/velodyne/000002.bin", scanBytes({1, 0, 0, 1, 2, 0.5f, -1, 0}));
}

}  // namespace

TEST_CASE("A KITTI sequence's scans become rays through Tr^-1 P Tr, worked out by hand", "[kitti][input]") {
  vt::TempDir dir("kitti");
  writeSequence(dir);
  const voxen::KittiSequence seq = voxen::loadKittiSequence(dir / "seq");
  REQUIRE(seq.scans.size() == 3);
  CHECK(seq.points == 5);
  voxen::RayLoadStats stats;
  const std::vector<Ray> rays = voxen::readRays(dir / "seq", std::nullopt, &stats);
  REQUIRE(rays.size() == 5);
  const struct {
    glm::dvec3 origin, sample;
    double time;
    float intensity;
  } want[] = {
      {{0, 0, 0}, {1, 2, 0.5}, 0.0, 0.25f},
      {{2, 0, 0}, {3, 0, 0}, 0.125, 0.5f},
      {{2, 0, 0}, {1, 0.5, 0.25}, 0.125, 0.75f},
      {{3.5, 1, 0}, {3.5, 2, 0}, 0.25, 1.0f},
      {{3.5, 1, 0}, {3.0, 3.0, -1}, 0.25, 0.0f},
  };
  for (size_t i = 0; i < 5; ++i) {
    INFO("ray " << i);
    CHECK(rays[i].origin == want[i].origin);
    CHECK(rays[i].sample == want[i].sample);
    CHECK(rays[i].time == want[i].time);
    CHECK(rays[i].intensity == want[i].intensity);
  }
  voxen::RayReader reader(dir / "seq", std::nullopt, {.threads = 2, .chunkPoints = 1});
  CHECK(reader.format() == "KITTI odometry");
  CHECK(reader.totalPoints() == 5);
  std::vector<Ray> all;
  while (reader.read(all, 100) > 0) {
  }
  CHECK_THAT(reader.summary(), Contains("origins from the poses of") && Contains("poses.txt and Tr of"));
}

TEST_CASE("KITTI: without times.txt scans are 0.1 s apart; poses also found as ../../poses/NN.txt", "[kitti][input]") {
  vt::TempDir dir("kitti-layout");
  writeSequence(dir, false);
  std::filesystem::create_directories(dir / "dataset/sequences");
  std::filesystem::create_directories(dir / "dataset/poses");
  std::filesystem::rename(dir / "seq", dir / "dataset/sequences/07");
  std::filesystem::rename(dir / "dataset/sequences/07/poses.txt", dir / "dataset/poses/07.txt");
  const std::vector<Ray> rays = voxen::readRays(dir / "dataset/sequences/07");
  REQUIRE(rays.size() == 5);
  CHECK(rays[1].time == 0.1);
  CHECK(rays[4].time == 0.2);
  CHECK(rays[4].sample == glm::dvec3(3.0, 3.0, -1));
}

TEST_CASE("KITTI: returns from the robot are judged in the lidar's frame, before the pose, and counted", "[kitti][input]") {
  vt::TempDir dir("kitti-exclusion");
  writeSequence(dir);
  voxen::RayReaderOptions options{.threads = 2, .chunkPoints = 1};
  // Scans 1 and 2 each have a point at the lidar's (1, 0, 0): in the box, wherever the scan's
  // pose puts it. Scan 1's (-1, 0.5, 0.25) is 1.146 m from the lidar: nearer than 1.2 m.
  options.exclusion.box = std::array<glm::dvec3, 2>{glm::dvec3(0.5, -0.1, -0.1), glm::dvec3(1.5, 0.1, 0.1)};
  options.exclusion.minRange = 1.2;
  voxen::RayReader reader(dir / "seq", std::nullopt, options);
  std::vector<Ray> rays;
  while (reader.read(rays, 100) > 0) {
  }
  REQUIRE(rays.size() == 2);
  CHECK(rays[0].sample == glm::dvec3(1, 2, 0.5));
  CHECK(rays[1].sample == glm::dvec3(3.0, 3.0, -1));
  CHECK(reader.stats().points == 5);
  CHECK(reader.stats().skippedInBox == 2);
  CHECK(reader.stats().skippedNearSensor == 1);
  CHECK_THAT(reader.summary(), Contains("2 skipped inside the robot's box") &&
                                   Contains("1 skipped nearer the sensor than the minimum range"));
}

TEST_CASE("Bad KITTI sequences are errors naming the file and line", "[kitti][input]") {
  vt::TempDir dir("kitti-bad");
  writeSequence(dir);
  auto error = [&] { return vt::errorOf([&] { voxen::readRays(dir / "seq"); }); };
  dir.write("seq/poses.txt", "1 0 0 0 0 1 0 0 0 0 1 0\n1 0 0 0 0 1 0 0 0 0 1\n");
  CHECK_THAT(error(), Contains("poses.txt:2: a pose has 12 numbers (3x4 row-major), this line has 11"));
  dir.write("seq/poses.txt", "1 0 0 0 0 1 0 0 0 0 1 0\n");
  CHECK_THAT(error(), Contains("poses.txt: 1 poses for the 3 scans"));
  writeSequence(dir);
  dir.write("seq/calib.txt", "P0: 1 2 3\n");
  CHECK_THAT(error(), Contains("calib.txt: no 'Tr:' line"));
  writeSequence(dir);
  dir.write("seq/times.txt", "0\n0.1\n");
  CHECK_THAT(error(), Contains("times.txt: 2 times for the 3 scans"));
  writeSequence(dir);
  dir.write("seq/velodyne/000001.bin", std::string(20, '\0'));
  CHECK_THAT(error(), Contains("000001.bin: 20 bytes is no whole number of 16-byte points"));
  // Poses that are no rigid motion: a scale of 2, a mirror, a shear; Tr scaled.
  writeSequence(dir);
  dir.write("seq/poses.txt", "1 0 0 0 0 1 0 0 0 0 1 0\n2 0 0 0 0 2 0 0 0 0 2 2\n1 0 0 0 0 1 0 0 0 0 1 0\n");
  CHECK_THAT(error(), Contains("poses.txt:2: the rotation part is not a rotation") && Contains("scale"));
  dir.write("seq/poses.txt", "1 0 0 0 0 1 0 0 0 0 1 0\n1 0 0 0 0 1 0 0 0 0 -1 2\n1 0 0 0 0 1 0 0 0 0 1 0\n");
  CHECK_THAT(error(), Contains("poses.txt:2: the rotation part has determinant -1: a mirror"));
  dir.write("seq/poses.txt", "1 0 0 0 0 1 0 0 0 0 1 0\n1 0.5 0 0 0 1 0 0 0 0 1 2\n1 0 0 0 0 1 0 0 0 0 1 0\n");
  CHECK_THAT(error(), Contains("poses.txt:2: the rotation part is not a rotation"));
  writeSequence(dir);
  dir.write("seq/calib.txt", "P0: 1 0 0 0 0 1 0 0 0 0 1 0\nTr: 0 -2 0 0.25 0 0 -2 -0.5 2 0 0 0.75\n");
  CHECK_THAT(error(), Contains("calib.txt:2: Tr: the rotation part is not a rotation"));
  // Printed with 6 decimals, a rotation is a little off: accepted.
  writeSequence(dir);
  dir.write("seq/poses.txt", "1 0 0 0 0 1 0 0 0 0 1 0\n0.999999 0.001414 0 0 -0.001414 0.999999 0 0 0 0 1 2\n"
                             "1 0 0 0 0 1 0 0 0 0 1 0\n");
  CHECK(voxen::readRays(dir / "seq").size() == 5);
  writeSequence(dir);
  dir.write("traj.txt", "0 0 0 0\n1 1 0 0\n");
  CHECK_THAT(vt::errorOf([&] { voxen::RayReader reader(dir / "seq", dir / "traj.txt"); }),
             Contains("carries its own poses"));
}
