// NDT maps for people and tools: the ellipsoid mesh export (each vertex on the voxel's
// k-sigma surface, colours by occupancy, counts in the header), the refusal of maps without
// Gaussians, and the Gaussians' summary that voxen info prints.
#include <catch2/catch.hpp>

#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "support/ndt_runs.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/export/ndt_ellipsoids.hpp"

namespace {

using namespace voxen;
using namespace vt::ndt;

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Two Gaussians: voxel (0,0,0) from 2000 samples, voxel (1,0,0) from 300 others, on a 1 m map.
OccupancyMap twoGaussians() {
  OccupancyModel model;
  model.resolution = 1.0;
  std::vector<Ray> rays = gaussianCloud(2000, 21).rays;
  for (Ray r : gaussianCloud(300, 22).rays) {
    r.origin.x += 1.0, r.sample.x += 1.0;
    rays.push_back(r);
  }
  return runNdtCpu(rays, ndtOptions(NdtMode::Om, UpdateOrder::Sequential), model, rays.size()).map;
}

TEST_CASE("NDT ellipsoids: every vertex lies on its voxel's k-sigma surface; counts and colours", "[ndt]") {
  const OccupancyMap map = twoGaussians();
  vt::TempDir dir("ellipsoids");
  EllipsoidOptions options;
  options.sigma = 1.5;
  REQUIRE(exportNdtEllipsoidsPly(map, dir.path() / "e.ply", options).written == 2);
  const std::string bytes = readFile(dir.path() / "e.ply");
  const size_t end = bytes.find("end_header\n");
  REQUIRE(end != std::string::npos);
  const std::string header = bytes.substr(0, end);
  CHECK(header.find("element vertex 84\n") != std::string::npos);
  CHECK(header.find("element face 160\n") != std::string::npos);
  CHECK(header.find("property list uchar int vertex_indices") != std::string::npos);
  const char* body = bytes.data() + end + std::strlen("end_header\n");
  const size_t vertexBytes = 3 * 4 + 3, faceBytes = 1 + 3 * 4;
  REQUIRE(bytes.size() == size_t(body - bytes.data()) + 84 * vertexBytes + 160 * faceBytes);
  // Regions in key order, voxels x fastest: voxel (0,0,0) first.
  for (int e = 0; e < 2; ++e) {
    const Gaussian g = gaussianOf(map, {e, 0, 0});
    const glm::dmat3 inverse = glm::inverse(g.covariance);
    const glm::dvec3 mean = g.mean + glm::dvec3(e, 0, 0);
    double worst = 0.0;
    for (int k = 0; k < 42; ++k) {
      float x[3];
      std::memcpy(x, body + (e * 42 + k) * vertexBytes, sizeof x);
      const glm::dvec3 d = glm::dvec3(x[0], x[1], x[2]) - mean;
      worst = std::max(worst, std::abs(glm::dot(d, inverse * d) / (1.5 * 1.5) - 1.0));
      const uint8_t* rgb = reinterpret_cast<const uint8_t*>(body + (e * 42 + k) * vertexBytes + 12);
      CHECK(rgb[0] == 255);  // occupied: red
      CHECK(rgb[1] < 60);
    }
    INFO("ellipsoid " << e << ": largest relative error of the Mahalanobis distance " << worst);
    CHECK(worst < 1e-3);
  }
  // Faces: 3 indices each, within the ellipsoid's own 42 vertices.
  const char* faces = body + 84 * vertexBytes;
  bool within = true;
  for (int f = 0; f < 160; ++f) {
    CHECK(uint8_t(faces[f * faceBytes]) == 3);
    int32_t index[3];
    std::memcpy(index, faces + f * faceBytes + 1, sizeof index);
    const int32_t base = f < 80 ? 0 : 42;
    for (int32_t i : index) within = within && i >= base && i < base + 42;
  }
  CHECK(within);
  // --min-samples above the smaller Gaussian's count leaves it out.
  options.minSamples = 1000;
  CHECK(exportNdtEllipsoidsPly(map, dir.path() / "big.ply", options).written == 1);
}

TEST_CASE("NDT ellipsoids stay finite: a Gaussian with a non-finite or overflowing vertex is left out and counted",
          "[ndt][errors]") {
  OccupancyMap map = twoGaussians();
  vt::TempDir dir("ellipsoids");
  gpu::NdtCovariance& second = map.region({0, 0, 0}).values<gpu::NdtCovariance>(ndtCovarianceLayer())[1];
  auto vertexCount = [&](const std::filesystem::path& path) {
    const std::string header = readFile(path).substr(0, 400);
    return header.substr(header.find("element vertex ") + 15, header.find('\n', header.find("element vertex ")) - header.find("element vertex ") - 15);
  };
  SECTION("NaN") {
    second.s10 = std::nanf("");
    const ExportCounts counts = exportNdtEllipsoidsPly(map, dir.path() / "e.ply");
    CHECK(counts.written == 1);
    CHECK(counts.nonFinite == 1);
    CHECK(vertexCount(dir.path() / "e.ply") == "42");
  }
  SECTION("finite but past a float's range at 2 sigma; a double holds it") {
    second.s00 = 3e38f;
    const ExportCounts asFloat = exportNdtEllipsoidsPly(map, dir.path() / "e.ply");
    CHECK(asFloat.written == 1);
    CHECK(asFloat.nonFinite == 1);
    EllipsoidOptions options;
    options.doublePrecision = true;
    const ExportCounts asDouble = exportNdtEllipsoidsPly(map, dir.path() / "d.ply", options);
    CHECK(asDouble.written == 2);
    CHECK(asDouble.nonFinite == 0);
  }
}

TEST_CASE("NDT ellipsoids: the unit icosphere is closed and outward", "[ndt]") {
  const UnitSphereMesh& m = unitIcosphere();
  REQUIRE(m.vertices.size() == 42);
  REQUIRE(m.triangles.size() == 80);
  double volume = 0.0;  // divergence theorem: positive and close to 4/3 pi for a closed outward mesh
  for (const auto& t : m.triangles)
    volume += glm::dot(m.vertices[t[0]], glm::cross(m.vertices[t[1]], m.vertices[t[2]])) / 6.0;
  CHECK(volume > 3.5);
  CHECK(volume < 4.19);
  uint8_t rgb[3];
  occupancyColour(0.0, rgb);
  CHECK((rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 255));
  occupancyColour(0.5, rgb);
  CHECK((rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255));
  occupancyColour(1.0, rgb);
  CHECK((rgb[0] == 255 && rgb[1] == 0 && rgb[2] == 0));
}

TEST_CASE("NDT ellipsoids: a map without Gaussians is refused and nothing is written", "[ndt][errors]") {
  const OccupancyMap plain(OccupancyModel{}, LayerSet{kVoxelMeanLayer});
  vt::TempDir dir("ellipsoids");
  // The remedy is named by the API's field, which the voxen tool words as its command line.
  try {
    exportNdtEllipsoidsPly(plain, dir.path() / "e.ply");
    FAIL("a map without NDT layers was exported");
  } catch (const voxen::SettingError& e) {
    CHECK(e.field() == "NdtModel::mode");
    CHECK_THAT(e.what(), Catch::Contains("no NDT layers") && Catch::Contains("NdtMode::Om") && !Catch::Contains("--"));
    CHECK_THAT(e.naming("`voxen map --ndt om`"), Catch::Contains("map the cloud with `voxen map --ndt om`"));
  }
  CHECK_FALSE(std::filesystem::exists(dir.path() / "e.ply"));
}

TEST_CASE("NDT summary: Gaussians counted and their extent measured", "[ndt]") {
  const OccupancyMap map = twoGaussians();
  const NdtSummary s = ndtSummary(map);
  CHECK(s.gaussians == 2);
  CHECK(s.aboveThreshold == 2);
  // The clouds' largest 1-sigma axis is about 0.086 m (their covariance's largest eigenvalue).
  CHECK(s.medianExtent == Approx(0.086).margin(0.01));
  CHECK(ndtSummary(OccupancyMap(OccupancyModel{})).gaussians == 0);
}

}  // namespace
