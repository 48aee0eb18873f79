#pragma once
// Which values a map's layers hold that cannot occur: every layer's fields declare their
// domains (voxen/map/layer.hpp), and some layers add a check of their own (occupancy within
// the model's clamp range, voxel-mean sums within their counts). Map files are checked with
// it when saved and loaded; `voxen info --verify` reports every layer's count.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "voxen/map/map.hpp"

namespace voxen {

// The impossible values of one layer in one region's array.
struct RegionValueFaults {
  uint64_t voxels = 0;  // voxels with at least one impossible field
  size_t first = 0;     // the lowest such voxel (valid when voxels > 0)
  std::string why;      // what is wrong with it ("time -2 is below 0")
};
RegionValueFaults checkLayerValues(const OccupancyModel& model, LayerId layer, std::span<const std::byte> values);

// Why a region's values are impossible for this map (empty when they are fine): the first
// layer in layout order with an impossible value, naming the layer, the voxel (index and
// coordinates) and the value, and how many of the region's voxels that layer has wrong.
std::string impossibleContents(const OccupancyMap& map, const Region& region);

// A map's impossible values of one layer, over all its regions.
struct LayerValueFaults {
  LayerId layer;
  uint64_t voxels = 0, regions = 0;
  RegionKey firstRegion;  // the lowest region key with one, and its lowest voxel
  size_t firstVoxel = 0;
  std::string why;
};
// One entry per layer with any impossible value, in layout order.
std::vector<LayerValueFaults> findImpossibleValues(const OccupancyMap& map);
// "layer 'clearance': 12 voxels in 3 regions, the first region (0,0,0) voxel 5 (1,1,0):
// distance -3 is below 0" for each entry, joined by "; ".
std::string describeFaults(const OccupancyMap& map, const std::vector<LayerValueFaults>& faults);

}  // namespace voxen
