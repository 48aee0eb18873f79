// TsdfMeshTracker: per-block results kept between updates; the blocks of regions whose stamp
// moved (or that were made or dropped) and the blocks around them meshed again, then the
// whole welded again (a block's cells read voxels up to one voxel below and two above it, so
// the ring of blocks around a changed region covers every cell and normal that reads it).
#include <map>
#include <unordered_map>

#include "gpu_tsdf_mesh_runner.hpp"

namespace voxen {

struct TsdfMeshTracker::State {
  TsdfMeshOptions options;
  const OccupancyMap* map = nullptr;
  uint64_t counter = 0;
  std::unordered_map<RegionKey, uint64_t, RegionKeyHash> stamps;  // per region, at the last update
  std::map<TsdfBlock, detail::TsdfBlockMesh> blocks;              // the non-empty ones
  TsdfMesh mesh;
  Scheduler* scheduler = nullptr;                                 // null: the CPU reference
  uint64_t cacheBytes = 0;
  std::unique_ptr<detail::GpuTsdfMeshRunner> runner;              // for `map`
  bool coloured = false;                                          // `map` had the tsdf_colour layer
};

TsdfMeshTracker::TsdfMeshTracker(TsdfMeshOptions options) : state_(std::make_unique<State>()) {
  options.validate();
  state_->options = options;
}
TsdfMeshTracker::TsdfMeshTracker(Scheduler& scheduler, TsdfMeshOptions options, uint64_t cacheBytes) : TsdfMeshTracker(options) {
  state_->scheduler = &scheduler;
  state_->cacheBytes = cacheBytes;
}
TsdfMeshTracker::~TsdfMeshTracker() = default;
TsdfMeshTracker::TsdfMeshTracker(TsdfMeshTracker&&) noexcept = default;
TsdfMeshTracker& TsdfMeshTracker::operator=(TsdfMeshTracker&&) noexcept = default;

const TsdfMesh& TsdfMeshTracker::mesh() const { return state_->mesh; }
const TsdfMeshOptions& TsdfMeshTracker::options() const { return state_->options; }

TsdfMeshUpdate TsdfMeshTracker::update(const OccupancyMap& map) {
  detail::requireTsdfLayer(map);
  State& s = *state_;
  const detail::TsdfMeshLimits limits = detail::tsdfMeshLimits(s.options, map.model().resolution);
  TsdfMeshUpdate result;
  std::vector<TsdfBlock> dirty;
  const bool coloured = map.layout().has(kTsdfColourLayer);  // a layer gained: every vertex has a colour now
  if (s.map != &map || map.changeCounter() < s.counter || s.mesh.resolution != map.model().resolution || s.coloured != coloured) {
    result.whole = true;
    s.blocks.clear();
    s.runner.reset();
    if (s.scheduler) s.runner = std::make_unique<detail::GpuTsdfMeshRunner>(*s.scheduler, map, s.cacheBytes);
    dirty = detail::tsdfMapBlocks(map);
  } else {
    // Changed regions: a moved stamp, made, or gone.
    std::vector<RegionKey> changed;
    for (const auto& [key, region] : map.regions()) {
      const auto it = s.stamps.find(key);
      if (it == s.stamps.end() || it->second != region.occupancyStamp) changed.push_back(key);
    }
    for (const auto& [key, stamp] : s.stamps)
      if (!map.regions().contains(key)) changed.push_back(key);
    const int32_t perRegion = map.regionSize() / gpu::kTsdfBlock;
    std::map<TsdfBlock, bool> set;
    for (const RegionKey& key : changed)
      for (int32_t z = -1; z <= perRegion; ++z)
        for (int32_t y = -1; y <= perRegion; ++y)
          for (int32_t x = -1; x <= perRegion; ++x)
            set[{key.x * perRegion + x, key.y * perRegion + y, key.z * perRegion + z}] = true;
    for (const auto& entry : set) {
      const TsdfBlock& b = entry.first;
      // Blocks of regions the map lacks have no cells (their lower voxels are unobserved).
      if (map.regions().contains({floorDiv(b.x, perRegion), floorDiv(b.y, perRegion), floorDiv(b.z, perRegion)}))
        dirty.push_back(b);
      else
        s.blocks.erase(b);
    }
  }
  GpuTsdfMeshStats gpuStats;
  std::vector<detail::TsdfBlockMesh> meshes =
      s.runner ? s.runner->mesh(dirty, limits, gpuStats) : detail::meshTsdfBlocksCpu(map, dirty, limits, s.options.threads);
  uint64_t remade = 0;
  for (size_t i = 0; i < dirty.size(); ++i) {
    remade += !meshes[i].empty();
    if (meshes[i].empty())
      s.blocks.erase(dirty[i]);
    else
      s.blocks[dirty[i]] = std::move(meshes[i]);
  }
  result.blocksMeshed = dirty.size();
  s.stamps.clear();
  for (const auto& [key, region] : map.regions()) s.stamps[key] = region.occupancyStamp;
  s.map = &map;
  s.coloured = coloured;
  s.counter = map.changeCounter();
  std::vector<const detail::TsdfBlockMesh*> pointers;
  pointers.reserve(s.blocks.size());
  for (const auto& [block, m] : s.blocks) pointers.push_back(&m);
  result.blocksKept = s.blocks.size() - remade;
  s.mesh = detail::weldTsdfMesh(pointers, map.model().resolution, coloured);
  return result;
}

}  // namespace voxen
