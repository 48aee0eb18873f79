// Clearance on the GPU against the CPU reference's exact transform, on an occupancy map of
// a generated lidar run: the exact technique bit for bit (in batches of a few blocks, so
// that regions are evicted and reloaded between them), with unknown space as obstacles and
// as free space with a scaled axis; the propagation techniques (ROI, neighbour, open list)
// within their stated bounds (voxen/check/clearance_comparison.hpp).
#include <algorithm>
#include <chrono>
#include <cstring>

#include "check_row.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/check/clearance_comparison.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

OccupancyMap lidarMap(const CheckContext& context) {
  LidarConfig lidar;
  lidar.rings = context.sized(32, 64);
  lidar.columns = context.sized(512, 1024);
  lidar.scans = context.sized(2, 20);
  lidar.speed = context.sized(1.0, 4.0);  // further along the corridor: more regions
  OccupancyModel model;  // 3.2 m regions: dozens of them, more than the exact rows' cache holds
  model.resolution = 0.1;
  OccupancyMap map(model);
  CpuIntegrator(map).integrate(generateLidarRays(SyntheticScene::generate(3), lidar));
  return map;
}

// The check's switch: the exact rows get one bit of one voxel's clearance flipped; the
// propagation rows, whose bounds allow small errors, one voxel's obstacle moved three
// voxels further away (the computed value is then nearer than the exact one: never allowed).
void breakOneValue(OccupancyMap& map, bool exact) {
  for (const auto& [key, r] : map.regions())
    for (float& value : map.region(key).values<float>(clearanceLayer())) {
      if (!(value > 0.0f)) continue;
      if (exact) {
        uint32_t bits;
        std::memcpy(&bits, &value, 4);
        bits ^= 1u;
        std::memcpy(&value, &bits, 4);
      } else {
        value += 3.0f * float(map.model().resolution);
      }
      return;
    }
}

struct Variant {
  std::string name;
  ClearanceOptions options;
};

void runVariant(CheckContext& context, const OccupancyMap& base, const Variant& variant) {
  runRow(context, "clearance", variant.name, [&](RowResult& row) {
    const ClearanceOptions& options = variant.options;
    const bool exact = options.technique == ClearanceTechnique::Exact;
    OccupancyMap reference = base, computed = base;
    auto start = std::chrono::steady_clock::now();
    computeClearanceCpu(reference, options);
    const double cpuSeconds = secondsSince(start);
    // The exact technique in batches of three padded blocks, the regions they need resident
    // in a cache that holds those of one target and a few more, fewer than the map has:
    // batches evict and reload regions.
    const glm::ivec3 pad = options.padding(base.model());
    const uint64_t n = uint64_t(base.regionSize());
    const uint64_t block = 4 * n * (n + 2 * pad.y) * (n + 2 * pad.z);  // the exact field keeps the region's x only
    const uint64_t needed = regionsWithinRange(base.regions().begin()->first, base.model(), options).size();
    const uint64_t slots = needed + std::max<uint64_t>(4, (uint64_t(base.regions().size()) - std::min<uint64_t>(needed, base.regions().size())) / 2);
    GpuClearanceOptions gpuOptions;
    const uint64_t perRegion = RegionCache::bytesPerRegion(computed) + 4 * n * n * n;  // the clearance layer too
    if (exact) gpuOptions = {.cacheBytes = slots * perRegion, .fieldBytes = 3 * block};
    start = std::chrono::steady_clock::now();
    GpuClearance clearance(context.scheduler, computed, options, gpuOptions);
    const ClearanceStats stats = clearance.compute();
    const double gpuSeconds = secondsSince(start);
    if (context.breakReferences()) breakOneValue(reference, exact);
    const ClearanceComparison c = compareClearance(reference, computed);
    row.figure("regions", double(stats.regions), "{} regions");
    row.figure("range_m", options.range, "range {} m");
    row.figure("voxels", double(c.voxels), "{} voxels");
    if (exact) row.figure("same_bits", double(c.sameBits), "{} with equal bits");
    row.figure("max_error_m", c.maxError, "largest error {} m");
    row.figure("in_range", double(c.inRange), "{} with an obstacle in range");
    row.figure("within_one_voxel", double(c.withinOneVoxel), "{} of them within one voxel");
    row.figure("none_mismatches", double(c.noneMismatches), "{} disagree on an obstacle in range");
    if (exact) row.figure("evictions", double(clearance.cacheStats().evictions), "{} regions evicted");
    row.figure("gpu_s", gpuSeconds, "GPU {} s");
    row.figure("cpu_s", cpuSeconds, "CPU {} s");
    row.require(stats.regions == base.regions().size(), "computed " + std::to_string(stats.regions) + " of " +
                                                            std::to_string(base.regions().size()) + " regions");
    row.require(c.inRange > 10000, "only " + std::to_string(c.inRange) + " voxels with an obstacle in range");
    if (exact) row.require(clearance.cacheStats().evictions > 0, "no region was evicted: the batches did not exercise it");
    if (exact)
      row.require(c.sameBits == c.voxels, std::to_string(c.voxels - c.sameBits) +
                                              " voxels differ from the CPU reference (largest difference " +
                                              checkNumber(c.maxError) + " m)");
    else
      row.require(propagationShortfall(c, base.model().resolution).empty(), propagationShortfall(c, base.model().resolution));
  });
}

}  // namespace

void checkClearance(CheckContext& context) {
  const OccupancyMap base = lidarMap(context);
  const double range = context.sized(1.0, 2.0);
  ClearanceOptions exact{.range = range, .technique = ClearanceTechnique::Exact};
  ClearanceOptions exactScaled = exact;
  exactScaled.unknownFree = true;
  exactScaled.axisScale = {1.0, 1.0, 0.5};
  const std::string regions = " (" + checkNumber(double(base.regions().size())) + " regions)";
  std::vector<Variant> variants{
      {"exact, bit for bit, in batches that evict regions" + regions, exact},
      {"exact, bit for bit, unknown space free, z scaled by 0.5" + regions, exactScaled},
  };
  for (ClearanceTechnique technique : {ClearanceTechnique::Roi, ClearanceTechnique::Neighbour, ClearanceTechnique::OpenList}) {
    ClearanceOptions options{.range = range, .technique = technique};
    variants.push_back({std::string(clearanceTechniqueName(technique)) + ", within the stated bounds of exact" + regions, options});
  }
  for (const Variant& variant : variants) runVariant(context, base, variant);
}

}  // namespace voxen
