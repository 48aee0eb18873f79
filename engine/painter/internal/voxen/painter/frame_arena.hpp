#pragma once
// One large persistent device buffer with a frame allocator: a persistent part at fixed
// places (the voxel grid, the block table) and `frames` per-frame slabs used in turn, each
// reset when its turn comes (triangles, counters, framebuffer, image). Frames on one queue
// run in order, so a slab is reused only after the frames recorded before it: no host wait.
#include <cstdint>
#include <string>

#include "voxen/host/buffer.hpp"

namespace voxen {

class Device;

namespace detail {

class FrameArena {
 public:
  static constexpr VkDeviceSize kAlignment = 256;
  static VkDeviceSize aligned(VkDeviceSize bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

  FrameArena(Device& device, std::string name, VkDeviceSize persistentBytes, VkDeviceSize perFrameBytes, uint32_t frames);

  // Bump allocation in the persistent part; throws when it is exhausted.
  BufferRange persistent(VkDeviceSize bytes);
  // Moves to the next slab and empties it.
  void beginFrame();
  // Bump allocation in the current slab; throws when it is exhausted.
  BufferRange frame(VkDeviceSize bytes);
  uint32_t slab() const { return slab_; }
  uint32_t frames() const { return frames_; }
  const Buffer& buffer() const { return buffer_; }

 private:
  BufferRange take(VkDeviceSize& cursor, VkDeviceSize end, VkDeviceSize bytes, const char* part);

  std::string name_;
  Buffer buffer_;
  VkDeviceSize persistentBytes_, perFrameBytes_;
  uint32_t frames_;
  VkDeviceSize persistentCursor_ = 0;
  uint32_t slab_ = 0;
  VkDeviceSize frameCursor_ = 0;
  bool begun_ = false;
};

}  // namespace detail
}  // namespace voxen
