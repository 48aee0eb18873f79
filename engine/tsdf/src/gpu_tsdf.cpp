// The TSDF on the GPU: the frame's image and camera up, the discovery pass (blocks into a GPU
// hash set, its list read back), the blocks' regions made resident in chunks that fit the
// cache, and the integration pass per chunk (shaders/tsdf/*.comp).
#include "voxen/tsdf/gpu_tsdf.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "colour/tsdf_colour.hpp"
#include "tsdf_internal.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/region_cache.hpp"

namespace voxen {

namespace {

// Blocks pack into 21 bits per axis (tsdf_discover.comp): offset by 2^20, never all zero
// (the camera stays within 2^22 voxels of the origin, 2^19 blocks).
TsdfBlock unpackBlock(uint64_t key) {
  const auto axis = [&](int shift) { return int32_t((key >> shift) & 0x1FFFFFu) - (1 << 20); };
  return {axis(42), axis(21), axis(0)};
}

}  // namespace

struct GpuTsdfIntegrator::State {
  State(Scheduler& s, OccupancyMap& m, const TsdfOptions& o, uint64_t cacheBytes)
      : scheduler(s), map(m), options(o),
        cache(s, m, std::max(cacheBytes, RegionCache::bytesPerRegion(m)), RegionCache::GpuTable::None) {
    cache.setUnseenChanges(true);  // every region the passes hold may have changed
  }
  // A buffer of at least `bytes`, made anew (after the GPU is done with the old one) when smaller.
  void ensure(Buffer& buffer, const char* name, uint64_t bytes) {
    if (buffer.size() >= bytes && buffer.handle() != VK_NULL_HANDLE) return;
    if (buffer.handle() != VK_NULL_HANDLE) scheduler.wait(scheduler.submit());
    buffer = Buffer(scheduler.device(), name, std::max<uint64_t>(bytes, 256));
  }
  std::vector<TsdfBlock> discover(uint64_t pixels, GpuTsdfFrameStats& stats);

  Scheduler& scheduler;
  OccupancyMap& map;
  TsdfOptions options;
  RegionCache cache;
  Buffer camera, depth, table, list, counters, blocks, colourImage;
  uint32_t tableCapacity = 1u << 16, listCapacity = 1u << 15;
  uint64_t batch = 0;
};

std::vector<TsdfBlock> GpuTsdfIntegrator::State::discover(uint64_t pixels, GpuTsdfFrameStats& stats) {
  const auto kernel = scheduler.library().kernel("tsdf/tsdf_discover.comp");
  for (;;) {
    ensure(table, "tsdf block set", uint64_t(tableCapacity) * 8);
    ensure(list, "tsdf block list", uint64_t(listCapacity) * 8);
    ensure(counters, "tsdf block count", 16);
    const BufferRange tableRange = table.range(0, uint64_t(tableCapacity) * 8), listRange = list.range(0, uint64_t(listCapacity) * 8);
    scheduler.fill(tableRange, 0);
    scheduler.fill(counters.range(), 0);
    gpu::TsdfDiscoverPush push{};
    push.camera = camera.address();
    push.depth = depth.address();
    push.table = tableRange.address;
    push.list = listRange.address;
    push.counters = counters.address();
    push.tableMask = tableCapacity - 1;
    push.listCapacity = listCapacity;
    push.maxProbe = 64;
    scheduler.dispatchThreads({"tsdf discover", kernel.get(), {}, push,
                               {reads(camera.range()), reads(depth.range()), readsWrites(tableRange), writes(listRange),
                                readsWrites(counters.range())}},
                              pixels);
    const std::vector<uint32_t> count = scheduler.readback<uint32_t>(counters.range(0, 8)).get();
    if (count[1] == 0 && count[0] <= listCapacity) {
      std::vector<TsdfBlock> found;
      if (count[0] > 0)
        for (uint64_t key : scheduler.readback<uint64_t>(list.range(0, uint64_t(count[0]) * 8)).get()) found.push_back(unpackBlock(key));
      std::sort(found.begin(), found.end());
      return found;
    }
    // Too many blocks for the set or the list: four times larger, again.
    if (tableCapacity >= (1u << 28)) throw Error("a depth frame reaches more than 2^26 blocks: the TSDF's block set cannot hold them");
    tableCapacity *= 4;
    listCapacity *= 4;
    ++stats.discoveryRetries;
  }
}

GpuTsdfIntegrator::GpuTsdfIntegrator(Scheduler& scheduler, OccupancyMap& map, const TsdfOptions& options, uint64_t cacheBytes) {
  prepareTsdfMap(map, options);
  state_ = std::make_unique<State>(scheduler, map, options, cacheBytes);
}

GpuTsdfIntegrator::~GpuTsdfIntegrator() {
  try {
    sync();
  } catch (...) {
    // A destructor must not throw; the caller who wanted the voxels called sync().
  }
}

const TsdfOptions& GpuTsdfIntegrator::options() const { return state_->options; }

void GpuTsdfIntegrator::sync() { state_->cache.syncToMap(); }

GpuTsdfFrameStats GpuTsdfIntegrator::integrate(const DepthFrame& frame) {
  State& s = *state_;
  const gpu::TsdfCamera c = tsdfCamera(frame, s.options, s.map.model().resolution);
  // Colour where the map has the tsdf_colour layer, as the CPU reference folds it; a map that
  // gained the layer after this integrator was made has it outside the cache: refused, not
  // dropped (before any change).
  const bool coloured = detail::tsdfFoldsColour(s.map, frame);
  if (coloured && !s.cache.poolRange(kTsdfColourLayer))
    throw Error("a coloured depth frame, but the map gained its tsdf_colour layer after this GPU TSDF integrator was made: "
                "sync() and make a new integrator to fold colour");
  GpuTsdfFrameStats stats;
  const uint64_t pixels = frame.depth.pixels();
  s.ensure(s.camera, "tsdf camera", sizeof(gpu::TsdfCamera));
  s.scheduler.upload(s.camera.range(0, sizeof c), &c, sizeof c);
  if (frame.depth.encoding == DepthEncoding::Unsigned16) {
    const uint64_t bytes = (pixels * 2 + 3) / 4 * 4;
    s.ensure(s.depth, "tsdf depth image", bytes);
    if (pixels % 2 == 0) {
      s.scheduler.upload(s.depth.range(0, bytes), frame.depth.depth16.data(), bytes);
    } else {
      std::vector<uint16_t> padded(frame.depth.depth16);
      padded.push_back(0);
      s.scheduler.upload(s.depth.range(0, bytes), padded.data(), bytes);
    }
  } else {
    s.ensure(s.depth, "tsdf depth image", pixels * 4);
    s.scheduler.upload(s.depth.range(0, pixels * 4), frame.depth.depth32.data(), pixels * 4);
  }

  if (coloured) {  // the rgb bytes as they are, padded to whole uints (tsdf_integrate.comp reads bytes)
    const uint64_t bytes = (pixels * 3 + 3) / 4 * 4;
    s.ensure(s.colourImage, "tsdf colour image", bytes);
    if (bytes == frame.colour->rgb.size()) {
      s.scheduler.upload(s.colourImage.range(0, bytes), frame.colour->rgb.data(), bytes);
    } else {
      std::vector<uint8_t> padded(frame.colour->rgb);
      padded.resize(bytes, 0);
      s.scheduler.upload(s.colourImage.range(0, bytes), padded.data(), bytes);
    }
  }

  const std::vector<TsdfBlock> blocks = s.discover(pixels, stats);
  stats.blocks = blocks.size();
  if (blocks.empty()) return stats;
  // The blocks by region, regions in order, in chunks of at most the cache's slots.
  const int32_t n = s.map.regionSize(), b = gpu::kTsdfBlock;
  std::map<RegionKey, std::vector<TsdfBlock>> byRegion;
  for (const TsdfBlock& block : blocks)
    byRegion[{floorDiv(block.x * b, n), floorDiv(block.y * b, n), floorDiv(block.z * b, n)}].push_back(block);
  const auto kernel = s.scheduler.library().kernel("tsdf/tsdf_integrate.comp",
                                                   KernelVariant{{}, {{gpu::kTsdfIntegrateColourId, coloured ? 1u : 0u}}});
  const BufferRange pool = *s.cache.poolRange(kTsdfLayer);
  const std::optional<BufferRange> colourPool = coloured ? s.cache.poolRange(kTsdfColourLayer) : std::nullopt;
  const uint32_t weighting = s.options.weighting == TsdfWeighting::Constant ? gpu::kTsdfWeightConstant : gpu::kTsdfWeightLinearDropOff;
  auto it = byRegion.begin();
  while (it != byRegion.end()) {
    std::vector<RegionKey> keys;
    auto end = it;
    while (end != byRegion.end() && keys.size() < s.cache.slotCount()) keys.push_back((end++)->first);
    s.cache.makeResident(keys, ++s.batch);
    std::vector<gpu::ivec4> entries;
    for (auto r = it; r != end; ++r) {
      const int32_t slot = int32_t(s.cache.slotOf(r->first));
      for (const TsdfBlock& block : r->second) entries.push_back({block.x, block.y, block.z, slot});
    }
    s.ensure(s.blocks, "tsdf blocks", entries.size() * sizeof(gpu::ivec4));
    const BufferRange blockRange = s.blocks.range(0, entries.size() * sizeof(gpu::ivec4));
    s.scheduler.upload(blockRange, entries.data(), blockRange.size);
    gpu::TsdfIntegratePush push{};
    push.camera = s.camera.address();
    push.depth = s.depth.address();
    push.blocks = blockRange.address;
    push.tsdf = pool.address;
    push.blockCount = uint32_t(entries.size());
    push.regionSize = n;
    push.weighting = weighting;
    push.maxWeight = tsdfWeightUnits(s.options.maxWeight);
    std::vector<BufferUse> accesses{reads(s.camera.range()), reads(s.depth.range()), reads(blockRange), readsWrites(pool)};
    if (coloured) {
      push.colourImage = s.colourImage.address();
      push.colour = colourPool->address;
      accesses.push_back(reads(s.colourImage.range()));
      accesses.push_back(readsWrites(*colourPool));
    }
    s.scheduler.dispatchThreads({"tsdf integrate", kernel.get(), {}, push, std::move(accesses)},
                                uint64_t(entries.size()) * gpu::kTsdfBlockVoxels);
    ++stats.chunks;
    it = end;
  }
  return stats;
}

}  // namespace voxen
