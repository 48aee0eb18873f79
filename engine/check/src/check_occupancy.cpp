// Occupancy integration on the GPU against the CPU reference fed the same batches: both
// update orders with and without every optional layer, bit for bit; NDT-OM and NDT-TM
// within their stated tolerances (voxen/check/ndt_comparison.hpp); every run long
// enough for several batches, with a region cache half the map's size so that regions are
// evicted and reloaded; a cache smaller than one batch's regions (region chunks); and
// region discovery against the host's walk on a lidar batch, on awkward rays (region faces,
// edges and corners, 10 km out, a region size that is not a power of two) and on a batch
// whose regions overflow the discovery set. The one-pass order, which orders nothing between
// the rays of a batch, within its stated tolerance on any device (one_pass_tolerance.hpp):
// every update applied, the layers (sums and maxima) exact, and the share of voxels with the
// reference's bits and the occupied voxels' Jaccard index above the bounds. One run looks
// residency up on the GPU in every batch (GpuIntegratorOptions::residencyLookup).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <span>

#include "check_row.hpp"
#include "voxen/check/map_comparison.hpp"
#include "voxen/map/map_overlap.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/discovery_comparison.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/check/ndt_comparison.hpp"
#include "voxen/check/one_pass_tolerance.hpp"
#include "voxen/testdata/awkward_rays.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen {

namespace {

constexpr LayerSet kEveryLayer = kAllBuiltinLayers;

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The run every occupancy check maps: a lidar moving through the rooms and corridor of the
// synthetic scene (no-return rays included).
struct LidarRun {
  std::vector<Ray> rays;
  uint32_t batch = 0;
};

LidarRun lidarRun(const CheckContext& context) {
  LidarConfig lidar;
  lidar.rings = context.sized(32, 64);
  lidar.columns = context.sized(512, 1024);
  lidar.scans = context.sized(8, 32);
  std::vector<uint8_t> noReturn;
  return {generateLidarRays(SyntheticScene::generate(3), lidar, &noReturn), context.sized(16384u, 131072u)};
}

struct OccupancyCase {
  const char* name;
  IntegrationOptions options;
  LayerSet layers;
  // Cache slots: a fraction of the map's regions (evictions), or a fixed count smaller than
  // one batch's regions (region chunks).
  double cacheFractionOfMap = 0.5;
  uint32_t cacheSlots = 0;  // > 0: this many
  ResidencyLookup lookup = ResidencyLookup::Adaptive;
};

struct Mapped {
  OccupancyMap map;
  IntegrationStats stats;
  RegionCacheStats cache;
  size_t slots = 0;
  double seconds = 0.0;
};

Mapped mapOnCpu(const LidarRun& run, const OccupancyCase& c, const MapLayout& layout) {
  Mapped out{OccupancyMap(OccupancyModel(), layout)};
  const auto start = std::chrono::steady_clock::now();
  CpuIntegrator cpu(out.map, c.options);
  const std::span<const Ray> rays(run.rays);
  for (size_t i = 0; i < rays.size(); i += run.batch) cpu.integrate(rays.subspan(i, std::min<size_t>(run.batch, rays.size() - i)));
  out.stats = cpu.stats();
  out.seconds = secondsSince(start);
  return out;
}

Mapped mapOnGpu(Scheduler& scheduler, const LidarRun& run, const OccupancyCase& c, const MapLayout& layout, uint64_t cacheBytes) {
  Mapped out{OccupancyMap(OccupancyModel(), layout)};
  const auto start = std::chrono::steady_clock::now();
  GpuIntegrator gpu(scheduler, out.map, c.options,
                    {.cacheBytes = cacheBytes, .maxRaysPerBatch = run.batch, .residencyLookup = c.lookup});
  gpu.integrate(run.rays);
  gpu.finish();
  out.stats = gpu.stats();
  out.cache = gpu.cacheStats();
  out.slots = gpu.cacheSlots();
  out.seconds = secondsSince(start);
  return out;
}

// The check's switch: one bit of one observed voxel of the reference flipped.
void breakOneVoxel(OccupancyMap& map) {
  for (auto& [key, region] : map.regions())
    for (float& value : map.region(key).occupancy())
      if (isObserved(value)) {
        uint32_t bits;
        std::memcpy(&bits, &value, 4);
        bits ^= 1u;
        std::memcpy(&value, &bits, 4);
        return;
      }
}

// The check's switch for the one-pass order, whose tolerance one flipped bit stays within:
// every occupied voxel of the reference made free.
void breakOccupiedVoxels(OccupancyMap& map) {
  const float free = map.model().clampMin;
  for (auto& [key, r] : map.regions())
    for (float& value : map.region(key).occupancy())
      if (map.classify(value) == VoxelClass::Occupied) value = free;
}

// The check's switch for NDT: every sampled voxel's mean moved by 1/1024 voxel along x.
void breakNdtMeans(OccupancyMap& map) {
  for (const auto& [key, r] : map.regions())
    for (VoxelMean& mean : map.region(key).mean())
      if (mean.count) mean.sum[0] ^= 1u;
}

void runCase(CheckContext& context, const LidarRun& run, const OccupancyCase& c) {
  runRow(context, "occupancy", c.name, [&](RowResult& row) {
    const NdtMode ndt = c.options.ndt.mode;
    const MapLayout layout = ndt == NdtMode::Off ? MapLayout::of(c.layers) : ndtLayout(ndt, MapLayout::of(c.layers));
    Mapped cpu = mapOnCpu(run, c, layout);
    const uint64_t perRegion = RegionCache::bytesPerRegion(cpu.map);
    const uint64_t slots = c.cacheSlots ? c.cacheSlots
                                        : std::max<uint64_t>(8, uint64_t(double(cpu.map.regions().size()) * c.cacheFractionOfMap));
    const Mapped gpu = mapOnGpu(context.scheduler, run, c, layout, slots * perRegion);
    const bool onePass = c.options.order == UpdateOrder::OnePass;
    if (context.breakReferences()) {
      if (ndt != NdtMode::Off)
        breakNdtMeans(cpu.map);
      else if (onePass)
        breakOccupiedVoxels(cpu.map);
      else
        breakOneVoxel(cpu.map);
    }

    row.figure("rays", double(run.rays.size()), "{} rays");
    row.figure("batches", double(gpu.stats.batches), "{} batches");
    row.figure("map_regions", double(cpu.map.regions().size()), "{} regions");
    row.figure("cache_slots", double(gpu.slots), "{} cache slots");
    row.figure("evictions", double(gpu.cache.evictions), "{} evictions");
    row.figure("region_chunks", double(gpu.stats.regionChunks), "{} region chunks");
    row.figure("gpu_lookup_batches", double(gpu.stats.gpuLookupBatches), "{} batches looked up on the GPU");
    row.figure("dropped_updates", double(gpu.stats.droppedUpdates), "{} dropped updates");
    row.figure("gpu_s", gpu.seconds, "GPU {} s");
    row.figure("cpu_s", cpu.seconds, "CPU {} s");
    row.require(gpu.stats.droppedUpdates == 0, std::to_string(gpu.stats.droppedUpdates) + " updates dropped");
    row.require(gpu.stats.batches >= 4, "only " + std::to_string(gpu.stats.batches) + " batches: the run is too short to check batching");
    row.require(gpu.stats.batches == cpu.stats.batches, "the GPU ran another number of batches than the CPU reference");
    if (c.cacheSlots)
      row.require(gpu.stats.regionChunks > gpu.stats.batches, "no batch was split into region chunks");
    else
      row.require(gpu.cache.evictions > 0, "no region was evicted: the run did not exercise eviction");
    if (c.lookup == ResidencyLookup::Gpu) {
      // Every batch but the first two (closed before anything was resident) looked up on the
      // GPU, and some met regions not resident (the second chunk).
      row.require(gpu.stats.gpuLookupBatches + 2 >= gpu.stats.batches, "only " + std::to_string(gpu.stats.gpuLookupBatches) +
                                                                         " batches looked their regions up on the GPU");
      row.require(gpu.stats.lookupMissedRegions > 0, "no GPU lookup met a region that was not resident");
    }
    if (ndt == NdtMode::Off) {
      const MapComparison m = compareMaps(gpu.map, cpu.map);
      row.figure("voxels", double(m.voxels), "{} voxels");
      row.figure("same_bits", double(m.sameBits), "{} with equal bits");
      if (layout.has(kTraversalLayer))
        row.figure("traversal_mismatches", double(m.traversalMismatches), "{} traversal sums off");
      row.require(m.voxels > 1000, "only " + std::to_string(m.voxels) + " observed voxels");
      if (onePass) {
        const double jaccard = occupiedJaccard(gpu.map, cpu.map).jaccard();
        row.figure("occupied_jaccard", jaccard, "occupied voxels' Jaccard {}");
        const OnePassTolerance& bound = kOnePassToleranceAnyDevice;
        row.require(double(m.sameBits) >= bound.minSameBitsShare * double(m.voxels),
                    std::to_string(m.voxels - m.sameBits) + " of " + std::to_string(m.voxels) +
                        " voxels differ from the sequential CPU reference, more than the one-pass order's " +
                        checkNumber((1.0 - bound.minSameBitsShare) * 100) + " %");
        row.require(jaccard >= bound.minOccupiedJaccard,
                    "occupied voxels' Jaccard " + std::to_string(jaccard) +
                        " against the sequential CPU reference, below the one-pass order's " +
                        checkNumber(bound.minOccupiedJaccard));
      } else {
        row.require(m.sameBits == m.voxels, std::to_string(m.voxels - m.sameBits) + " voxels differ from the CPU reference");
      }
      row.require(m.layerMismatches == 0, std::to_string(m.layerMismatches) + " voxels whose layers differ");
      row.require(m.traversalMismatches == 0, std::to_string(m.traversalMismatches) + " traversal sums beyond the tolerance");
      row.require(gpu.stats.voxelUpdates == cpu.stats.voxelUpdates, "the GPU applied " + std::to_string(gpu.stats.voxelUpdates) +
                                                                      " updates, the CPU reference " +
                                                                      std::to_string(cpu.stats.voxelUpdates));
    } else {
      const NdtComparison n = compareNdtMaps(cpu.map, gpu.map);
      row.figure("voxels", double(n.observed), "{} voxels");
      row.figure("same_class", double(n.sameClass), "{} classified alike");
      row.figure("sampled_voxels", double(n.withSamples), "{} sampled");
      row.figure("same_mean", double(n.sameMean), "{} with the same mean");
      row.figure("close_covariance", double(n.closeCovariance), "{} with a close covariance");
      row.require(n.withSamples > 1000, "only " + std::to_string(n.withSamples) + " voxels with samples");
      row.require(n.withinTolerances(), n.shortfall());
    }
  });
}

// Region discovery against the host's walk: `rays` discovered as one batch.
void runDiscovery(CheckContext& context, const std::string& name, const std::vector<Ray>& rays, const OccupancyModel& model,
                  bool mustGrow) {
  runRow(context, "occupancy", name, [&](RowResult& row) {
    const DiscoveryComparison c =
        compareDiscoveryWithHostWalk(context.scheduler, rays, model, {.breakReference = context.breakReferences()});
    row.figure("rays", double(c.rays), "{} rays");
    row.figure("region_entries", double(c.regionEntries), "{} region-list entries");
    row.figure("segments", double(c.segments), "{} segments");
    row.figure("distinct_regions", double(c.distinctRegions), "{} distinct regions");
    row.figure("set_growths", double(c.setGrowths), "{} set growths");
    row.figure("mismatches", double(c.mismatches), "{} mismatches");
    row.require(c.mismatches == 0, std::to_string(c.mismatches) + " entries differ from the host's walk, the first at " + c.firstMismatch);
    row.require(c.listIsUnion, "the listed regions are not exactly the union of the rays' regions");
    if (mustGrow) row.require(c.setGrowths > 0, "the set never overflowed: the check did not exercise its growth");
  });
}

std::vector<Ray> concatenated(std::vector<Ray> a, const std::vector<Ray>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

void checkOccupancy(CheckContext& context) {
  const LidarRun run = lidarRun(context);
  IntegrationOptions ndtOm{.order = UpdateOrder::TwoPhase}, ndtTm{.order = UpdateOrder::TwoPhase};
  ndtOm.ndt.mode = NdtMode::Om;
  ndtTm.ndt.mode = NdtMode::Tm;
  const OccupancyCase cases[] = {
      {"sequential order", {.order = UpdateOrder::Sequential}},
      {"sequential order, every optional layer", {.order = UpdateOrder::Sequential}, kEveryLayer},
      {"two-phase order", {.order = UpdateOrder::TwoPhase}},
      {"two-phase order, every optional layer", {.order = UpdateOrder::TwoPhase}, kEveryLayer},
      {"one-pass order (unordered: within tolerance), every optional layer", {.order = UpdateOrder::OnePass}, kEveryLayer},
      {"NDT-OM (two-phase), every optional layer", ndtOm, kEveryLayer},
      {"NDT-TM (two-phase), traversal and touch time", ndtTm, kTraversalLayer | kTouchTimeLayer},
      {"region chunks: a cache smaller than one batch's regions (sequential, every layer)", {.order = UpdateOrder::Sequential},
       kEveryLayer, 0.0, 12},
      {"residency looked up on the GPU in every batch's own submission (sequential, every layer)",
       {.order = UpdateOrder::Sequential}, kEveryLayer, 0.5, 0, ResidencyLookup::Gpu},
  };
  for (const OccupancyCase& c : cases) runCase(context, run, c);

  const OccupancyModel model;
  runDiscovery(context, "region discovery: the lidar run's first batch against the host's walk",
               std::vector<Ray>(run.rays.begin(), run.rays.begin() + std::min<size_t>(run.batch, run.rays.size())), model, false);
  const size_t awkward = context.sized(6000u, 60000u);
  for (int32_t regionSize : {32, 5}) {
    OccupancyModel sized;
    sized.regionSize = regionSize;
    runDiscovery(context,
                 "region discovery: rays on region faces, edges and corners, near the origin and 10 km out, regions of " +
                     std::to_string(regionSize),
                 concatenated(awkwardRays(41, awkward, glm::dvec3(0.0), sized.resolution, regionSize),
                              awkwardRays(42, awkward, glm::dvec3(10000.0, -10000.0, 35.0), sized.resolution, regionSize)),
                 sized, false);
  }
  // Short rays scattered over a 400 m cube of 0.8 m regions: more distinct regions than the
  // discovery set first holds.
  const std::vector<Ray> scattered = scatteredRays(43, context.sized(20000u, 200000u), 400.0 * context.sized(1.0, 2.0),
                                                   glm::dvec3(0.5, 0.3, -0.2));
  OccupancyModel small;
  small.regionSize = 8;
  runDiscovery(context, "region discovery: a batch whose regions overflow the discovery set", scattered, small, true);
}

}  // namespace voxen
