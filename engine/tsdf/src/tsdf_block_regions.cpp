// A CPU reference's block regions (tsdf_block_regions.hpp).
#include "tsdf_block_regions.hpp"

namespace voxen::detail {

TsdfBlockRegions::TsdfBlockRegions(OccupancyMap& map, std::span<const TsdfBlock> blocks, bool coloured)
    : map_(map), n_(map.regionSize()), keys_(blocks.size()), voxels_(blocks.size()), colours_(coloured ? blocks.size() : 0) {
  const int32_t b = gpu::kTsdfBlock;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const TsdfBlock& block = blocks[i];
    keys_[i] = {floorDiv(block.x * b, n_), floorDiv(block.y * b, n_), floorDiv(block.z * b, n_)};
    if (!touched_.contains(keys_[i])) touched_[keys_[i]] = map.findRegion(keys_[i]) == nullptr;
    Region& region = map.region(keys_[i]);
    voxels_[i] = region.values<gpu::TsdfVoxel>(kTsdfLayer);
    if (coloured) colours_[i] = region.values<gpu::TsdfColourVoxel>(kTsdfColourLayer);
  }
}

uint64_t TsdfBlockRegions::finish() {
  uint64_t made = 0;
  for (const auto& [key, isNew] : touched_) {
    map_.markValuesChanged(key);
    made += isNew;
  }
  return made;
}

}  // namespace voxen::detail
