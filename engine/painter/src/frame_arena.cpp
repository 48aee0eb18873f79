#include "voxen/painter/frame_arena.hpp"

#include "voxen/host/error.hpp"

namespace voxen::detail {

FrameArena::FrameArena(Device& device, std::string name, VkDeviceSize persistentBytes, VkDeviceSize perFrameBytes,
                       uint32_t frames)
    : name_(std::move(name)),
      persistentBytes_(aligned(persistentBytes)),
      perFrameBytes_(aligned(perFrameBytes)),
      frames_(frames) {
  if (frames == 0) throw Error(name_ + ": a frame arena needs at least one frame slab");
  buffer_ = Buffer(device, name_, persistentBytes_ + perFrameBytes_ * frames);
}

BufferRange FrameArena::take(VkDeviceSize& cursor, VkDeviceSize end, VkDeviceSize bytes, const char* part) {
  const VkDeviceSize size = aligned(std::max<VkDeviceSize>(bytes, 4));
  if (cursor + size > end)
    throw Error(name_ + ": the " + part + " part is full (" + std::to_string(bytes) + " bytes asked, " +
                std::to_string(end - cursor) + " left)");
  const BufferRange range = buffer_.range(cursor, bytes ? bytes : 4);
  cursor += size;
  return range;
}

BufferRange FrameArena::persistent(VkDeviceSize bytes) {
  return take(persistentCursor_, persistentBytes_, bytes, "persistent");
}

void FrameArena::beginFrame() {
  slab_ = begun_ ? (slab_ + 1) % frames_ : 0;
  begun_ = true;
  frameCursor_ = persistentBytes_ + perFrameBytes_ * slab_;
}

BufferRange FrameArena::frame(VkDeviceSize bytes) {
  if (!begun_) throw Error(name_ + ": frame allocation before beginFrame()");
  return take(frameCursor_, persistentBytes_ + perFrameBytes_ * (slab_ + 1), bytes, "per-frame");
}

}  // namespace voxen::detail
