// The synthetic depth camera (issue 40): depths equal a brute-force ray cast of its own,
// back-projected pixels lie on the scene's surface and on the truth mesh, the same frames on
// any thread count, noise as asked, and the truth mesh's PLY.
#include <catch2/catch.hpp>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/testdata/depth_camera.hpp"
#include "voxen/testdata/truth_mesh.hpp"

namespace {

using namespace voxen;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The first hit along a unit ray by testing every primitive, without the scene's grid: slabs
// for boxes, the quadratics for spheres and cylinder sides, planes for caps, half-spaces for
// ramps. Entry points only (the camera is in free space).
double bruteForceHit(const SyntheticScene& scene, const glm::dvec3& o, const glm::dvec3& d) {
  double best = kInf;
  const auto clip = [&](const std::vector<std::pair<glm::dvec3, double>>& planes) {  // n . p <= c
    double t0 = -kInf, t1 = kInf;
    for (const auto& [n, c] : planes) {
      const double along = glm::dot(n, d), slack = c - glm::dot(n, o);
      if (along == 0.0) {
        if (slack < 0.0) return;
        continue;
      }
      const double t = slack / along;
      if (along < 0.0) t0 = std::max(t0, t); else t1 = std::min(t1, t);
    }
    if (t0 <= t1 && t0 > 0.0) best = std::min(best, t0);
  };
  for (const SceneBox& b : scene.boxes)
    clip({{{-1, 0, 0}, -b.min.x}, {{1, 0, 0}, b.max.x}, {{0, -1, 0}, -b.min.y}, {{0, 1, 0}, b.max.y},
          {{0, 0, -1}, -b.min.z}, {{0, 0, 1}, b.max.z}});
  for (const SceneRamp& r : scene.ramps) {
    glm::dvec3 top(0.0, 0.0, 1.0);
    top[r.axis] = -r.gradient();
    clip({{{-1, 0, 0}, -r.min.x}, {{1, 0, 0}, r.max.x}, {{0, -1, 0}, -r.min.y}, {{0, 1, 0}, r.max.y},
          {{0, 0, -1}, -r.zBase}, {top, r.zStart - r.gradient() * r.min[r.axis]}});
  }
  for (const SceneSphere& s : scene.spheres) {
    const glm::dvec3 oc = o - s.centre;
    const double b = glm::dot(oc, d), c = glm::dot(oc, oc) - s.radius * s.radius, disc = b * b - c;
    if (disc >= 0.0 && -b - std::sqrt(disc) > 0.0) best = std::min(best, -b - std::sqrt(disc));
  }
  for (const SceneCylinder& cy : scene.cylinders) {
    const glm::dvec2 oc = glm::dvec2(o) - cy.centre, dd(d);
    const double a = glm::dot(dd, dd), b = glm::dot(oc, dd), c = glm::dot(oc, oc) - cy.radius * cy.radius;
    if (a > 0.0 && b * b - a * c >= 0.0) {
      const double t = (-b - std::sqrt(b * b - a * c)) / a;
      const double z = o.z + t * d.z;
      if (t > 0.0 && z >= cy.zMin && z <= cy.zMax) best = std::min(best, t);
    }
    for (double zc : {cy.zMin, cy.zMax}) {
      if (d.z == 0.0) continue;
      const double t = (zc - o.z) / d.z;
      const glm::dvec2 p = glm::dvec2(o + t * d) - cy.centre;
      if (t > 0.0 && glm::dot(p, p) <= cy.radius * cy.radius) best = std::min(best, t);
    }
  }
  return best;
}

DepthCameraConfig smallCamera() {
  DepthCameraConfig c;
  c.width = 64;
  c.height = 48;
  c.frames = 4;
  c.rateHz = 2.0;  // half a second apart: the sweep turns the camera between frames
  c.speed = 1.0;
  return c;
}

std::vector<GeneratedDepthFrame> render(const SyntheticScene& scene, const DepthCameraConfig& camera) {
  std::vector<GeneratedDepthFrame> frames;
  generateDepthFrames(scene, camera, [&](const GeneratedDepthFrame& f) { frames.push_back(f); });
  return frames;
}

glm::dvec3 backProject(const GeneratedDepthFrame& f, uint32_t u, uint32_t v, double z) {
  return f.frame.position + f.frame.orientation * (pixelDirection(f.frame.intrinsics, u, v) * z);
}

}  // namespace

TEST_CASE("depth camera: intrinsics from the field of view, the optical frame looking ahead and down", "[depthcam]") {
  DepthCameraConfig c;
  const CameraIntrinsics k = c.intrinsics();
  CHECK(k.width == 640);
  CHECK(k.height == 480);
  CHECK(k.fx == Approx(320.0 / std::tan(87.0 / 2 * M_PI / 180)).epsilon(1e-12));
  CHECK(k.fy == k.fx);
  CHECK(k.cx == 319.5);
  CHECK(k.cy == 239.5);
  // The left edge of the image (u = -0.5) is half the field of view off the axis.
  const glm::dvec3 edge = pixelDirection(k, -0.5, k.cy);
  CHECK(std::atan2(-edge.x, edge.z) * 180 / M_PI == Approx(43.5).epsilon(1e-12));

  const SyntheticScene scene = SyntheticScene::generate(1);
  const TrajectorySample pose = depthCameraPose(scene, c, 0.0);
  const TrajectorySample base = depthCameraBasePose(scene, c, 0.0);
  const glm::dvec3 forward = pose.orientation * glm::dvec3(0, 0, 1), down = pose.orientation * glm::dvec3(0, 1, 0);
  const glm::dvec3 ahead = base.orientation * glm::dvec3(1, 0, 0);
  CHECK(forward.z == Approx(-std::sin(c.pitchDeg * M_PI / 180)).margin(1e-12));
  CHECK(glm::dot(glm::dvec2(forward), glm::dvec2(ahead)) > 0.9);
  CHECK(down.z < -0.9);
  CHECK(pose.position.z == Approx(c.cameraHeight).margin(1e-12));
  CHECK(glm::length(glm::dvec2(pose.position) - glm::dvec2(base.position)) < 1e-12);
}

TEST_CASE("depth camera: every pixel's depth is the z of a brute-force ray cast's first hit", "[depthcam]") {
  // The building, and the terrain for its ramps (inclined tops, wedges).
  const bool terrain = GENERATE(false, true);
  const SyntheticScene scene = terrain ? SyntheticScene::terrain() : SyntheticScene::generate(1);
  DepthCameraConfig camera = smallCamera();
  if (terrain) camera.speed = 6.0;  // over the ramps and the bridge
  size_t compared = 0, hits = 0, mismatches = 0;
  for (const GeneratedDepthFrame& f : render(scene, camera)) {
    REQUIRE(f.trueDepth.size() == size_t(camera.width) * camera.height);
    for (uint32_t v = 0; v < camera.height; ++v)
      for (uint32_t u = 0; u < camera.width; ++u) {
        const size_t i = size_t(v) * camera.width + u;
        const glm::dvec3 local = pixelDirection(f.frame.intrinsics, u, v);
        const double t = bruteForceHit(scene, f.frame.position, f.frame.orientation * glm::normalize(local));
        double z = t / glm::length(local);
        if (!(z >= camera.minDepth && z <= camera.maxDepth)) z = 0.0;
        ++compared;
        hits += z > 0.0;
        if (std::abs(z - f.trueDepth[i]) > 1e-9) ++mismatches;
        // Without noise the 16-bit image is the true depth rounded to millimetres.
        CHECK(std::abs(f.frame.depth.depth16[i] * 0.001 - f.trueDepth[i]) <= 0.0005 + 1e-12);
        CHECK(f.measuredDepth[i] == f.trueDepth[i]);
      }
  }
  INFO((terrain ? "terrain: " : "building: ") << compared << " pixels, " << hits << " hits, " << mismatches << " differ");
  CHECK(hits > compared * (terrain ? 3 : 9) / 10);  // indoors nearly every pixel sees something within 8 m
  CHECK(mismatches == 0);
}

TEST_CASE("depth camera: back-projected pixels lie on the scene's surface and on the truth mesh", "[depthcam]") {
  const SyntheticScene scene = SyntheticScene::generate(2);
  DepthCameraConfig camera = smallCamera();
  camera.frames = 6;
  const double tolerance = 0.001;
  const TriangleMesh mesh = sceneTruthMesh(scene, tolerance);
  const auto meshDistance = [&](const glm::dvec3& p) {
    double best = kInf;
    for (const auto& t : mesh.triangles)
      best = std::min(best, pointTriangleDistance(p, mesh.vertices[t.x], mesh.vertices[t.y], mesh.vertices[t.z]));
    return best;
  };
  const auto onBox = [&](const glm::dvec3& p) {  // on a box's surface (so on a flat face of the mesh)
    for (const SceneBox& b : scene.boxes) {
      const glm::dvec3 outside = glm::max(glm::max(b.min - p, p - b.max), glm::dvec3(0.0));
      const double inside = std::min({p.x - b.min.x, b.max.x - p.x, p.y - b.min.y, b.max.y - p.y, p.z - b.min.z, b.max.z - p.z});
      if (glm::length(outside) < 1e-9 && inside < 1e-9) return true;
    }
    return false;
  };
  size_t checked = 0, flat = 0;
  double worstScene = 0.0, worstFlat = 0.0, worstCurved = 0.0;
  for (const GeneratedDepthFrame& f : render(scene, camera)) {
    for (uint32_t v = 0; v < camera.height; v += 3)
      for (uint32_t u = f.index % 3; u < camera.width; u += 3) {
        const double z = f.trueDepth[size_t(v) * camera.width + u];
        if (z == 0.0) continue;
        const glm::dvec3 p = backProject(f, u, v, z);
        worstScene = std::max(worstScene, scene.distanceToSurface(p));
        if (checked++ % 4 != 0) continue;  // the mesh distance is brute force: every fourth point
        const double d = meshDistance(p);
        if (onBox(p)) {
          ++flat;
          worstFlat = std::max(worstFlat, d);
        } else {
          worstCurved = std::max(worstCurved, d);
        }
      }
  }
  INFO(checked << " points, " << flat << " on boxes; worst: scene " << worstScene << ", mesh (flat) " << worstFlat
               << ", mesh (curved) " << worstCurved);
  CHECK(checked > 1000);
  CHECK(flat > 100);
  CHECK(worstScene < 1e-6);
  CHECK(worstFlat < 1e-6);
  CHECK(worstCurved <= tolerance + 1e-9);
}

TEST_CASE("depth camera: the same frames on any thread count; noise follows its seed", "[depthcam]") {
  const SyntheticScene scene = SyntheticScene::generate(3);
  DepthCameraConfig camera = smallCamera();
  camera.depthNoiseStdDev = 0.01;
  camera.threads = 1;
  const auto one = render(scene, camera);
  camera.threads = 5;
  const auto five = render(scene, camera);
  REQUIRE(one.size() == five.size());
  for (size_t i = 0; i < one.size(); ++i) {
    CHECK(one[i].frame.depth.depth16 == five[i].frame.depth.depth16);
    CHECK(one[i].measuredDepth == five[i].measuredDepth);
    CHECK(one[i].frame.position == five[i].frame.position);
    CHECK(one[i].stampNs == five[i].stampNs);
  }
  // The noise: about the standard deviation asked for, unbiased, different for another seed.
  double sum = 0.0, sum2 = 0.0;
  size_t n = 0;
  for (const auto& f : one)
    for (size_t i = 0; i < f.trueDepth.size(); ++i)
      if (f.trueDepth[i] > 0.0 && f.measuredDepth[i] > 0.0) {
        const double e = f.measuredDepth[i] - f.trueDepth[i];
        sum += e;
        sum2 += e * e;
        ++n;
      }
  REQUIRE(n > 5000);
  CHECK(std::abs(sum / n) < 0.001);
  CHECK(std::sqrt(sum2 / n) == Approx(0.01).epsilon(0.05));
  camera.seed = 4;
  const auto other = render(scene, camera);
  CHECK(other[0].measuredDepth != one[0].measuredDepth);
  CHECK(other[0].trueDepth == one[0].trueDepth);
}

TEST_CASE("truth mesh: closed boxes, curves within the tolerance, a PLY that reads back, uniform samples", "[depthcam]") {
  SyntheticScene scene;
  scene.boxes.push_back({{0, 0, 0}, {1, 2, 3}});
  scene.cylinders.push_back({{5, 0}, 0.5, 0.0, 2.0});
  scene.spheres.push_back({{0, 5, 1}, 0.4});
  scene.buildAccelerator();
  const TriangleMesh mesh = sceneTruthMesh(scene, 0.001);
  // The box: 12 triangles, area 2 (1x2 + 1x3 + 2x3) = 22.
  TriangleMesh box;
  box.vertices = mesh.vertices;
  box.triangles.assign(mesh.triangles.begin(), mesh.triangles.begin() + 12);
  CHECK(box.area() == Approx(22.0).epsilon(1e-12));
  // Curved surfaces: every sample of the true surface within 1 mm of the mesh, and the
  // mesh's area close to the true one (inscribed, so a little less).
  const double trueArea = 22.0 + (2 * M_PI * 0.5 * 2.0 + 2 * M_PI * 0.25) + 4 * M_PI * 0.16;
  CHECK(mesh.area() < trueArea);
  CHECK(mesh.area() > trueArea * 0.995);
  for (int i = 0; i < 200; ++i) {
    const double a = 2 * M_PI * i / 200.0 + 0.001, b = M_PI * (i % 17) / 17.0 - M_PI / 2 + 0.01;
    const glm::dvec3 onSphere = glm::dvec3(0, 5, 1) + 0.4 * glm::dvec3(std::cos(b) * std::cos(a), std::cos(b) * std::sin(a), std::sin(b));
    const glm::dvec3 onCylinder(5 + 0.5 * std::cos(a), 0.5 * std::sin(a), 2.0 * (i % 11) / 10.0);
    for (const glm::dvec3& p : {onSphere, onCylinder}) {
      double best = kInf;
      for (const auto& t : mesh.triangles)
        best = std::min(best, pointTriangleDistance(p, mesh.vertices[t.x], mesh.vertices[t.y], mesh.vertices[t.z]));
      CHECK(best <= 0.001 + 1e-12);
    }
  }
  // Outward-facing triangles: the normal points away from the primitive's centre.
  for (size_t i = 0; i < 12; ++i) {
    const auto& t = mesh.triangles[i];
    const glm::dvec3 n = glm::cross(mesh.vertices[t.y] - mesh.vertices[t.x], mesh.vertices[t.z] - mesh.vertices[t.x]);
    CHECK(glm::dot(n, mesh.vertices[t.x] - glm::dvec3(0.5, 1.0, 1.5)) > 0.0);
  }

  vt::TempDir dir("truth-mesh");
  const uint64_t bytes = writeMeshPly(dir / "truth.ply", mesh);
  std::ifstream in(dir / "truth.ply", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.size() == bytes);
  const size_t end = text.find("end_header\n");
  REQUIRE(end != std::string::npos);
  CHECK(text.find("element vertex " + std::to_string(mesh.vertices.size()) + "\n") < end);
  CHECK(text.find("element face " + std::to_string(mesh.triangles.size()) + "\n") < end);
  CHECK(text.size() == end + 11 + mesh.vertices.size() * 12 + mesh.triangles.size() * 13);

  // Samples: on the mesh, spread by area (the box holds 22 of the mesh's area).
  const auto points = sampleMeshSurface(mesh, 20000, 7);
  CHECK(points == sampleMeshSurface(mesh, 20000, 7));
  size_t onBox = 0;
  for (const glm::dvec3& p : points) onBox += p.x <= 1.0 + 1e-9 && p.y <= 2.0 + 1e-9 && p.x >= -1e-9 && p.y >= -1e-9;
  CHECK(double(onBox) / points.size() == Approx(22.0 / mesh.area()).margin(0.015));
}

TEST_CASE("depth camera: bad configurations name their field", "[depthcam]") {
  const SyntheticScene scene = SyntheticScene::generate(1);
  const auto field = [&](DepthCameraConfig c) -> std::string {
    try {
      generateDepthFrames(scene, c, [](const GeneratedDepthFrame&) {});
    } catch (const SettingError& e) {
      return e.field();
    }
    return "";
  };
  DepthCameraConfig c = smallCamera();
  c.width = 0;
  CHECK(field(c) == "DepthCameraConfig::width");
  c = smallCamera();
  c.horizontalFovDeg = 180;
  CHECK(field(c) == "DepthCameraConfig::horizontalFovDeg");
  c = smallCamera();
  c.maxDepth = 0.1;
  CHECK(field(c) == "DepthCameraConfig::maxDepth");
  c = smallCamera();
  c.depthNoiseStdDev = std::nan("");
  CHECK(field(c) == "DepthCameraConfig::depthNoiseStdDev");
  c = smallCamera();
  c.cameraHeight = 3.5;  // above the 3 m ceiling
  CHECK(field(c) == "DepthCameraConfig::cameraHeight");
  CHECK_THROWS(sceneTruthMesh(scene, 0.0));
}
