#pragma once
// Lidar rays into the TSDF layer (voxen/tsdf/tsdf.hpp has the layer, the options and the fold):
// ray integration of a point cloud, scan by scan, as voxblox's, with a CPU reference here and
// the GPU's voxen/tsdf/gpu_tsdf_rays.hpp equal to it bit for bit.
//
//   voxen::OccupancyMap map(voxen::OccupancyModel{.resolution = 0.05}, voxen::LayerSet{voxen::kTsdfLayer});
//   voxen::TsdfOptions options;                         // 4 voxels, weight cap 64, maxRange 10 m
//   voxen::integrateRaysTsdfCpu(map, scan, options);    // one scan: std::span<const voxen::Ray>
//   voxen::GpuTsdfRayIntegrator gpu(scheduler, map, options);
//   gpu.integrate(scan);                                // the same voxels
//
// A ray runs from the sensor origin to its hit, range R = |hit - origin|. Rays longer than
// TsdfOptions::maxRange, of length 0 or with a non-finite or too distant end (more than 2^22
// voxels from the map's origin) are no measurement (as voxblox, no TSDF update for rays without
// a hit; an input that marks no-return rays by their length beyond the range is skipped so).
// Every voxel the ray passes whose centre projects onto the ray at t (the centre's distance
// along the ray from the origin) within the band [R - truncation, R + truncation] is measured:
// sdf = R - t (positive in front of the hit; within the band |sdf| <= truncation, so the clamp
// to +truncation never bites), weight as TsdfOptions::weighting (tsdf_shared.h tsdfWeightOf).
// The voxels are found by walking the segment [R - truncation - 1 voxel, R + truncation +
// 1 voxel] (never behind the origin) with an integer DDA, one voxel more at each end than the
// band because a voxel's centre projects up to half its diagonal from where the ray crosses it.
//
// Scans are the unit. Many rays of one scan meet the same voxel; each voxel sums its rays'
// w sdf and w over the scan (integers: the same in any order), then folds once per scan: the
// measurement round(sum(w sdf) / sum(w)) with weight min(sum(w), maxWeight) through the fold of
// tsdf.hpp (tsdfFold). So the map is the same for any split of a scan into batches and any
// thread count, but depends on how a cloud is cut into scans (as a depth map depends on its
// frames): the CLI cuts a recording into scans of a fixed number of rays.
//
// All arithmetic is integer (positions in 1/65536 voxel, from metres by the host's packing,
// tsdfPackRays): the GPU's voxels equal the CPU reference's bit for bit.
//
// Threads: the functions keep no state; one thread at a time changes a map.
#include <cstdint>
#include <span>
#include <vector>

#include "voxen/gpu/tsdf/tsdf_ray_shared.h"
#include "voxen/map/ray.hpp"
#include "voxen/tsdf/tsdf.hpp"

namespace voxen {

struct TsdfScanStats {
  uint64_t rays = 0;           // rays that measured (packed and integrated)
  uint64_t raysSkipped = 0;    // rays without a measurement (beyond maxRange, length 0, non-finite, too far)
  uint64_t blocks = 0;         // blocks (8^3 voxels) holding a voxel the scan measured
  uint64_t voxelsUpdated = 0;  // voxels the scan measured (counted by the CPU reference only)
  uint64_t regionsMade = 0;    // regions the map gained (CPU reference only)
  uint64_t chunks = 0;         // GPU: accumulate-and-fold dispatches (groups of blocks that fit the cache)
  uint64_t discoveryRetries = 0;  // GPU: discoveries run again with a larger block set
  TsdfScanStats& operator+=(const TsdfScanStats& more);
};

// Appends the rays that measure to `out` as the integers both implementations take, and returns
// how many were skipped (the rule above). The one host step per ray of the GPU path.
uint64_t tsdfPackRays(std::span<const Ray> rays, const TsdfOptions& options, double resolution, std::vector<gpu::TsdfRay>& out);

// The CPU reference: integrates one scan into `map` (which gains the tsdf layer and the
// regions of the voxels measured; its region size must be a multiple of 8). The rays are split
// over `threads` shares (0: the machine's cores), each summing into its own table; any split
// gives the same map. Throws as TsdfOptions::validate and prepareTsdfMap (SettingError naming
// TsdfOptions' field).
TsdfScanStats integrateRaysTsdfCpu(OccupancyMap& map, std::span<const Ray> scan, const TsdfOptions& options,
                                   unsigned threads = 0);

}  // namespace voxen
