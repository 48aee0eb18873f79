#pragma once
// Running the GPU integrator and the CPU reference on the same rays in the tests, and
// comparing their maps voxel by voxel (bits, class, layers).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace vt::occupancy {

using namespace voxen;

struct Comparison {
  uint64_t voxels = 0, sameBits = 0, sameClass = 0, singleKind = 0, singleKindSame = 0;
  uint64_t layerMismatches = 0, traversalMismatches = 0;
};

inline Comparison compareMaps(const OccupancyMap& a, const OccupancyMap& b) {
  Comparison c;
  std::vector<RegionKey> keys;
  for (const auto& [key, r] : a.regions()) keys.push_back(key);
  for (const auto& [key, r] : b.regions())
    if (!a.findRegion(key)) keys.push_back(key);
  const Region emptyA = a.makeRegion({}), emptyB = b.makeRegion({});
  for (const RegionKey& key : keys) {
    const Region* ra = a.findRegion(key);
    const Region* rb = b.findRegion(key);
    if (!ra) ra = &emptyA;
    if (!rb) rb = &emptyB;
    for (size_t i = 0; i < ra->occupancy().size(); ++i) {
      const float va = ra->occupancy()[i], vb = rb->occupancy()[i];
      if (!isObserved(va) && !isObserved(vb)) continue;
      ++c.voxels;
      uint32_t ba, bb;
      std::memcpy(&ba, &va, 4);
      std::memcpy(&bb, &vb, 4);
      c.sameBits += ba == bb;
      c.sameClass += a.classify(va) == b.classify(vb);
      if (!ra->hitMiss().empty()) {
        const bool single = ra->hitMiss()[i].hits == 0 || ra->hitMiss()[i].misses == 0;
        c.singleKind += single;
        c.singleKindSame += single && ba == bb;
        c.layerMismatches += ra->hitMiss()[i].hits != rb->hitMiss()[i].hits || ra->hitMiss()[i].misses != rb->hitMiss()[i].misses;
      }
      if (!ra->mean().empty()) c.layerMismatches += !(ra->mean()[i] == rb->mean()[i]);
      if (!ra->touchTime().empty()) c.layerMismatches += ra->touchTime()[i] != rb->touchTime()[i];
      if (!ra->traversal().empty()) {
        const double ta = double(ra->traversal()[i]), tb = double(rb->traversal()[i]);
        const uint64_t updates = ra->hitMiss().empty() ? 1 : ra->hitMiss()[i].hits + ra->hitMiss()[i].misses;
        c.traversalMismatches += std::abs(ta - tb) > 1e-5 * ta + 2.0 * double(updates);
      }
    }
  }
  return c;
}

constexpr uint32_t kAllLayers = kLayerVoxelMean | kLayerTraversal | kLayerHitMiss | kLayerTouchTime;

struct Run {
  OccupancyMap map;
  IntegrationStats stats;
};

inline Run runGpu(const std::vector<Ray>& rays, IntegrationOptions options, OccupancyModel model = {}, uint32_t layers = kAllLayers,
           GpuIntegratorOptions gpuOptions = {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16}) {
  Run run{OccupancyMap(model, layers), {}};
  GpuIntegrator gpu(vt::gpu().scheduler, run.map, options, gpuOptions);
  gpu.integrate(rays);
  gpu.finish();
  run.stats = gpu.stats();
  return run;
}

inline Run runCpu(const std::vector<Ray>& rays, IntegrationOptions options, OccupancyModel model = {}, uint32_t layers = kAllLayers,
           size_t batch = 1u << 16) {
  Run run{OccupancyMap(model, layers), {}};
  CpuIntegrator cpu(run.map, options);
  for (size_t i = 0; i < rays.size(); i += batch)
    cpu.integrate(std::span<const Ray>(rays).subspan(i, std::min(batch, rays.size() - i)));
  run.stats = cpu.stats();
  return run;
}

inline void requireIdentical(const Run& gpu, const Run& cpu) {
  const Comparison c = compareMaps(gpu.map, cpu.map);
  INFO("voxels " << c.voxels << ", same bits " << c.sameBits << ", layer mismatches " << c.layerMismatches
                 << ", traversal mismatches " << c.traversalMismatches);
  REQUIRE(gpu.stats.droppedUpdates == 0);
  CHECK(c.voxels > 1000);
  CHECK(c.sameBits == c.voxels);
  CHECK(c.layerMismatches == 0);
  CHECK(c.traversalMismatches == 0);
  CHECK(gpu.stats.voxelUpdates == cpu.stats.voxelUpdates);
}

// A generated lidar run small enough for the suite: a 32 x 512 lidar moving through the
// rooms and corridor of SyntheticScene::generate(3), `scans` sweeps (16,384 rays each),
// with no-return rays.
inline std::vector<Ray> smallLidarRun(int scans) {
  LidarConfig lidar;
  lidar.rings = 32;
  lidar.columns = 512;
  lidar.scans = scans;
  std::vector<uint8_t> noReturn;
  return generateLidarRays(SyntheticScene::generate(3), lidar, &noReturn);
}

}  // namespace vt::occupancy
