#include "voxen/check/map_comparison.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "voxen/host/error.hpp"

namespace voxen {

bool traversalClose(uint64_t a, uint64_t b, uint64_t updates) {
  const double ta = double(a), tb = double(b);
  return std::abs(ta - tb) <= 1e-5 * ta + 2.0 * double(updates);
}

MapComparison compareMaps(const OccupancyMap& a, const OccupancyMap& b) {
  if (a.model().resolution != b.model().resolution || a.regionSize() != b.regionSize())
    throw Error("compareMaps: the maps' grids differ (resolution " + std::to_string(a.model().resolution) + " and " +
                std::to_string(b.model().resolution) + ", regions of " + std::to_string(a.regionSize()) + " and " +
                std::to_string(b.regionSize()) + ")");
  if (!(a.layout() == b.layout()))
    throw Error("compareMaps: the maps' layers differ (" + a.layout().names() + " and " + b.layout().names() + ")");
  MapComparison c;
  std::vector<RegionKey> keys;
  for (const auto& [key, r] : a.regions()) keys.push_back(key);
  for (const auto& [key, r] : b.regions())
    if (!a.findRegion(key)) keys.push_back(key);
  const Region emptyA = a.makeRegion({}), emptyB = b.makeRegion({});
  // The layers compared byte for byte: every one but occupancy (its own counts) and traversal.
  std::vector<std::pair<LayerId, uint32_t>> exactLayers;
  for (LayerId id : a.layout().ids())
    if (id != kOccupancyLayer && id != kTraversalLayer) exactLayers.emplace_back(id, layerType(id).bytesPerVoxel);
  const bool hasHitMiss = a.layout().has(kHitMissLayer), hasTraversal = a.layout().has(kTraversalLayer);
  for (const RegionKey& key : keys) {
    const Region* ra = a.findRegion(key);
    const Region* rb = b.findRegion(key);
    if (!ra) ra = &emptyA;
    if (!rb) rb = &emptyB;
    const std::span<const float> oa = ra->occupancy(), ob = rb->occupancy();
    for (size_t i = 0; i < oa.size(); ++i) {
      const float va = oa[i], vb = ob[i];
      if (!isObserved(va) && !isObserved(vb)) continue;
      ++c.voxels;
      const bool sameBits = std::memcmp(&va, &vb, sizeof(float)) == 0;
      c.sameBits += sameBits;
      c.sameClass += a.classify(va) == b.classify(vb);
      uint64_t updates = 1;
      if (hasHitMiss) {
        const HitMiss& h = ra->hitMiss()[i];
        const bool single = h.hits == 0 || h.misses == 0;
        c.singleKind += single;
        c.singleKindSame += single && sameBits;
        updates = uint64_t(h.hits) + h.misses;
      }
      bool layersDiffer = false;
      for (const auto& [id, bytes] : exactLayers)
        layersDiffer = layersDiffer || std::memcmp(ra->layers[id].data() + i * bytes, rb->layers[id].data() + i * bytes, bytes) != 0;
      c.layerMismatches += layersDiffer;
      if (hasTraversal) c.traversalMismatches += !traversalClose(ra->traversal()[i], rb->traversal()[i], updates);
    }
  }
  return c;
}

}  // namespace voxen
