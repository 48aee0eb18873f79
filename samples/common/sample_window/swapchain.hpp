#pragma once
// A window's swapchain on a voxen::Device's queue. Its images are only ever transfer
// targets (the sample's frame is copied and blitted in, never rendered), so there are no
// image views or render passes. Recreate after a resize or an out-of-date present.
#include <volk.h>

#include <vector>

#include "voxen/host/device.hpp"

namespace voxen_samples {

struct SwapchainSettings {
  bool vsync = true;          // FIFO; otherwise MAILBOX or IMMEDIATE where offered
  bool readable = false;      // images can be copied out (for --screenshot)
};

class Swapchain {
 public:
  Swapchain(voxen::Device& device, VkSurfaceKHR surface, VkExtent2D framebufferSize, SwapchainSettings settings);
  ~Swapchain();
  Swapchain(const Swapchain&) = delete;
  Swapchain& operator=(const Swapchain&) = delete;

  // Replaces the swapchain (after the device goes idle), e.g. at the window's new size.
  void recreate(VkExtent2D framebufferSize);
  // Before a frame: recreates the swapchain when `stale` (the last present said so) or when
  // it no longer has the window's framebuffer size (X11 may not report a resize as an
  // out-of-date swapchain), and clears `stale`. Returns false, changing nothing, while the
  // window is minimised (a zero size: nothing to present into).
  bool fit(VkExtent2D framebufferSize, bool& stale);

  VkSwapchainKHR handle() const { return swapchain_; }
  VkFormat format() const { return format_; }
  // Blue in the first byte: what we copy in must be swizzled from the frame's RGBA.
  bool bgra() const;
  bool srgb() const;
  VkExtent2D extent() const { return extent_; }
  const std::vector<VkImage>& images() const { return images_; }
  // Signalled when an image's frame is copied in; the present waits on it. One per image,
  // so a semaphore is never reused while the presentation engine may still wait on it.
  VkSemaphore renderFinished(uint32_t image) const { return renderFinished_[image]; }

 private:
  void create(VkExtent2D framebufferSize, VkSwapchainKHR old);
  void destroyImagesSemaphores();

  voxen::Device& device_;
  VkSurfaceKHR surface_;
  SwapchainSettings settings_;
  VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
  VkFormat format_ = VK_FORMAT_UNDEFINED;
  VkColorSpaceKHR colorSpace_ = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
  VkPresentModeKHR presentMode_ = VK_PRESENT_MODE_FIFO_KHR;
  VkExtent2D extent_{};
  std::vector<VkImage> images_;
  std::vector<VkSemaphore> renderFinished_;
};

}  // namespace voxen_samples
