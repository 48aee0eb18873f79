#include "voxen/primitives/exclusive_scan.hpp"

#include "voxen/gpu/primitives/radix_sort.h"

#include <string>

#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

namespace {
BufferRange prefix(const BufferRange& range, VkDeviceSize bytes) {
  return {range.buffer, range.offset, bytes, range.address, range.name};
}
}  // namespace

ExclusiveScan::ExclusiveScan(Scheduler& scheduler)
    : scheduler_(scheduler), kernel_(scheduler.library().kernel("primitives/exclusive_scan.comp")) {}

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
  std::vector<BufferUse> uses;
  if (count > 0) {
    if (src.buffer == dst.buffer && src.offset == dst.offset) {
      uses.push_back(readsWrites(prefix(src, bytes)));
    } else {
      uses.push_back(reads(prefix(src, bytes)));
      uses.push_back(writes(prefix(dst, bytes)));
    }
  }
  if (total) uses.push_back(writes(prefix(*total, 4)));
  gpu::ExclusiveScanPush push{src.address, dst.address, total ? total->address : 0, count};
  scheduler_.dispatch({"exclusive scan", kernel_.get(), {1, 1, 1}, push, std::move(uses)});
}

}  // namespace voxen
