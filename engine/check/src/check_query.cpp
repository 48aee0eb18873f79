// The batched map queries on the GPU against their CPU references, exactly: occupancy and
// clearance at random points, ray casts (with and without unknown space blocking, long
// rays cut into many segments) and the voxels of each class in a box, on a random map of
// small regions queried through a cache that holds only a few of them (in chunks).
#include <cstdint>

#include "check_row.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/gpu_queries.hpp"
#include "voxen/testdata/split_mix.hpp"

namespace voxen {

namespace {

double unit(SplitMix& rng) { return double(rng.next() >> 11) * 0x1p-53; }

OccupancyMap randomQueryMap(int regionsPerAxis) {
  OccupancyModel model;
  model.resolution = 0.2;
  model.regionSize = 8;
  OccupancyMap map(model);
  SplitMix rng(17);
  for (int x = 0; x < regionsPerAxis; ++x)
    for (int y = 0; y < regionsPerAxis; ++y)
      for (int z = 0; z < 2; ++z) {
        if ((x + y + z) % 5 == 4) continue;  // holes: regions the map does not hold
        for (float& v : map.region({x - 1, y - 1, z - 1}).occupancy()) {
          const uint64_t r = rng.next() % 10;
          v = r < 3 ? kUnobserved : r < 8 ? -1.0f : 1.5f;
        }
      }
  ClearanceOptions clearance;
  clearance.range = 0.8;
  computeClearanceCpu(map, clearance);
  return map;
}

}  // namespace

void checkQuery(CheckContext& context) {
  runRow(context, "query", "occupancy, ray casts, clearance and box voxels against the CPU references, in chunks",
         [&](RowResult& row) {
           const OccupancyMap map = randomQueryMap(context.sized(4, 8));
           QueryOptions options;
           options.cacheBytes = 4 * RegionCache::bytesPerRegion(map);
           options.maxCrossingsPerSegment = 8;
           GpuQueries queries(context.scheduler, map, options);
           SplitMix rng(5);
           const double extent = 1.6 * context.sized(4, 8);
           std::vector<glm::dvec3> points(context.sized(20000u, 1000000u));
           for (auto& p : points) p = {unit(rng) * extent - 1.6, unit(rng) * extent - 1.6, unit(rng) * 3.2 - 1.6};
           std::vector<QueryRay> rays(context.sized(5000u, 200000u));
           for (auto& r : rays)
             r = {{unit(rng) * extent - 1.6, unit(rng) * extent - 1.6, unit(rng) * 3.2 - 1.6},
                  {unit(rng) - 0.5, unit(rng) - 0.5, unit(rng) - 0.5},
                  unit(rng) * 8.0};
           uint64_t mismatches = 0, hits = 0;
           std::vector<OccupancyAnswer> occupancy = cpuOccupancy(map, points);
           if (context.breakReferences()) occupancy[0].value = 12345.0f;  // no voxel holds it
           const std::vector<OccupancyAnswer> gpuOccupancy = queries.occupancy(points);
           for (size_t i = 0; i < points.size(); ++i) mismatches += !(gpuOccupancy[i] == occupancy[i]);
           const std::vector<ClearanceSample> clearance = cpuClearance(map, points), gpuClearance = queries.clearance(points);
           for (size_t i = 0; i < points.size(); ++i) mismatches += !(gpuClearance[i] == clearance[i]);
           for (bool unknownBlocks : {false, true}) {
             const std::vector<RayHit> cpu = cpuRaycast(map, rays, {unknownBlocks}), gpu = queries.raycast(rays, {unknownBlocks});
             for (size_t i = 0; i < rays.size(); ++i) mismatches += !(gpu[i] == cpu[i]), hits += gpu[i].hit;
           }
           const QueryBox box{{-1.5, -1.3, -1.1}, {extent - 2.0, extent - 2.5, 1.3}};
           for (VoxelClass c : {VoxelClass::Unobserved, VoxelClass::Free, VoxelClass::Occupied})
             mismatches += queries.voxelsInBox(box, c).voxels != cpuVoxelsInBox(map, box, c).voxels;
           row.figure("points", double(points.size()), "{} points");
           row.figure("rays", double(rays.size()), "{} rays");
           row.figure("chunks", double(queries.chunkCount()), "{} chunks");
           row.figure("mismatches", double(mismatches), "{} answers unlike the CPU's");
           row.require(mismatches == 0, std::to_string(mismatches) + " answers differ from the CPU references'");
           row.require(hits > 0, "no ray hit anything");
           row.require(queries.chunkCount() > 1, "the map fit the cache: chunks untested");
         });
}

}  // namespace voxen
