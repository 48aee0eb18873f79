#pragma once
// Running the GPU integrator and the CPU reference on the same rays in the tests, and
// comparing their maps voxel by voxel (bits, class, layers).
#include <catch2/catch.hpp>

#include <algorithm>
#include <span>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "voxen/check/map_comparison.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace vt::occupancy {

using namespace voxen;

// The library's voxel-by-voxel comparison (voxen/check/map_comparison.hpp), as the tests name it.
using Comparison = MapComparison;

constexpr LayerSet kAllLayers = kAllBuiltinLayers;

struct Run {
  OccupancyMap map;
  IntegrationStats stats;
};

inline Run runGpu(const std::vector<Ray>& rays, IntegrationOptions options, OccupancyModel model = {}, LayerSet layers = kAllLayers,
           GpuIntegratorOptions gpuOptions = {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16}) {
  Run run{OccupancyMap(model, layers), {}};
  GpuIntegrator gpu(vt::gpu().scheduler, run.map, options, gpuOptions);
  gpu.integrate(rays);
  gpu.finish();
  run.stats = gpu.stats();
  return run;
}

inline Run runCpu(const std::vector<Ray>& rays, IntegrationOptions options, OccupancyModel model = {}, LayerSet layers = kAllLayers,
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

// Two GPU runs of the same rays whose maps must match bit for bit (another batching of the
// same work, another path to the same order).
inline void requireSameMapBits(const Run& a, const Run& b) {
  const Comparison c = compareMaps(a.map, b.map);
  INFO("voxels " << c.voxels << ", same bits " << c.sameBits << ", layer mismatches " << c.layerMismatches);
  CHECK(c.voxels > 1000);
  CHECK(c.sameBits == c.voxels);
  CHECK(c.layerMismatches == 0);
  CHECK(c.traversalMismatches == 0);
  CHECK(a.stats.voxelUpdates == b.stats.voxelUpdates);
  CHECK(a.stats.rays == b.stats.rays);
  CHECK(a.map.regions().size() == b.map.regions().size());
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
