#include "voxen/primitives/stream_compaction.hpp"

#include "voxen/gpu/primitives/scan_tiles.h"

#include <algorithm>
#include <string>

#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

StreamCompaction::StreamCompaction(Scheduler& scheduler)
    : scheduler_(scheduler),
      countKernel_(scheduler.library().kernel("primitives/scan_tiles.comp", {{}, {{gpu::kTileApplyId, 0}, {gpu::kTileFlagsId, 1}}})),
      scatterKernel_(scheduler.library().kernel("primitives/scan_tiles.comp", {{}, {{gpu::kTileApplyId, 1}, {gpu::kTileFlagsId, 1}}})),
      scan_(scheduler) {}

void StreamCompaction::record(const BufferRange& flags, const BufferRange& indices, uint32_t count, const BufferRange& total,
                              const BufferRange* dispatchArgs, uint32_t groupSize) {
  if (count > kMaxItems)
    throw Error("stream compaction of " + std::to_string(count) + " items: at most " + std::to_string(kMaxItems));
  const VkDeviceSize bytes = VkDeviceSize(count) * 4;
  if (flags.size < bytes || indices.size < bytes)
    throw Error("stream compaction of " + std::to_string(count) + " items: range '" +
                std::string(flags.size < bytes ? flags.name : indices.name) + "' holds fewer");
  if (total.size < 4) throw Error("stream compaction: the total's range '" + std::string(total.name) + "' is under 4 bytes");
  if (groupSize == 0) throw Error("stream compaction: groupSize must be at least 1");
  if (dispatchArgs && (dispatchArgs->size < 12 || dispatchArgs->offset % 4 != 0))
    throw Error("stream compaction: the dispatch command's range '" + std::string(dispatchArgs->name) +
                "' must hold 12 bytes at a 4-byte aligned offset");

  const uint32_t numTiles = (count + gpu::kTileItems - 1) / gpu::kTileItems;
  const BufferRange tileSums = scheduler_.transient(std::max<VkDeviceSize>(VkDeviceSize(numTiles) * 4, 4), 16);
  const BufferRange totalRange = total.first(4);
  gpu::TileScanPush push{flags.address, indices.address, tileSums.address, totalRange.address,
                         dispatchArgs ? dispatchArgs->address : 0, count, numTiles, groupSize};
  if (numTiles > 0)
    scheduler_.dispatchThreads({"compaction count", countKernel_.get(), {}, push, {reads(flags.first(bytes)), writes(tileSums)}},
                               uint64_t(numTiles) * gpu::kTileThreads);
  scan_.record(tileSums, tileSums, numTiles, &totalRange);
  std::vector<BufferUse> uses{reads(tileSums), reads(totalRange)};
  if (count > 0) {
    uses.push_back(reads(flags.first(bytes)));
    uses.push_back(writes(indices.first(bytes)));
  }
  if (dispatchArgs) uses.push_back(writes(dispatchArgs->first(12)));
  if (numTiles > 0 || dispatchArgs)  // one workgroup writes the command when there are no tiles
    scheduler_.dispatchThreads({"compaction scatter", scatterKernel_.get(), {}, push, std::move(uses)},
                               uint64_t(std::max(numTiles, 1u)) * gpu::kTileThreads);
}

}  // namespace voxen
