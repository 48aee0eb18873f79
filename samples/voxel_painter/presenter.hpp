#pragma once
// Shows an RGBA8 buffer (the painter's frame: row-major, top row first) in a swapchain.
//
// Per frame: the scheduler copies the buffer into this frame slot's staging buffer (so the
// scheduler, which owns the source, orders the copy after the frame's writes and before the
// source is reused); our own command buffer then copies staging into an RGBA8 image and
// blits that into the acquired swapchain image. The blit converts RGBA to the swapchain's
// BGRA where needed and stretches the frame over a resized window. The submission waits
// for the acquire semaphore and signals the image's present semaphore; a fence per slot
// says when the slot's staging buffer, image and command buffer are free again.
#include <volk.h>

#include <cstdint>
#include <vector>

#include "swapchain.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxel_painter {

struct CapturedImage {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;  // rows top to bottom, bytes R, G, B, A
};

class Presenter {
 public:
  // `width` x `height`: the size of the buffers present() is given.
  Presenter(voxen::Scheduler& scheduler, Swapchain& swapchain, uint32_t width, uint32_t height);
  ~Presenter();
  Presenter(const Presenter&) = delete;
  Presenter& operator=(const Presenter&) = delete;

  struct Outcome {
    bool submitted = false;        // the frame was copied in and queued for presentation
    bool swapchainStale = false;   // recreate the swapchain before the next present
  };
  // With `capture`, the presented image is also read back for takeCapture().
  Outcome present(const voxen::BufferRange& rgba, bool capture);
  // The image captured by the latest present(capture = true) as presented, converted to
  // RGBA; waits for that frame. Throws if no capture is pending.
  CapturedImage takeCapture();
  // Waits until every frame this presenter submitted has finished.
  void waitIdle();

 private:
  struct Slot {
    voxen::Buffer staging;  // this frame's pixels, written by the scheduler's copy
    VkImage image = VK_NULL_HANDLE;  // RGBA8, the blit's source
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence done = VK_NULL_HANDLE;
    VkSemaphore acquired = VK_NULL_HANDLE;
  };
  void createSlot(Slot& slot, uint32_t index);
  void destroySlot(Slot& slot);
  void waitSlot(const Slot& slot) const;
  void record(Slot& slot, uint32_t imageIndex, bool capture);

  voxen::Scheduler& scheduler_;
  voxen::Device& device_;
  Swapchain& swapchain_;
  uint32_t width_, height_;
  VkFormat imageFormat_;
  VkFilter stretchFilter_ = VK_FILTER_NEAREST;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  std::vector<Slot> slots_;
  uint32_t next_ = 0;
  // The pending capture: the swapchain image copied into host-visible memory.
  voxen::Buffer captureBuffer_;
  VkExtent2D captureExtent_{};
  bool captureBgra_ = false;
  int captureSlot_ = -1;
};

}  // namespace voxel_painter
