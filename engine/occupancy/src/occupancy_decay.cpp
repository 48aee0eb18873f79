// Occupancy decay towards unknown: the host pass both Mapper backends run (see
// voxen/occupancy/occupancy_decay.hpp for the semantics).
#include "voxen/occupancy/occupancy_decay.hpp"

#include <cstring>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

void requireTouchTime(const OccupancyMap& map) {
  if (!map.layout().has(kTouchTimeLayer)) throw Error("occupancy decay needs the map's touch-time layer");
}

// Whether voxel i of the region is observed and was last touched before the cut.
bool outdated(const Region& region, size_t i, double cut) {
  return isObserved(region.occupancy()[i]) && region.touchTime()[i] < cut;
}

}  // namespace

LayerSet decayedLayers(const OccupancyMap& map) {
  LayerSet written{kOccupancyLayer, kVoxelMeanLayer, kTraversalLayer, kHitMissLayer, kTouchTimeLayer,
                   kNdtCovarianceLayer, kNdtIntensityLayer, kOccupancyRemainderLayer};
  LayerSet has;
  for (const LayerId id : map.layout().ids())
    if (written.has(id)) has.add(id);
  return has;
}

std::vector<RegionKey> regionsToForget(const OccupancyMap& map, double cut) {
  requireTouchTime(map);
  std::vector<RegionKey> keys;
  const size_t voxels = map.voxelsPerRegion();
  for (const auto& [key, region] : map.regions()) {
    for (size_t i = 0; i < voxels; ++i) {
      if (outdated(region, i, cut)) {
        keys.push_back(key);
        break;
      }
    }
  }
  return keys;
}

uint64_t forgetOutdatedVoxels(OccupancyMap& map, double cut, const std::vector<RegionKey>* keys) {
  requireTouchTime(map);
  const std::vector<RegionKey> all = keys ? std::vector<RegionKey>{} : regionsToForget(map, cut);
  const std::vector<RegionKey>& todo = keys ? *keys : all;
  const Region fresh = map.makeRegion({});
  const std::vector<LayerId> layers = decayedLayers(map).ids();
  const float threshold = map.model().thresholdValue();
  const size_t voxels = map.voxelsPerRegion();
  uint64_t forgotten = 0;
  for (const RegionKey& key : todo) {
    Region* region = map.findRegion(key);
    if (!region) continue;
    VoxelClassChanges changes;
    uint64_t here = 0;
    for (size_t i = 0; i < voxels; ++i) {
      if (!outdated(*region, i, cut)) continue;
      changes |= classChanges(region->occupancy()[i], kUnobserved, threshold);
      for (const LayerId id : layers) {
        const size_t bytes = fresh.layers[id].size() / voxels;
        std::memcpy(region->layers[id].data() + i * bytes, fresh.layers[id].data() + i * bytes, bytes);
      }
      ++here;
    }
    if (here == 0) continue;
    map.markValuesChanged(*region);
    map.markClassesChanged(*region, changes);
    forgotten += here;
  }
  return forgotten;
}

}  // namespace voxen
