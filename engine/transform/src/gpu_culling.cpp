#include "voxen/transform/gpu_culling.hpp"

#include <algorithm>

#include "voxen/gpu/transform/transform_shared.h"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/primitives/stream_compaction.hpp"

namespace voxen {

GpuCulling::GpuCulling(Scheduler& scheduler, GpuTransformTree& tree)
    : scheduler_(scheduler), tree_(tree), compaction_(std::make_unique<StreamCompaction>(scheduler)) {
  cullKernel_ = scheduler.library().kernel("transform/transform_cull.comp");
  gatherKernel_ = scheduler.library().kernel("transform/transform_gather.comp");
  planes_ = Buffer(scheduler.device(), "culling planes", 6 * 16);
  small_ = Buffer(scheduler.device(), "culling count and dispatch", 16);
}

GpuCulling::~GpuCulling() = default;

CullOutput GpuCulling::cull(const Frustum& frustum) {
  if (tree_.capacity() > capacity_) {
    capacity_ = tree_.capacity();
    Device& device = scheduler_.device();
    flags_ = Buffer(device, "culling flags", uint64_t(capacity_) * 4);
    positions_ = Buffer(device, "culling positions", uint64_t(capacity_) * 4);
    visible_ = Buffer(device, "culling visible nodes", uint64_t(capacity_) * 4);
    worldBoxes_ = Buffer(device, "culling world boxes", uint64_t(capacity_) * 32);
  }
  scheduler_.upload(planes_.range(), frustum.planes, sizeof frustum.planes);
  const uint32_t count = tree_.liveNodes();
  gpu::CullPush push{};
  push.worlds = tree_.levelWorlds().address;  // by slot: position i at i + 1, read contiguously
  push.boxes = tree_.boxes().address;
  push.order = tree_.order().address;
  push.planes = planes_.address();
  push.flags = flags_.address();
  push.worldBoxes = worldBoxes_.address();
  push.positions = positions_.address();
  push.visible = visible_.address();
  push.total = small_.address();
  push.count = count;
  const std::vector<BufferUse> uses{reads(tree_.levelWorlds()), reads(tree_.boxes()),          reads(tree_.order()),
                                    reads(planes_.range()),     readsWrites(flags_.range()),   readsWrites(worldBoxes_.range()),
                                    readsWrites(positions_.range()), readsWrites(visible_.range()), readsWrites(small_.range())};
  scheduler_.dispatchThreads({"culling boxes", cullKernel_.get(), {}, push, uses}, count);
  const BufferRange total = small_.range(0, 4), args = small_.range(4, 12);
  compaction_->record(flags_.range(0, uint64_t(std::max(count, 1u)) * 4), positions_.range(), count, total, &args, 64);
  scheduler_.dispatchIndirect({"culling visible nodes", gatherKernel_.get(), {}, push, uses}, args);
  return {visible_.range(), total, args, worldBoxes_.range()};
}

std::vector<uint32_t> GpuCulling::download(const CullOutput& output) {
  const uint32_t count = scheduler_.readback<uint32_t>(output.count).get().front();
  if (count == 0) return {};
  return scheduler_.readback<uint32_t>(output.visible.first(uint64_t(count) * 4)).get();
}

}  // namespace voxen
