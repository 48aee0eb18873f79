#pragma once
// The TSDF on the GPU (voxen/tsdf/tsdf.hpp has the model): per depth frame, the image goes to
// the GPU, a pass finds the blocks the frame reaches (each valid pixel's band, into a GPU hash
// set, no host walk over the pixels), the host makes their regions resident in a region cache
// (regions the map lacks are made there), and a pass folds every voxel of those blocks. The
// voxels equal integrateDepthCpu's bit for bit, colours too: a coloured frame's colour is folded
// when the map has the tsdf_colour layer. The cache holds the layers the map had when the
// integrator was made: a coloured frame into a map that gained the layer since throws Error
// (sync() and make a new integrator), never drops the colour.
//
//   voxen::GpuTsdfIntegrator tsdf(scheduler, map, options);
//   for (const voxen::DepthFrame& frame : frames) tsdf.integrate(frame);
//   tsdf.sync();   // the host map holds every frame's voxels
//
// The cache keeps regions between frames; sync() copies them into the host map (marking them
// changed), and the destructor syncs too. While an integrator lives, the map's regions it
// holds are changed only through it (a caller that changes the host map calls sync() first
// and makes a new integrator after).
//
// Threads: one thread at a time, the one that records on `scheduler`.
#include <cstdint>
#include <memory>

#include "voxen/tsdf/tsdf.hpp"

namespace voxen {

class Scheduler;

struct GpuTsdfFrameStats {
  uint64_t blocks = 0;       // blocks the frame reached
  uint64_t chunks = 0;       // integration dispatches (groups of regions that fit the cache)
  uint64_t discoveryRetries = 0;  // discoveries run again with a larger hash set
};

class GpuTsdfIntegrator {
 public:
  // Prepares the map (prepareTsdfMap: throws SettingError for options that cannot work or do
  // not match the map's tsdf layer). `cacheBytes` of device memory hold resident regions.
  GpuTsdfIntegrator(Scheduler& scheduler, OccupancyMap& map, const TsdfOptions& options, uint64_t cacheBytes = 256ull << 20);
  ~GpuTsdfIntegrator();
  GpuTsdfIntegrator(const GpuTsdfIntegrator&) = delete;
  GpuTsdfIntegrator& operator=(const GpuTsdfIntegrator&) = delete;

  // Integrates one frame (throws as tsdfCamera for a frame that cannot be used; the map is
  // then unchanged by it). Returns when the frame is recorded and its blocks known; the
  // folding runs on the GPU after.
  GpuTsdfFrameStats integrate(const DepthFrame& frame);
  // Copies every resident region into the host map (they stay resident).
  void sync();
  const TsdfOptions& options() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace voxen
