#pragma once
// The regions of the blocks a CPU reference folds (a depth frame's, a lidar scan's): made in
// the map first, on the calling thread, because the map's region table changes; then the blocks
// may be folded on the machine's cores through voxels(i) and colours(i) (each voxel belongs to
// one block, so any split folds the same values); finish() marks the regions changed.
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "voxen/gpu/map/tsdf_colour_layer.h"
#include "voxen/gpu/map/tsdf_layer.h"
#include "voxen/map/map.hpp"
#include "voxen/tsdf/tsdf.hpp"

namespace voxen::detail {

class TsdfBlockRegions {
 public:
  // `coloured`: the blocks' tsdf_colour voxels too (the map must have that layer).
  TsdfBlockRegions(OccupancyMap& map, std::span<const TsdfBlock> blocks, bool coloured = false);
  const RegionKey& key(size_t block) const { return keys_[block]; }
  std::span<gpu::TsdfVoxel> voxels(size_t block) const { return voxels_[block]; }
  std::span<gpu::TsdfColourVoxel> colours(size_t block) const { return colours_[block]; }
  // The index in its region's arrays of voxel (x, y, z) of block `block`.
  size_t localIndex(size_t block, int32_t x, int32_t y, int32_t z) const {
    const RegionKey& k = keys_[block];
    return size_t(x - k.x * n_) + size_t(n_) * (size_t(y - k.y * n_) + size_t(n_) * size_t(z - k.z * n_));
  }
  // Marks every region changed (after the folds); returns how many the map gained.
  uint64_t finish();

 private:
  OccupancyMap& map_;
  int32_t n_;
  std::map<RegionKey, bool> touched_;  // the regions, and whether made now
  std::vector<RegionKey> keys_;
  std::vector<std::span<gpu::TsdfVoxel>> voxels_;
  std::vector<std::span<gpu::TsdfColourVoxel>> colours_;
};

}  // namespace voxen::detail
