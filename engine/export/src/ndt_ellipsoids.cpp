#include "voxen/export/ndt_ellipsoids.hpp"

#include <glm/geometric.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "voxen/gpu/map/ndt_layers.h"
#include "export_helpers.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen {

using detail::appendLE;
using detail::sortedRegions;

namespace {

UnitSphereMesh buildIcosphere() {
  UnitSphereMesh m;
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  const double base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                              {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  for (const auto& v : base) m.vertices.push_back(glm::normalize(glm::dvec3(v[0], v[1], v[2])));
  const uint32_t faces[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                                 {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  // One subdivision: every edge's midpoint, pushed onto the sphere, shared by its two faces.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> midpoints;
  auto midpoint = [&](uint32_t a, uint32_t b) {
    const auto key = std::minmax(a, b);
    const auto found = midpoints.find(key);
    if (found != midpoints.end()) return found->second;
    m.vertices.push_back(glm::normalize(m.vertices[a] + m.vertices[b]));
    const uint32_t index = uint32_t(m.vertices.size() - 1);
    midpoints.emplace(key, index);
    return index;
  };
  for (const auto& f : faces) {
    const uint32_t ab = midpoint(f[0], f[1]), bc = midpoint(f[1], f[2]), ca = midpoint(f[2], f[0]);
    m.triangles.push_back({f[0], ab, ca});
    m.triangles.push_back({f[1], bc, ab});
    m.triangles.push_back({f[2], ca, bc});
    m.triangles.push_back({ab, bc, ca});
  }
  return m;
}

struct Ellipsoid {
  glm::dvec3 mean;  // metres, absolute
  gpu::NdtCovariance s;
  float occupancy;
};

}  // namespace

const UnitSphereMesh& unitIcosphere() {
  static const UnitSphereMesh mesh = buildIcosphere();
  return mesh;
}

void occupancyColour(double p, uint8_t rgb[3]) {
  p = std::clamp(std::isfinite(p) ? p : 0.5, 0.0, 1.0);
  const double toWhite = p < 0.5 ? p / 0.5 : (1.0 - p) / 0.5;  // 1 at 0.5, 0 at either end
  const uint8_t fade = uint8_t(std::lround(255.0 * toWhite));
  if (p < 0.5) {
    rgb[0] = fade, rgb[1] = fade, rgb[2] = 255;
  } else {
    rgb[0] = 255, rgb[1] = fade, rgb[2] = fade;
  }
}

namespace {

// x = mean + sigma * S u for each vertex of the unit sphere, S lower triangular (row by row
// s00; s10 s11; s20 s21 s22).
glm::dvec3 ellipsoidVertex(const Ellipsoid& e, double sigma, const glm::dvec3& u) {
  const glm::dvec3 su(e.s.s00 * u.x, e.s.s10 * u.x + e.s.s11 * u.y, e.s.s20 * u.x + e.s.s21 * u.y + e.s.s22 * u.z);
  return e.mean + sigma * su;
}

// Whether every vertex is finite in the type the file stores.
bool finiteVertices(const Ellipsoid& e, double sigma, bool doublePrecision) {
  const double limit = doublePrecision ? std::numeric_limits<double>::max() : double(std::numeric_limits<float>::max());
  for (const glm::dvec3& u : unitIcosphere().vertices) {
    const glm::dvec3 x = ellipsoidVertex(e, sigma, u);
    for (int a = 0; a < 3; ++a)
      if (!(std::abs(x[a]) <= limit)) return false;
  }
  return true;
}

}  // namespace

ExportCounts exportNdtEllipsoidsPly(const OccupancyMap& map, const std::filesystem::path& path, const EllipsoidOptions& options) {
  const std::optional<LayerId> covarianceLayer = findLayer("ndt_covariance");
  if (!covarianceLayer || !map.layout().has(*covarianceLayer) || !map.layout().has(kVoxelMeanLayer))
    throw SettingError(SettingError::Kind::Change, "NdtModel::mode", "NdtModel::mode set to NdtMode::Om",
                       "the map has no NDT layers (it has " + map.layout().names() +
                           "): map the cloud with {} to keep a Gaussian per voxel");
  if (!(options.sigma > 0.0 && options.sigma <= 100.0)) throw Error("ellipsoids: sigma must be in (0, 100]");
  const std::vector<const Region*> regions = sortedRegions(map);

  const double res = map.model().resolution;
  std::vector<Ellipsoid> ellipsoids;
  uint64_t nonFinite = 0;
  for (const Region* r : regions) {
    const auto mean = r->mean();
    const auto cov = r->values<gpu::NdtCovariance>(*covarianceLayer);
    for (uint32_t i = 0; i < mean.size(); ++i) {
      if (mean[i].count < std::max(options.minSamples, 1u) || !(cov[i].s00 > 0.0f)) continue;
      const VoxelCoord v = map.voxelOf(r->key, i);
      glm::dvec3 m(v.x, v.y, v.z);
      for (int a = 0; a < 3; ++a) m[a] = (m[a] + (double(mean[i].sum[a]) / mean[i].count + 0.5) / 1024.0) * res;
      const Ellipsoid e{m, cov[i], r->occupancy()[i]};
      if (!finiteVertices(e, options.sigma, options.doublePrecision)) {
        ++nonFinite;
        continue;
      }
      ellipsoids.push_back(e);
    }
  }

  const UnitSphereMesh& sphere = unitIcosphere();
  const uint64_t vertexCount = ellipsoids.size() * sphere.vertices.size();
  const uint64_t faceCount = ellipsoids.size() * sphere.triangles.size();
  if (vertexCount > uint64_t(INT32_MAX))
    throw SettingError(SettingError::Kind::Change, "EllipsoidOptions::minSamples", "the samples a voxel needs",
                       "ellipsoids: too many for 32-bit vertex indices (" + std::to_string(ellipsoids.size()) + "); raise {}",
                       std::to_string(options.minSamples));
  const char* coordType = options.doublePrecision ? "double" : "float";
  std::string header = "ply\nformat binary_little_endian 1.0\n";
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%g", options.sigma);
  header += std::string("comment written by voxen: NDT Gaussians as ") + sigma +
            "-sigma ellipsoids, coloured by occupancy probability (blue free, white 0.5, red occupied)\n";
  header += "element vertex " + std::to_string(vertexCount) + "\n";
  for (const char* axis : {"x", "y", "z"}) header += std::string("property ") + coordType + " " + axis + "\n";
  header += "property uchar red\nproperty uchar green\nproperty uchar blue\n";
  header += "element face " + std::to_string(faceCount) + "\nproperty list uchar int vertex_indices\nend_header\n";

  detail::AtomicFileWriter out(path, "PLY");
  out.write(header.data(), header.size());
  std::vector<uint8_t> buffer;
  buffer.reserve(1 << 20);
  auto flushIfFull = [&] {
    if (buffer.size() >= (1 << 20) - 1024) {
      out.write(buffer.data(), buffer.size());
      buffer.clear();
    }
  };
  for (const Ellipsoid& e : ellipsoids) {
    uint8_t rgb[3];
    occupancyColour(isObserved(e.occupancy) ? 1.0 - 1.0 / (1.0 + std::exp(double(e.occupancy))) : 0.5, rgb);
    for (const glm::dvec3& u : sphere.vertices) {
      const glm::dvec3 x = ellipsoidVertex(e, options.sigma, u);
      if (options.doublePrecision) appendLE(buffer, x.x), appendLE(buffer, x.y), appendLE(buffer, x.z);
      else appendLE(buffer, float(x.x)), appendLE(buffer, float(x.y)), appendLE(buffer, float(x.z));
      buffer.insert(buffer.end(), rgb, rgb + 3);
      flushIfFull();
    }
  }
  const uint32_t perEllipsoid = uint32_t(sphere.vertices.size());
  for (uint64_t k = 0; k < ellipsoids.size(); ++k) {
    const int32_t base = int32_t(k * perEllipsoid);
    for (const auto& t : sphere.triangles) {
      buffer.push_back(3);
      for (uint32_t corner : t) appendLE(buffer, int32_t(base + int32_t(corner)));
      flushIfFull();
    }
  }
  out.write(buffer.data(), buffer.size());
  out.commit();
  return {ellipsoids.size(), nonFinite};
}

}  // namespace voxen
