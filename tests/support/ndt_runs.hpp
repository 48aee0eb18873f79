#pragma once
// NDT runs for the tests: maps with the NDT layers, the CPU reference and the GPU integrator
// on the same rays and batches, a voxel's Gaussian read back, and rays whose samples are
// drawn from a known Gaussian.
#include <glm/mat3x3.hpp>
#include <glm/vec3.hpp>

#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "support/occupancy_runs.hpp"
#include "voxen/gpu/occupancy/ndt_shared.h"
#include "voxen/occupancy/ndt.hpp"

namespace vt::ndt {

using namespace voxen;

inline NdtModel ndtModel(NdtMode mode, uint32_t foldLimit = NdtModel().foldLimit) {
  NdtModel m;
  m.mode = mode;
  m.foldLimit = foldLimit;
  return m;
}

inline IntegrationOptions ndtOptions(NdtMode mode, UpdateOrder order = UpdateOrder::TwoPhase,
                                     uint32_t foldLimit = NdtModel().foldLimit) {
  IntegrationOptions o;
  o.order = order;
  o.ndt = ndtModel(mode, foldLimit);
  return o;
}

inline occupancy::Run runNdtCpu(const std::vector<Ray>& rays, IntegrationOptions options, OccupancyModel model,
                                size_t batch, LayerSet layers = {}) {
  occupancy::Run run{OccupancyMap(model, ndtLayout(options.ndt.mode, MapLayout::of(layers))), {}};
  CpuIntegrator cpu(run.map, options);
  for (size_t i = 0; i < rays.size(); i += batch)
    cpu.integrate(std::span<const Ray>(rays).subspan(i, std::min(batch, rays.size() - i)));
  run.stats = cpu.stats();
  return run;
}

inline occupancy::Run runNdtGpu(const std::vector<Ray>& rays, IntegrationOptions options, OccupancyModel model,
                                uint32_t batch, LayerSet layers = {}, uint64_t cacheBytes = 256ull << 20) {
  occupancy::Run run{OccupancyMap(model, ndtLayout(options.ndt.mode, MapLayout::of(layers))), {}};
  GpuIntegrator gpu(vt::gpu().scheduler, run.map, options, {.cacheBytes = cacheBytes, .maxRaysPerBatch = batch});
  gpu.integrate(rays);
  gpu.finish();
  run.stats = gpu.stats();
  return run;
}

// A voxel's Gaussian as the map holds it (metres, in the voxel's frame).
struct Gaussian {
  uint32_t count = 0;
  glm::dvec3 mean{0.0};
  glm::dmat3 covariance{0.0};  // P = S S^T
};

inline Gaussian gaussianOf(const OccupancyMap& map, const VoxelCoord& v) {
  Gaussian g;
  const Region* region = map.findRegion(map.regionOf(v));
  if (!region) return g;
  const uint32_t i = map.localIndex(v);
  const VoxelMean& mean = region->mean()[i];
  const gpu::NdtCovariance& c = region->values<gpu::NdtCovariance>(ndtCovarianceLayer())[i];
  g.count = mean.count;
  const double res = map.model().resolution;
  if (mean.count > 0)
    for (int a = 0; a < 3; ++a) g.mean[a] = (double(mean.sum[a]) / mean.count + 0.5) / 1024.0 * res;
  g.covariance = ndtCovarianceMatrix(c);
  return g;
}

inline double largestEntry(const glm::dmat3& m) {
  double largest = 0.0;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) largest = std::max(largest, std::abs(m[c][r]));
  return largest;
}

inline double largestDifference(const glm::dmat3& a, const glm::dmat3& b) { return largestEntry(a - b); }

// `count` rays from sensors all around voxel (0,0,0) of a 1 m map, whose samples are drawn
// from N(mean, L L^T) and kept inside the voxel (redrawn otherwise, which with these
// deviations truncates nothing measurable).
struct GaussianCloud {
  glm::dvec3 mean{0.5, 0.45, 0.55};
  glm::dmat3 factor;  // L, lower triangular: covariance = L L^T
  std::vector<Ray> rays;
  glm::dmat3 covariance() const { return factor * glm::transpose(factor); }
};

inline GaussianCloud gaussianCloud(size_t count, uint64_t seed) {
  GaussianCloud cloud;
  glm::dmat3 l(0.0);
  l[0][0] = 0.08;  // sx
  l[0][1] = 0.03;  // correlated y
  l[1][1] = 0.05;
  l[0][2] = -0.01;
  l[1][2] = 0.015;
  l[2][2] = 0.03;
  cloud.factor = l;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  while (cloud.rays.size() < count) {
    const glm::dvec3 z(normal(rng), normal(rng), normal(rng));
    const glm::dvec3 p = cloud.mean + l * z;
    if (glm::any(glm::lessThan(p, glm::dvec3(0.0))) || glm::any(glm::greaterThanEqual(p, glm::dvec3(1.0)))) continue;
    glm::dvec3 dir(normal(rng), normal(rng), normal(rng));
    Ray ray;
    ray.origin = p + 3.0 * glm::normalize(dir);
    ray.sample = p;
    ray.intensity = float(10.0 + normal(rng));
    cloud.rays.push_back(ray);
  }
  return cloud;
}

// The biased sample covariance (1/n) of the samples as the map quantises them.
inline Gaussian exactGaussian(const std::vector<Ray>& rays, double resolution) {
  Gaussian g;
  std::vector<glm::dvec3> points;
  for (const Ray& r : rays) {
    glm::dvec3 q;
    for (int a = 0; a < 3; ++a) {
      const double offset = r.sample[a] / resolution - std::floor(r.sample[a] / resolution);
      q[a] = (std::min(1023.0, std::floor(offset * 1024.0)) + 0.5) / 1024.0 * resolution;
    }
    points.push_back(q);
    g.mean += q;
  }
  g.count = uint32_t(points.size());
  g.mean /= double(points.size());
  for (const glm::dvec3& p : points) g.covariance += glm::outerProduct(p - g.mean, p - g.mean);
  g.covariance /= double(points.size());
  return g;
}

}  // namespace vt::ndt
