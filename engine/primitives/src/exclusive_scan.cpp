#include "voxen/primitives/exclusive_scan.hpp"

#include "voxen/gpu/primitives/radix_sort.h"
#include "voxen/gpu/primitives/scan_tiles.h"

#include <string>

#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

ExclusiveScan::ExclusiveScan(Scheduler& scheduler)
    : scheduler_(scheduler),
      kernel_(scheduler.library().kernel("primitives/exclusive_scan.comp")),
      reduceKernel_(scheduler.library().kernel("primitives/scan_tiles.comp", {{}, {{gpu::kTileApplyId, 0}, {gpu::kTileFlagsId, 0}}})),
      applyKernel_(scheduler.library().kernel("primitives/scan_tiles.comp", {{}, {{gpu::kTileApplyId, 1}, {gpu::kTileFlagsId, 0}}})) {}

void ExclusiveScan::record(const BufferRange& src, const BufferRange& dst, uint32_t count, const BufferRange* total) {
  if (count > kMaxItems)
    throw Error("exclusive scan of " + std::to_string(count) + " items: at most " + std::to_string(kMaxItems) +
                " in one scan");
  const VkDeviceSize bytes = VkDeviceSize(count) * 4;
  if (src.size < bytes || dst.size < bytes)
    throw Error("exclusive scan of " + std::to_string(count) + " items: range '" +
                std::string(src.size < bytes ? src.name : dst.name) + "' holds fewer");
  if (total && total->size < 4) throw Error("exclusive scan: the total's range '" + std::string(total->name) + "' is under 4 bytes");
  if (count == 0 && !total) return;
  const bool inPlace = src.buffer == dst.buffer && src.offset == dst.offset;
  std::vector<BufferUse> uses;
  if (count > 0) {
    if (inPlace) {
      uses.push_back(readsWrites(src.first(bytes)));
    } else {
      uses.push_back(reads(src.first(bytes)));
      uses.push_back(writes(dst.first(bytes)));
    }
  }
  if (count <= kSingleMaxItems) {
    if (total) uses.push_back(writes(total->first(4)));
    gpu::ExclusiveScanPush push{src.address, dst.address, total ? total->address : 0, count};
    scheduler_.dispatch({"exclusive scan", kernel_.get(), {1, 1, 1}, push, std::move(uses)});
    return;
  }
  // Tiles: reduce, scan the tile sums (in place, with the total), apply.
  const uint32_t numTiles = (count + gpu::kTileItems - 1) / gpu::kTileItems;
  const BufferRange tileSums = scheduler_.transient(VkDeviceSize(numTiles) * 4, 16);
  gpu::TileScanPush push{src.address, dst.address, tileSums.address, 0, 0, count, numTiles, 1};
  scheduler_.dispatchThreads({"exclusive scan reduce", reduceKernel_.get(), {}, push, {reads(src.first(bytes)), writes(tileSums)}},
                             uint64_t(numTiles) * gpu::kTileThreads);
  record(tileSums, tileSums, numTiles, total);
  uses.push_back(reads(tileSums));
  scheduler_.dispatchThreads({"exclusive scan apply", applyKernel_.get(), {}, push, std::move(uses)},
                             uint64_t(numTiles) * gpu::kTileThreads);
}

}  // namespace voxen
