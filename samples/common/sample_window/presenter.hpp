#pragma once
// Shows an RGBA8 buffer (a sample's frame, such as the painter's: row-major, top row first) in a
// swapchain.
//
// Per frame, one command recorded through the scheduler copies the buffer into this frame
// slot's RGBA8 image and blits that into the acquired swapchain image. The command declares
// that it reads the buffer, so the scheduler orders it after the frame's writes and before
// the buffer is reused; the image layouts it handles itself. The blit converts RGBA to the
// swapchain's BGRA where needed and stretches the frame over a resized window. The batch
// that carries the command waits for the acquire semaphore and signals the image's present
// semaphore; its timeline value says when the slot's image and semaphore are free again.
#include <volk.h>

#include <cstdint>
#include <vector>

#include "sample_window/swapchain.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen_samples {

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
    VkImage image = VK_NULL_HANDLE;  // RGBA8, the blit's source
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkSemaphore acquired = VK_NULL_HANDLE;
    uint64_t submitted = 0;  // the scheduler's timeline value of the batch that last used the slot
  };
  void createSlot(Slot& slot);
  void destroySlot(Slot& slot);
  void waitSlot(const Slot& slot);
  void record(VkCommandBuffer cmd, const Slot& slot, const voxen::BufferRange& rgba, uint32_t imageIndex, bool capture);

  voxen::Scheduler& scheduler_;
  voxen::Device& device_;
  Swapchain& swapchain_;
  uint32_t width_, height_;
  VkFormat imageFormat_;
  VkFilter stretchFilter_ = VK_FILTER_NEAREST;
  std::vector<Slot> slots_;
  uint32_t next_ = 0;
  // The pending capture: the swapchain image copied into a buffer, then read back.
  voxen::Buffer captureBuffer_;
  VkExtent2D captureExtent_{};
  bool captureBgra_ = false;
  voxen::Future<uint8_t> capture_;
};

}  // namespace voxen_samples
