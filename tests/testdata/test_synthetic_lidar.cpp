// The synthetic lidar run: determinism, layout of rings and columns, origins on the
// trajectory, returns on surfaces with free space in front of them, and the two files.
#include <catch2/catch.hpp>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"
#include "voxen/host/error.hpp"

namespace {

using voxen::LidarConfig;
using voxen::Ray;
using voxen::SyntheticScene;

// Independent of the library's own geometry code: distance to the nearest primitive surface
// and whether a point is strictly inside any primitive.
double surfaceDistance(const SyntheticScene& scene, const glm::dvec3& p) {
  double best = 1e300;
  for (const auto& b : scene.boxes) {
    const bool inside = p.x > b.min.x && p.x < b.max.x && p.y > b.min.y && p.y < b.max.y && p.z > b.min.z && p.z < b.max.z;
    double d;
    if (inside) {
      d = std::min({p.x - b.min.x, b.max.x - p.x, p.y - b.min.y, b.max.y - p.y, p.z - b.min.z, b.max.z - p.z});
    } else {
      const glm::dvec3 c = glm::clamp(p, b.min, b.max);
      d = glm::length(p - c);
    }
    best = std::min(best, d);
  }
  for (const auto& c : scene.cylinders) {
    const double radial = std::hypot(p.x - c.centre.x, p.y - c.centre.y);
    double d;
    if (radial <= c.radius && p.z >= c.zMin && p.z <= c.zMax) {
      d = std::min({c.radius - radial, p.z - c.zMin, c.zMax - p.z});
    } else {
      const double dr = std::max(radial - c.radius, 0.0);
      const double dz = std::max({c.zMin - p.z, 0.0, p.z - c.zMax});
      d = std::hypot(dr, dz);
    }
    best = std::min(best, d);
  }
  for (const auto& s : scene.spheres) best = std::min(best, std::abs(glm::length(p - s.centre) - s.radius));
  return best;
}

bool insideAnything(const SyntheticScene& scene, const glm::dvec3& p) {
  for (const auto& b : scene.boxes)
    if (p.x > b.min.x && p.x < b.max.x && p.y > b.min.y && p.y < b.max.y && p.z > b.min.z && p.z < b.max.z) return true;
  for (const auto& c : scene.cylinders)
    if (std::hypot(p.x - c.centre.x, p.y - c.centre.y) < c.radius && p.z > c.zMin && p.z < c.zMax) return true;
  for (const auto& s : scene.spheres)
    if (glm::length(p - s.centre) < s.radius) return true;
  return false;
}

LidarConfig smallLidar() {
  LidarConfig lidar;
  lidar.rings = 16;
  lidar.columns = 256;
  lidar.scans = 3;
  lidar.seed = 7;
  return lidar;
}

// Field by field: Ray has padding after its float intensity, which memcmp would compare.
bool sameRays(const std::vector<Ray>& a, const std::vector<Ray>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].origin != b[i].origin || a[i].sample != b[i].sample || std::memcmp(&a[i].time, &b[i].time, 8) != 0 ||
        std::memcmp(&a[i].intensity, &b[i].intensity, 4) != 0)
      return false;
  return true;
}

std::string readAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("synthetic scene: a building of rooms and objects that follows from its seed", "[synthetic]") {
  const SyntheticScene a = SyntheticScene::generate(3), b = SyntheticScene::generate(3), c = SyntheticScene::generate(4);
  REQUIRE(a.boxes.size() == b.boxes.size());
  REQUIRE(a.cylinders.size() == b.cylinders.size());
  REQUIRE(a.spheres.size() == b.spheres.size());
  for (size_t i = 0; i < a.boxes.size(); ++i) {
    CHECK(a.boxes[i].min == b.boxes[i].min);
    CHECK(a.boxes[i].max == b.boxes[i].max);
  }
  CHECK(a.pathLength == b.pathLength);
  const bool differs = a.boxes.size() != c.boxes.size() || a.pathLength != c.pathLength ||
                       a.boxes[0].max != c.boxes[0].max;
  CHECK(differs);

  // Corridor plus 3-5 rooms a side, every room with objects, all inside the bounds.
  CHECK(a.areas.size() >= 7);
  CHECK(a.areas.front().name == "corridor");
  CHECK(a.cylinders.size() + a.spheres.size() >= 2);
  CHECK(a.boxes.size() > 30);
  CHECK(a.boundsMax.z == Approx(a.options.ceilingHeight + 0.2));
  CHECK(a.boundsMin.z == Approx(-0.2));
  for (const auto& s : a.spheres) {
    CHECK(glm::all(glm::greaterThanEqual(s.centre - s.radius, a.boundsMin)));
    CHECK(glm::all(glm::lessThanEqual(s.centre + s.radius, a.boundsMax)));
  }
}

TEST_CASE("synthetic scene: ray casting finds the closest box, cylinder or sphere", "[synthetic]") {
  SyntheticScene scene;
  scene.boxes = {{{2, -1, 0}, {3, 1, 2}}, {{-20, -20, -1}, {20, 20, -0.5}}};  // a block and a wide slab
  scene.cylinders = {{{0, 5}, 0.5, 0.0, 1.0}};
  scene.spheres = {{{-4, 0, 1}, 1.0}};
  scene.buildAccelerator();
  CHECK(scene.boundsMin == glm::dvec3(-20, -20, -1));
  CHECK(scene.boundsMax == glm::dvec3(20, 20, 2));
  auto cast = [&](glm::dvec3 o, glm::dvec3 d, double range = 100.0) {
    return scene.raycast(o, glm::normalize(d), range);
  };
  const glm::dvec3 o(0, 0, 1);
  CHECK(cast(o, {1, 0, 0}).value_or(-1) == Approx(2.0));             // box face
  CHECK(cast(o, {-1, 0, 0}).value_or(-1) == Approx(3.0));            // sphere
  CHECK(cast(o, {0, 1, 0}).value_or(-1) == Approx(4.5));             // cylinder side
  CHECK(cast({0, 5, 3}, {0, 0, -1}).value_or(-1) == Approx(2.0));    // cylinder cap
  CHECK(cast(o, {0, 0, -1}).value_or(-1) == Approx(1.5));            // slab top
  CHECK_FALSE(cast(o, {1, 0, 0}, 1.5).has_value());                  // beyond max range
  CHECK_FALSE(cast(o, {0, -1, 0}).has_value());                      // nothing there
  CHECK_FALSE(cast({0, 5, 0.5}, {1, 0, 0}).has_value());             // from inside the cylinder
  CHECK_FALSE(cast({2.5, 0, 1}, {0, 1, 0}).has_value());             // from inside the box
  CHECK(cast({-4, 0, 1}, {1, 0, 0}).value_or(-1) == Approx(6.0));    // out of the sphere to the block
  CHECK(cast({-30, 0.2, 1}, {1, 0, 0}).value_or(-1) == Approx(26 - std::sqrt(1 - 0.04)));  // from outside the grid
  // A long shallow diagonal crosses many grid cells before it reaches the block's far corner.
  const glm::dvec3 from(-19, -19.5, 1.5), to(2.0, 0.9, 1.0);
  CHECK(cast(from, to - from).value_or(-1) == Approx(glm::length(to - from)));
  CHECK(scene.distanceToSurface({2.5, 0, 2.25}) == Approx(0.25));
  CHECK(scene.distanceToSurface({0, 5, 0.5}) == Approx(0.5));
}

TEST_CASE("synthetic scene: the sensor path is closed, smooth and clear of everything", "[synthetic]") {
  for (uint64_t seed : {1, 2, 99}) {
    const SyntheticScene scene = SyntheticScene::generate(seed);
    INFO("seed " << seed);
    REQUIRE(scene.pathPoints.size() > 1000);
    CHECK(scene.pathPoints.front() == scene.pathPoints.back());
    CHECK(scene.pathDistance.back() == scene.pathLength);
    // One loop turns the heading by one full turn.
    CHECK(std::abs(std::abs(scene.pathHeading.back() - scene.pathHeading.front()) - 2 * std::numbers::pi) < 1e-6);
    size_t tooClose = 0, jumps = 0, sharp = 0;
    for (size_t i = 0; i < scene.pathPoints.size(); ++i) {
      const glm::dvec3 p(scene.pathPoints[i], 1.2);
      if (insideAnything(scene, p) || surfaceDistance(scene, p) < 0.3) ++tooClose;
      if (i > 0) {
        const double step = scene.pathDistance[i] - scene.pathDistance[i - 1];
        if (!(step > 0.0 && step < 0.03)) ++jumps;
        if (std::abs(scene.pathHeading[i] - scene.pathHeading[i - 1]) > 0.1) ++sharp;
      }
    }
    CHECK(tooClose == 0);
    CHECK(jumps == 0);
    CHECK(sharp == 0);
    // The path enters every room.
    for (size_t r = 1; r < scene.areas.size(); ++r) {
      const auto& area = scene.areas[r];
      const bool entered = std::any_of(scene.pathPoints.begin(), scene.pathPoints.end(), [&](const glm::dvec2& p) {
        return p.x > area.min.x + 0.5 && p.x < area.max.x - 0.5 && p.y > area.min.y + 0.5 && p.y < area.max.y - 0.5;
      });
      CHECK(entered);
    }
    // Wrapping: a loop further along is the same place.
    const glm::dvec2 p0 = scene.pathPosition(12.345), p1 = scene.pathPosition(12.345 + 2 * scene.pathLength);
    CHECK(glm::length(p0 - p1) < 1e-9);
  }
}

TEST_CASE("synthetic lidar: the same seed gives the same rays on any thread count", "[synthetic]") {
  const SyntheticScene scene = SyntheticScene::generate(5);
  LidarConfig lidar = smallLidar();
  lidar.threads = 1;
  std::vector<uint8_t> flagsA, flagsB;
  const auto a = voxen::generateLidarRays(scene, lidar, &flagsA);
  lidar.threads = 3;
  const auto b = voxen::generateLidarRays(scene, lidar, &flagsB);
  CHECK(sameRays(a, b));
  CHECK(flagsA == flagsB);

  lidar.seed = 8;  // another noise seed moves the returns, not the origins
  const auto c = voxen::generateLidarRays(scene, lidar);
  REQUIRE(c.size() == a.size());
  size_t moved = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].origin == c[i].origin);
    if (!flagsA[i] && a[i].sample != c[i].sample) ++moved;
  }
  CHECK(moved > a.size() / 2);

  // Streaming gives the batch's rays, scan by scan.
  lidar.seed = 7;
  std::vector<Ray> streamed;
  int scans = 0;
  voxen::generateLidarScans(scene, lidar, [&](const voxen::LidarScan& scan) {
    CHECK(scan.index == scans++);
    CHECK(scan.rays.size() == lidar.raysPerScan());
    CHECK(scan.startTime == lidar.columnTime(scan.index, 0));
    CHECK(scan.returns == size_t(std::count(scan.noReturn.begin(), scan.noReturn.end(), uint8_t(0))));
    streamed.insert(streamed.end(), scan.rays.begin(), scan.rays.end());
  });
  CHECK(scans == lidar.scans);
  CHECK(sameRays(streamed, a));
}

TEST_CASE("synthetic lidar: rings x columns per scan, column-major, each beam where its ring and column point",
          "[synthetic]") {
  const SyntheticScene scene = SyntheticScene::generate(2);
  LidarConfig lidar = smallLidar();
  lidar.rings = 8;
  lidar.columns = 360;
  lidar.scans = 2;
  lidar.startTime = 1.7e9;  // epoch-like times
  const auto rays = voxen::generateLidarRays(scene, lidar);
  REQUIRE(rays.size() == size_t(8 * 360 * 2));
  size_t wrong = 0;
  for (int s = 0; s < lidar.scans; ++s)
    for (int c = 0; c < lidar.columns; ++c)
      for (int r = 0; r < lidar.rings; ++r) {
        const Ray& ray = rays[(size_t(s) * lidar.columns + c) * lidar.rings + r];
        const double expectedTime = lidar.startTime + s / lidar.scanRateHz + c / (lidar.columns * lidar.scanRateHz);
        if (std::abs(ray.time - expectedTime) > 1e-6) ++wrong;
        // Direction in the sensor frame gives back ring elevation and column azimuth.
        const auto pose = voxen::sensorPose(scene, lidar, ray.time);
        const glm::dvec3 local = glm::conjugate(pose.orientation) * glm::normalize(ray.sample - ray.origin);
        const double elevation = std::asin(std::clamp(local.z, -1.0, 1.0));
        double azimuth = std::atan2(local.y, local.x);
        if (azimuth < -1e-9) azimuth += 2 * std::numbers::pi;
        const double expectedElevation = (-15.0 + 30.0 * r / (lidar.rings - 1)) * std::numbers::pi / 180.0;
        const double expectedAzimuth = 2 * std::numbers::pi * c / lidar.columns;
        if (std::abs(elevation - expectedElevation) > 1e-9 || std::abs(azimuth - expectedAzimuth) > 1e-9) ++wrong;
      }
  CHECK(wrong == 0);
  for (size_t i = 1; i < rays.size(); ++i)
    if (rays[i].time < rays[i - 1].time) FAIL("ray times decrease at " << i);
}

TEST_CASE("synthetic lidar: every ray starts at the sensor's trajectory position for its time", "[synthetic]") {
  const SyntheticScene scene = SyntheticScene::generate(11);
  LidarConfig lidar = smallLidar();
  lidar.speed = 1.5;
  lidar.startDistance = 20.0;
  const auto rays = voxen::generateLidarRays(scene, lidar);
  const double rate = 1000.0;
  const auto trajectory = voxen::lidarTrajectory(scene, lidar, rate);
  REQUIRE(trajectory.size() == size_t(std::ceil(lidar.duration() * rate)) + 1);
  CHECK(trajectory.back().time >= rays.back().time);
  double worst = 0.0;
  for (const Ray& ray : rays) {
    const double f = (ray.time - lidar.startTime) * rate;
    const size_t i = std::min(size_t(f), trajectory.size() - 2);
    const double u = f - double(i);
    const glm::dvec3 p = trajectory[i].position + u * (trajectory[i + 1].position - trajectory[i].position);
    worst = std::max(worst, glm::length(p - ray.origin));
    CHECK(ray.origin.z == lidar.sensorHeight);
  }
  CHECK(worst < 1e-4);
  // The sensor moves at the configured speed along the path.
  const double travelled = glm::length(trajectory.back().position - trajectory.front().position);
  CHECK(travelled > 0.2);
  CHECK(travelled <= lidar.speed * lidar.duration() + 1e-9);
  for (const auto& pose : trajectory) CHECK(std::abs(glm::length(pose.orientation) - 1.0) < 1e-12);
}

TEST_CASE("synthetic lidar: returns lie on surfaces with free space before them, no-returns at max range",
          "[synthetic]") {
  const SyntheticScene scene = SyntheticScene::generate(1);
  LidarConfig lidar = smallLidar();
  lidar.maxRange = 12.0;  // short enough that corridor beams find nothing
  lidar.startDistance = 0.0;  // the west end of the corridor, looking down it
  std::vector<uint8_t> noReturn;
  const auto rays = voxen::generateLidarRays(scene, lidar, &noReturn);
  const double sigma = lidar.rangeNoiseStdDev;
  size_t returns = 0, offSurface = 0, beyond3Sigma = 0, outside = 0, blocked = 0, badNoReturn = 0, floorHits = 0, ceilingHits = 0;
  double noiseSum = 0, noiseSq = 0;
  for (size_t i = 0; i < rays.size(); ++i) {
    const Ray& ray = rays[i];
    const glm::dvec3 dir = glm::normalize(ray.sample - ray.origin);
    const double range = glm::length(ray.sample - ray.origin);
    if (noReturn[i]) {
      if (std::abs(range - lidar.maxRange) > 1e-9) ++badNoReturn;
      for (double t = 0.05; t < lidar.maxRange; t += 0.05)
        if (insideAnything(scene, ray.origin + t * dir)) {
          ++badNoReturn;
          break;
        }
      continue;
    }
    ++returns;
    // The range noise is Gaussian: a few in a thousand land beyond 3 sigma, none beyond 6.
    const double d = surfaceDistance(scene, ray.sample);
    if (d > 3 * sigma + 1e-6) ++beyond3Sigma;
    if (d > 6 * sigma + 1e-6) ++offSurface;
    if (glm::any(glm::lessThan(ray.sample, scene.boundsMin - 6 * sigma)) ||
        glm::any(glm::greaterThan(ray.sample, scene.boundsMax + 6 * sigma)))
      ++outside;
    for (double t = 0.05; t < range - 0.06; t += 0.05)
      if (insideAnything(scene, ray.origin + t * dir)) {
        ++blocked;
        break;
      }
    if (std::abs(ray.sample.z) < 6 * sigma) ++floorHits;
    if (std::abs(ray.sample.z - scene.options.ceilingHeight) < 6 * sigma) ++ceilingHits;
  }
  CHECK(offSurface == 0);
  CHECK(beyond3Sigma < returns / 100);
  CHECK(outside == 0);
  CHECK(blocked == 0);
  CHECK(badNoReturn == 0);
  CHECK(returns > rays.size() / 2);
  CHECK(returns < rays.size());  // some beams run down the corridor past 12 m
  CHECK(floorHits > 0);
  CHECK(ceilingHits > 0);

  // Without noise the samples sit on the surfaces; the noise has the configured spread.
  LidarConfig exact = lidar;
  exact.rangeNoiseStdDev = 0.0;
  const auto clean = voxen::generateLidarRays(scene, exact);
  size_t off = 0, n = 0;
  for (size_t i = 0; i < clean.size(); ++i) {
    if (noReturn[i]) continue;
    if (surfaceDistance(scene, clean[i].sample) > 1e-9) ++off;
    const double e = glm::length(rays[i].sample - rays[i].origin) - glm::length(clean[i].sample - clean[i].origin);
    noiseSum += e;
    noiseSq += e * e;
    ++n;
  }
  CHECK(off == 0);
  const double mean = noiseSum / n, sd = std::sqrt(noiseSq / n - mean * mean);
  CHECK(std::abs(mean) < 0.1 * sigma);
  CHECK(sd == Approx(sigma).epsilon(0.05));
}

TEST_CASE("synthetic lidar: the PLY cloud and the trajectory file read back", "[synthetic]") {
  vt::TempDir dir("synthetic-lidar");
  const SyntheticScene scene = SyntheticScene::generate(4);
  LidarConfig lidar = smallLidar();
  lidar.maxRange = 10.0;
  lidar.startTime = 100.0;
  const auto summary = voxen::writeLidarRun(scene, lidar, dir / "run.ply", dir / "run.txt", 50.0);
  std::vector<uint8_t> noReturn;
  const auto rays = voxen::generateLidarRays(scene, lidar, &noReturn);
  std::vector<Ray> returns;
  for (size_t i = 0; i < rays.size(); ++i)
    if (!noReturn[i]) returns.push_back(rays[i]);
  CHECK(summary.rays == rays.size());
  CHECK(summary.returns == returns.size());
  CHECK(summary.noReturns == rays.size() - returns.size());
  REQUIRE(summary.noReturns > 0);

  // Header: the standard lines, one comment, the exact count; then 36 bytes per point.
  const std::string bytes = readAll(dir / "run.ply");
  const size_t end = bytes.find("end_header\n");
  REQUIRE(end != std::string::npos);
  const size_t bodyOffset = end + std::strlen("end_header\n");
  std::vector<std::string> lines;
  std::istringstream header(bytes.substr(0, bodyOffset));
  for (std::string line; std::getline(header, line);) lines.push_back(line);
  REQUIRE(lines.size() == 10);
  CHECK(lines[0] == "ply");
  CHECK(lines[1] == "format binary_little_endian 1.0");
  CHECK(lines[2].rfind("comment ", 0) == 0);
  CHECK(lines[3] == "element vertex " + std::to_string(returns.size()));
  CHECK(lines[4] == "property double x");
  CHECK(lines[5] == "property double y");
  CHECK(lines[6] == "property double z");
  CHECK(lines[7] == "property double time");
  CHECK(lines[8] == "property float intensity");
  CHECK(lines[9] == "end_header");
  constexpr size_t kPointBytes = 4 * sizeof(double) + sizeof(float);
  REQUIRE(bytes.size() == bodyOffset + returns.size() * kPointBytes);
  size_t mismatched = 0, outOfRange = 0;
  float lowest = 255.0f, highest = 0.0f;
  for (size_t i = 0; i < returns.size(); ++i) {
    double v[4];
    float intensity;
    const char* point = bytes.data() + bodyOffset + i * kPointBytes;
    std::memcpy(v, point, sizeof v);  // the test host is little-endian
    std::memcpy(&intensity, point + sizeof v, sizeof intensity);
    if (v[0] != returns[i].sample.x || v[1] != returns[i].sample.y || v[2] != returns[i].sample.z ||
        v[3] != returns[i].time || intensity != returns[i].intensity)
      ++mismatched;
    outOfRange += !(intensity >= 0.0f && intensity <= 255.0f);
    lowest = std::min(lowest, intensity);
    highest = std::max(highest, intensity);
  }
  CHECK(mismatched == 0);
  // Intensities vary with the surface and the range, within an 8-bit channel's range.
  CHECK(outOfRange == 0);
  CHECK(highest - lowest > 50.0f);

  // Trajectory: a header line, then "time x y z qx qy qz qw" at 50 Hz over the run.
  const auto expected = voxen::lidarTrajectory(scene, lidar, 50.0);
  std::istringstream text(readAll(dir / "run.txt"));
  std::string first;
  std::getline(text, first);
  CHECK(first == "# time x y z qx qy qz qw");
  std::vector<voxen::TrajectorySample> parsed;
  for (std::string line; std::getline(text, line);) {
    std::istringstream fields(line);
    voxen::TrajectorySample s;
    fields >> s.time >> s.position.x >> s.position.y >> s.position.z >> s.orientation.x >> s.orientation.y >>
        s.orientation.z >> s.orientation.w;
    std::string extra;
    if (!fields || (fields >> extra)) FAIL("bad trajectory line: " << line);
    parsed.push_back(s);
  }
  REQUIRE(parsed.size() == expected.size());
  CHECK(summary.trajectorySamples == expected.size());
  CHECK(parsed.front().time == Approx(lidar.startTime));
  CHECK(parsed.back().time >= returns.back().time);
  size_t off = 0;
  for (size_t i = 0; i < parsed.size(); ++i) {
    if (std::abs(parsed[i].time - expected[i].time) > 1e-6 ||
        glm::length(parsed[i].position - expected[i].position) > 2e-6 ||
        std::abs(glm::dot(parsed[i].orientation, expected[i].orientation)) < 1.0 - 1e-8)
      ++off;
    if (i > 0 && std::abs(parsed[i].time - parsed[i - 1].time - 0.02) > 2e-6) ++off;
  }
  CHECK(off == 0);
}

TEST_CASE("synthetic lidar: bad configurations name their field", "[synthetic]") {
  const SyntheticScene scene = SyntheticScene::generate(1);
  auto rejects = [&](LidarConfig lidar, const std::string& field) {
    INFO(field);
    try {
      voxen::generateLidarRays(scene, lidar);
      FAIL("accepted a bad " << field);
    } catch (const voxen::Error& e) {
      CHECK_THAT(e.what(), Catch::Contains(field));
    }
  };
  LidarConfig lidar = smallLidar();
  lidar.rings = 0;
  rejects(lidar, "rings");
  lidar = smallLidar();
  lidar.columns = -4;
  rejects(lidar, "columns");
  lidar = smallLidar();
  lidar.maxRange = 0.0;
  rejects(lidar, "max range");
  lidar = smallLidar();
  lidar.scanRateHz = std::nan("");
  rejects(lidar, "scan rate");
  lidar = smallLidar();
  lidar.sensorHeight = 3.5;  // above the 3 m ceiling
  rejects(lidar, "sensor height");
  lidar = smallLidar();
  lidar.rangeNoiseStdDev = -0.1;
  rejects(lidar, "range noise");
  CHECK_THROWS_AS(voxen::lidarTrajectory(scene, smallLidar(), 0.0), voxen::Error);
  voxen::SceneOptions options;
  options.ceilingHeight = 1.0;
  CHECK_THROWS_WITH(SyntheticScene::generate(1, options), Catch::Contains("ceiling height"));
}
