#include "voxen/host/barrier_tracker.hpp"

namespace voxen {

VkAccessFlags readAccessOf(VkPipelineStageFlags stage) {
  VkAccessFlags access = 0;
  if (stage & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) access |= VK_ACCESS_SHADER_READ_BIT;
  if (stage & VK_PIPELINE_STAGE_TRANSFER_BIT) access |= VK_ACCESS_TRANSFER_READ_BIT;
  if (stage & VK_PIPELINE_STAGE_HOST_BIT) access |= VK_ACCESS_HOST_READ_BIT;
  if (stage & VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT) access |= VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  return access;
}

VkAccessFlags writeAccessOf(VkPipelineStageFlags stage) {
  VkAccessFlags access = 0;
  if (stage & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) access |= VK_ACCESS_SHADER_WRITE_BIT;
  if (stage & VK_PIPELINE_STAGE_TRANSFER_BIT) access |= VK_ACCESS_TRANSFER_WRITE_BIT;
  if (stage & VK_PIPELINE_STAGE_HOST_BIT) access |= VK_ACCESS_HOST_WRITE_BIT;
  return access;
}

Barrier BarrierTracker::record(VkPipelineStageFlags stage, std::span<const ResourceAccess> accesses) {
  Barrier barrier;
  for (const ResourceAccess& access : accesses) {
    const State& s = states_[access.resource];
    const bool unseenWrite = s.writeStage && !(s.visibleTo & stage);
    if ((access.read || access.write) && unseenWrite) {  // read-after-write, write-after-write
      barrier.srcStages |= s.writeStage;
      barrier.srcAccess |= s.writeAccess;
    }
    if (access.write && s.readStages && !(s.readsOrderedBefore & stage))  // write-after-read
      barrier.srcStages |= s.readStages;
  }
  if (!barrier.empty()) {
    barrier.dstStages = stage;
    barrier.dstAccess = readAccessOf(stage) | writeAccessOf(stage);
    // The barrier is global: it orders and publishes every earlier access in its source
    // scope, not only those of this command's buffers.
    for (auto& [resource, s] : states_) {
      if (s.writeStage && !(s.writeStage & ~barrier.srcStages) && !(s.writeAccess & ~barrier.srcAccess))
        s.visibleTo |= barrier.dstStages;
      if (s.readStages && !(s.readStages & ~barrier.srcStages)) s.readsOrderedBefore |= barrier.dstStages;
    }
  }
  for (const ResourceAccess& access : accesses) {
    State& s = states_[access.resource];
    if (access.write) {
      s = State{};
      s.writeStage = stage;
      s.writeAccess = writeAccessOf(stage);
    } else if (access.read) {
      s.readStages |= stage;
      s.readsOrderedBefore = 0;
    }
  }
  return barrier;
}

}  // namespace voxen
