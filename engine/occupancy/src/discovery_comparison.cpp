#include "voxen/occupancy/discovery_comparison.hpp"

#include <map>
#include <set>
#include <vector>

#include "voxen/gpu/occupancy/discovery_shared.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/occupancy/ray_walk.hpp"
#include "voxen/occupancy/region_discovery.hpp"

namespace voxen {

DiscoveryComparison compareDiscoveryWithHostWalk(Scheduler& scheduler, std::span<const Ray> rays,
                                                 const OccupancyModel& model, const DiscoveryComparisonOptions& options) {
  const uint32_t maxCrossings = options.maxCrossings;
  if (rays.empty()) throw Error("compareDiscoveryWithHostWalk: no rays");
  const int32_t regionSize = model.regionSize;
  std::vector<PreparedRay> prepared;
  for (size_t i = 0; i < rays.size(); ++i) {
    if (checkRay(rays[i], model, {}) != RayFault::None)
      throw Error("compareDiscoveryWithHostWalk: ray " + std::to_string(i) + " would be refused by the integrators");
    prepared.push_back(prepareRay(rays[i], model, {}));
  }
  // The batch's records as GpuIntegrator writes them: region lists after the maxRays
  // sample-region words, back to back; segments back to back.
  const uint32_t maxRays = uint32_t(prepared.size());
  std::vector<gpu::GpuRay> records;
  std::vector<uint32_t> segmentCounts, slotBases;
  uint64_t entries = 0, segments = 0;
  for (const PreparedRay& r : prepared) {
    const uint32_t count = segmentCount(r, maxCrossings);
    segmentCounts.push_back(count);
    slotBases.push_back(uint32_t(maxRays + entries));
    records.push_back(toGpuRay(r, count, uint32_t(maxRays + entries), uint32_t(segments)));
    entries += regionCountOnRay(r, regionSize);
    segments += count;
  }
  Buffer rayBuffer(scheduler.device(), "discovery comparison rays", records.size() * sizeof(gpu::GpuRay));
  scheduler.upload(rayBuffer.range(), records.data(), records.size() * sizeof(gpu::GpuRay));
  const RegionKey origin{floorDiv(prepared[0].start.x, regionSize), floorDiv(prepared[0].start.y, regionSize),
                         floorDiv(prepared[0].start.z, regionSize)};
  RegionDiscovery discovery(scheduler, maxRays);
  const std::vector<DiscoveredRegion> regions =
      discovery.discover(rayBuffer.range(), maxRays, origin, regionSize, entries, segments);
  const std::vector<uint32_t> raySlots =
      scheduler.readback<uint32_t>(discovery.raySlots(discovery.lastCopy()).range(0, (maxRays + entries) * 4)).get();
  const std::vector<uint32_t> segmentPairs =
      scheduler.readback<uint32_t>(discovery.segments(discovery.lastCopy()).range(0, segments * 8)).get();

  DiscoveryComparison c;
  c.rays = prepared.size();
  c.regionEntries = entries;
  c.segments = segments;
  c.distinctRegions = regions.size();
  c.setGrowths = discovery.setGrowths();
  auto mismatch = [&](const std::string& where) {
    if (c.mismatches++ == 0) c.firstMismatch = where;
  };
  std::map<uint32_t, RegionKey> keyOfEntry;
  for (const DiscoveredRegion& region : regions)
    if (!keyOfEntry.emplace(region.entry, region.key).second) mismatch("set entry " + std::to_string(region.entry) + " listed twice");
  auto named = [&](uint32_t entry, const RegionKey& key) {
    const auto found = keyOfEntry.find(entry);
    return found != keyOfEntry.end() && found->second == key;
  };
  auto text = [](const RegionKey& k) {
    // Appended in order: `"(" + std::to_string(...)` trips g++ 12's false -Wrestrict.
    std::string out = "(";
    out.append(std::to_string(k.x)).append(", ").append(std::to_string(k.y)).append(", ").append(std::to_string(k.z));
    return out + ")";
  };
  // What the GPU listed in a slot, so that a mismatch on a device tells a wrong region
  // (integer arithmetic) from a neighbour's (the order of face crossings, float rounding).
  auto listedIn = [&](uint32_t entry) {
    const auto found = keyOfEntry.find(entry);
    return found == keyOfEntry.end() ? "no listed region (entry " + std::to_string(entry) + ")" : text(found->second);
  };
  std::set<RegionKey> expected;
  size_t segment = 0;
  for (size_t i = 0; i < prepared.size(); ++i) {
    std::vector<RegionKey> walk = regionsOnRay(prepared[i], regionSize);
    if (options.breakReference && i == 0) walk.back().x += 1;
    expected.insert(walk.begin(), walk.end());
    for (size_t k = 0; k < walk.size(); ++k)
      if (!named(raySlots[slotBases[i] + k], walk[k]) && c.mismatches++ == 0) {
        const VoxelCoord& s = prepared[i].start;
        c.firstMismatch = "ray " + std::to_string(i) + ", region " + std::to_string(k) + " of " + std::to_string(walk.size()) +
                          " (start voxel " + text({s.x, s.y, s.z}) + ", region size " + std::to_string(regionSize) +
                          "): the host walks " + text(walk[k]) + ", the GPU listed " + listedIn(raySlots[slotBases[i] + k]);
      }
    if (!named(raySlots[i], walk.back())) mismatch("ray " + std::to_string(i) + ", its sample region");
    for (uint32_t s = 0; s < segmentCounts[i]; ++s, ++segment)
      if (segmentPairs[2 * segment] != i || segmentPairs[2 * segment + 1] != s)
        mismatch("ray " + std::to_string(i) + ", segment " + std::to_string(s));
  }
  std::vector<RegionKey> listed;
  for (const DiscoveredRegion& region : regions) listed.push_back(region.key);
  c.listIsUnion = listed == std::vector<RegionKey>(expected.begin(), expected.end());
  return c;
}

}  // namespace voxen
