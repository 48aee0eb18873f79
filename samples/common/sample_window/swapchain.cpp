#include "sample_window/swapchain.hpp"

#include <algorithm>
#include <string>

#include "voxen/host/error.hpp"

namespace voxen_samples {

using voxen::Error;

namespace {

// 8-bit RGBA or BGRA in sRGB colour space: the frame's bytes go in as they are (a copy
// or a same-encoding blit never converts), so UNORM and SRGB formats both show them right.
VkSurfaceFormatKHR chooseFormat(VkPhysicalDevice physical, VkSurfaceKHR surface) {
  uint32_t count = 0;
  VOXEN_VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, nullptr));
  std::vector<VkSurfaceFormatKHR> formats(count);
  VOXEN_VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, formats.data()));
  for (VkFormat wanted : {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_SRGB})
    for (const auto& f : formats)
      if (f.format == wanted && f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return f;
  std::string offered;
  for (const auto& f : formats) offered += (offered.empty() ? "" : ", ") + std::to_string(int(f.format));
  throw Error("the window surface offers no 8-bit RGBA/BGRA format in sRGB colour space (VkFormat values offered: " +
              offered + ")");
}

VkPresentModeKHR choosePresentMode(VkPhysicalDevice physical, VkSurfaceKHR surface, bool vsync) {
  if (vsync) return VK_PRESENT_MODE_FIFO_KHR;  // always supported
  uint32_t count = 0;
  VOXEN_VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(physical, surface, &count, nullptr));
  std::vector<VkPresentModeKHR> modes(count);
  VOXEN_VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(physical, surface, &count, modes.data()));
  for (VkPresentModeKHR wanted : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR})
    if (std::find(modes.begin(), modes.end(), wanted) != modes.end()) return wanted;
  return VK_PRESENT_MODE_FIFO_KHR;
}

}  // namespace

Swapchain::Swapchain(voxen::Device& device, VkSurfaceKHR surface, VkExtent2D framebufferSize, SwapchainSettings settings)
    : device_(device), surface_(surface), settings_(settings) {
  VkBool32 canPresent = VK_FALSE;
  VOXEN_VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(device.physicalDevice(), device.queueFamily(), surface, &canPresent));
  if (!canPresent)
    throw Error("device '" + device.info().name + "' cannot present to this window from its compute queue family " +
                std::to_string(device.queueFamily()));
  const VkSurfaceFormatKHR format = chooseFormat(device.physicalDevice(), surface);
  format_ = format.format;
  colorSpace_ = format.colorSpace;
  presentMode_ = choosePresentMode(device.physicalDevice(), surface, settings.vsync);
  create(framebufferSize, VK_NULL_HANDLE);
}

Swapchain::~Swapchain() {
  // Presentation may still read the images: let the queue drain first.
  vkDeviceWaitIdle(device_.handle());
  destroyImagesSemaphores();
  if (swapchain_) vkDestroySwapchainKHR(device_.handle(), swapchain_, nullptr);
}

bool Swapchain::bgra() const { return format_ == VK_FORMAT_B8G8R8A8_UNORM || format_ == VK_FORMAT_B8G8R8A8_SRGB; }
bool Swapchain::srgb() const { return format_ == VK_FORMAT_R8G8B8A8_SRGB || format_ == VK_FORMAT_B8G8R8A8_SRGB; }

bool Swapchain::fit(VkExtent2D framebufferSize, bool& stale) {
  if (framebufferSize.width == 0 || framebufferSize.height == 0) return false;
  if (stale || framebufferSize.width != extent_.width || framebufferSize.height != extent_.height) {
    recreate(framebufferSize);
    stale = false;
  }
  return true;
}

void Swapchain::recreate(VkExtent2D framebufferSize) {
  VOXEN_VK_CHECK(vkDeviceWaitIdle(device_.handle()));
  destroyImagesSemaphores();
  const VkSwapchainKHR old = swapchain_;
  swapchain_ = VK_NULL_HANDLE;
  try {
    create(framebufferSize, old);
  } catch (...) {
    vkDestroySwapchainKHR(device_.handle(), old, nullptr);
    throw;
  }
  vkDestroySwapchainKHR(device_.handle(), old, nullptr);
}

void Swapchain::create(VkExtent2D framebufferSize, VkSwapchainKHR old) {
  VkSurfaceCapabilitiesKHR caps{};
  VOXEN_VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(device_.physicalDevice(), surface_, &caps));
  // Frames are copied in, so the images must be transfer targets (and sources to read
  // a screenshot back).
  VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
    throw Error("the window's swapchain images cannot be transfer destinations on '" + device_.info().name + "'");
  if (settings_.readable) {
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT))
      throw Error("the window's swapchain images cannot be read back on '" + device_.info().name +
                  "' (no TRANSFER_SRC usage), so --screenshot is unavailable");
    usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  }
  // currentExtent is the window's size, or 0xFFFFFFFF where the swapchain decides it.
  extent_ = caps.currentExtent;
  if (extent_.width == UINT32_MAX) {
    extent_.width = std::clamp(framebufferSize.width, caps.minImageExtent.width, caps.maxImageExtent.width);
    extent_.height = std::clamp(framebufferSize.height, caps.minImageExtent.height, caps.maxImageExtent.height);
  }
  if (extent_.width == 0 || extent_.height == 0) throw Error("cannot create a swapchain for a window of size 0");
  uint32_t imageCount = caps.minImageCount + 1;
  if (caps.maxImageCount > 0) imageCount = std::min(imageCount, caps.maxImageCount);
  VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  for (VkCompositeAlphaFlagBitsKHR candidate :
       {VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR, VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR, VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR,
        VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR})
    if (caps.supportedCompositeAlpha & candidate) {
      alpha = candidate;
      break;
    }

  VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  info.surface = surface_;
  info.minImageCount = imageCount;
  info.imageFormat = format_;
  info.imageColorSpace = colorSpace_;
  info.imageExtent = extent_;
  info.imageArrayLayers = 1;
  info.imageUsage = usage;
  info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;  // one queue records and presents
  info.preTransform = (caps.supportedTransforms & VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR) ? VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR
                                                                                         : caps.currentTransform;
  info.compositeAlpha = alpha;
  info.presentMode = presentMode_;
  info.clipped = VK_TRUE;
  info.oldSwapchain = old;
  VOXEN_VK_CHECK(vkCreateSwapchainKHR(device_.handle(), &info, nullptr, &swapchain_));

  uint32_t count = 0;
  VOXEN_VK_CHECK(vkGetSwapchainImagesKHR(device_.handle(), swapchain_, &count, nullptr));
  images_.resize(count);
  VOXEN_VK_CHECK(vkGetSwapchainImagesKHR(device_.handle(), swapchain_, &count, images_.data()));
  renderFinished_.assign(count, VK_NULL_HANDLE);
  const VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  for (auto& semaphore : renderFinished_) VOXEN_VK_CHECK(vkCreateSemaphore(device_.handle(), &semaphoreInfo, nullptr, &semaphore));
}

void Swapchain::destroyImagesSemaphores() {
  for (VkSemaphore semaphore : renderFinished_) vkDestroySemaphore(device_.handle(), semaphore, nullptr);
  renderFinished_.clear();
  images_.clear();
}

}  // namespace voxen_samples
