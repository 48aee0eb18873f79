#pragma once
// Lidar rays into the TSDF on the GPU (voxen/tsdf/tsdf_rays.hpp has the model): a scan's rays go
// up packed (the host's only per-ray step), a pass walks each ray's band and puts the blocks of
// the voxels it measures into a GPU hash set (no host walk per ray), the host makes their
// regions resident in a region cache (regions the map lacks are made there) and sorts them into
// chunks that fit the cache and the accumulators, and per chunk a pass sums every ray's w sdf
// and w per voxel with 64-bit integer atomics and a pass folds each measured voxel once. The
// voxels equal integrateRaysTsdfCpu's bit for bit.
//
//   voxen::GpuTsdfRayIntegrator tsdf(scheduler, map, options);
//   tsdf.add(firstHalf);   // one scan in any number of batches
//   tsdf.add(secondHalf);
//   tsdf.endScan();        // folds the scan (integrate(scan) is add + endScan)
//   tsdf.sync();           // the host map holds every scan's voxels
//
// The cache keeps regions between scans; sync() copies them into the host map (marking them
// changed), and the destructor syncs too (after ending a scan whose rays were added but not
// ended). While an integrator lives, the map's regions it
// holds are changed only through it (a caller that changes the host map calls sync() first
// and makes a new integrator after).
//
// Threads: one thread at a time, the one that records on `scheduler`.
#include <cstdint>
#include <memory>
#include <span>

#include "voxen/tsdf/tsdf_rays.hpp"

namespace voxen {

class Scheduler;

class GpuTsdfRayIntegrator {
 public:
  // Prepares the map (prepareTsdfMap: throws SettingError for options that cannot work or do
  // not match the map's tsdf layer). `cacheBytes` of device memory hold resident regions,
  // `sumBytes` the accumulators of a chunk's blocks (16 bytes per voxel, 8 KiB per block).
  GpuTsdfRayIntegrator(Scheduler& scheduler, OccupancyMap& map, const TsdfOptions& options, uint64_t cacheBytes = 256ull << 20,
                       uint64_t sumBytes = 64ull << 20);
  ~GpuTsdfRayIntegrator();
  GpuTsdfRayIntegrator(const GpuTsdfRayIntegrator&) = delete;
  GpuTsdfRayIntegrator& operator=(const GpuTsdfRayIntegrator&) = delete;

  // Rays of the current scan (packed and kept until endScan).
  void add(std::span<const Ray> rays);
  // Folds the current scan into the map; returns when it is recorded (the GPU runs it after).
  TsdfScanStats endScan();
  TsdfScanStats integrate(std::span<const Ray> scan);
  // Copies every resident region into the host map (they stay resident).
  void sync();
  const TsdfOptions& options() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace voxen
