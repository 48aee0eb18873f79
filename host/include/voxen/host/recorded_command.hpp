#pragma once
// What the scheduler's recording log says about each command: the byte ranges it declared,
// its pipeline stages and the barrier placed before it. Public because
// Scheduler::recordingLog() hands these out; how barriers are derived stays internal.
#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <string>
#include <vector>

namespace voxen {

// One declared access of a command to a byte range of a resource (a VkBuffer handle).
struct ResourceAccess {
  static constexpr uint64_t kWholeResource = ~uint64_t(0);
  uint64_t resource = 0;
  bool read = false;
  bool write = false;
  uint64_t offset = 0;
  uint64_t size = kWholeResource;  // clamped to the end of the resource
  uint64_t end() const { return size > kWholeResource - offset ? kWholeResource : offset + size; }
  bool overlaps(const ResourceAccess& other) const {
    return resource == other.resource && offset < other.end() && other.offset < end();
  }
};

// A global memory barrier: earlier work in srcStages finishes, and its srcAccess writes
// become visible to dstAccess in dstStages, before later work in dstStages starts.
struct Barrier {
  VkPipelineStageFlags srcStages = 0;
  VkPipelineStageFlags dstStages = 0;
  VkAccessFlags srcAccess = 0;
  VkAccessFlags dstAccess = 0;
  bool empty() const { return srcStages == 0; }
};

// One command as recorded, with the barrier placed before it: for tests and debugging.
struct RecordedCommand {
  std::string name;
  VkPipelineStageFlags stage = 0;  // every stage the command's accesses may happen in
  std::vector<ResourceAccess> accesses;
  Barrier barrierBefore;
};

// The memory accesses a command in `stage` may make to buffers (empty for stages that
// touch no buffer memory).
VkAccessFlags readAccessOf(VkPipelineStageFlags stage);
VkAccessFlags writeAccessOf(VkPipelineStageFlags stage);

}  // namespace voxen
