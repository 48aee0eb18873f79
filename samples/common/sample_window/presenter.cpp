#include "sample_window/presenter.hpp"

#include <cstring>
#include <string>

#include "voxen/host/error.hpp"

namespace voxen_samples {

using voxen::Error;

namespace {

constexpr uint32_t kFramesInFlight = 2;
constexpr uint64_t kAcquireTimeoutNs = 10ull * 1000 * 1000 * 1000;  // the window system gives no image

constexpr VkImageSubresourceRange kColorRange{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
constexpr VkImageSubresourceLayers kColorLayers{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};

VkImageMemoryBarrier imageBarrier(VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags srcAccess,
                                  VkAccessFlags dstAccess) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = kColorRange;
  return b;
}

VkFormatFeatureFlags optimalFeatures(VkPhysicalDevice physical, VkFormat format) {
  VkFormatProperties properties{};
  vkGetPhysicalDeviceFormatProperties(physical, format, &properties);
  return properties.optimalTilingFeatures;
}

}  // namespace

Presenter::Presenter(voxen::Scheduler& scheduler, Swapchain& swapchain, uint32_t width, uint32_t height)
    : scheduler_(scheduler), device_(scheduler.device()), swapchain_(swapchain), width_(width), height_(height) {
  // The blit's source has the swapchain's encoding, so the blit only reorders channels
  // (and stretches); an sRGB-to-UNORM blit would re-encode the colours.
  imageFormat_ = swapchain.srgb() ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM;
  const VkPhysicalDevice physical = device_.physicalDevice();
  const VkFormatFeatureFlags source = optimalFeatures(physical, imageFormat_);
  if ((source & VK_FORMAT_FEATURE_BLIT_SRC_BIT) == 0 || (optimalFeatures(physical, swapchain.format()) & VK_FORMAT_FEATURE_BLIT_DST_BIT) == 0)
    throw Error("device '" + device_.info().name + "' cannot blit RGBA8 images into the swapchain's format (VkFormat " +
                std::to_string(int(swapchain.format())) + ")");
  if (source & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) stretchFilter_ = VK_FILTER_LINEAR;

  slots_.resize(kFramesInFlight);
  try {
    for (auto& slot : slots_) createSlot(slot);
  } catch (...) {
    for (auto& slot : slots_) destroySlot(slot);
    throw;
  }
}

Presenter::~Presenter() {
  try {
    waitIdle();
  } catch (...) {
    vkDeviceWaitIdle(device_.handle());  // destruction must not throw; drain the GPU instead
  }
  for (auto& slot : slots_) destroySlot(slot);
}

void Presenter::createSlot(Slot& slot) {
  const VkDevice vk = device_.handle();
  VkImageCreateInfo imageInfo{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  imageInfo.imageType = VK_IMAGE_TYPE_2D;
  imageInfo.format = imageFormat_;
  imageInfo.extent = {width_, height_, 1};
  imageInfo.mipLevels = 1;
  imageInfo.arrayLayers = 1;
  imageInfo.samples = VK_SAMPLE_COUNT_1_BIT;
  imageInfo.tiling = VK_IMAGE_TILING_OPTIMAL;
  imageInfo.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  imageInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  imageInfo.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VOXEN_VK_CHECK(vkCreateImage(vk, &imageInfo, nullptr, &slot.image));
  VkMemoryRequirements requirements{};
  vkGetImageMemoryRequirements(vk, slot.image, &requirements);
  VkMemoryAllocateInfo allocation{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocation.allocationSize = requirements.size;
  allocation.memoryTypeIndex = device_.findMemoryType(requirements.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (allocation.memoryTypeIndex == UINT32_MAX) throw Error("no memory type fits the presenter's RGBA8 image");
  VOXEN_VK_CHECK(vkAllocateMemory(vk, &allocation, nullptr, &slot.memory));
  VOXEN_VK_CHECK(vkBindImageMemory(vk, slot.image, slot.memory, 0));
  const VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VOXEN_VK_CHECK(vkCreateSemaphore(vk, &semaphoreInfo, nullptr, &slot.acquired));
}

void Presenter::destroySlot(Slot& slot) {
  const VkDevice vk = device_.handle();
  if (slot.acquired) vkDestroySemaphore(vk, slot.acquired, nullptr);
  if (slot.image) vkDestroyImage(vk, slot.image, nullptr);
  if (slot.memory) vkFreeMemory(vk, slot.memory, nullptr);
  slot = Slot{};
}

void Presenter::waitSlot(const Slot& slot) {
  if (slot.submitted) scheduler_.wait(slot.submitted);  // times out with an Error rather than hanging
}

void Presenter::waitIdle() {
  for (const auto& slot : slots_) waitSlot(slot);
}

Presenter::Outcome Presenter::present(const voxen::BufferRange& rgba, bool capture) {
  if (rgba.size != uint64_t(width_) * height_ * 4)
    throw Error("present: '" + std::string(rgba.name) + "' holds " + std::to_string(rgba.size) + " bytes, not " +
                std::to_string(width_) + "x" + std::to_string(height_) + " RGBA8 pixels");
  Slot& slot = slots_[next_];
  waitSlot(slot);  // its image and acquire semaphore are free from here on

  uint32_t imageIndex = 0;
  const VkResult acquired =
      vkAcquireNextImageKHR(device_.handle(), swapchain_.handle(), kAcquireTimeoutNs, slot.acquired, VK_NULL_HANDLE, &imageIndex);
  if (acquired == VK_ERROR_OUT_OF_DATE_KHR) return {false, true};  // nothing was signalled: drop the frame
  if (acquired == VK_TIMEOUT || acquired == VK_NOT_READY) throw Error("the window system gave no swapchain image within 10 s");
  if (acquired != VK_SUBOPTIMAL_KHR) VOXEN_VK_CHECK(acquired);

  // The frame's own work goes to the GPU now, in a batch that need not wait for the window
  // system; the batch below waits for the acquired image.
  scheduler_.submit();
  std::vector<voxen::BufferUse> uses = {voxen::reads(rgba)};
  if (capture) {
    const VkExtent2D extent = swapchain_.extent();
    const uint64_t bytes = uint64_t(extent.width) * extent.height * 4;
    // A buffer replaced here is destroyed once the GPU no longer uses it.
    if (captureBuffer_.size() != bytes) captureBuffer_ = voxen::Buffer(device_, "screenshot", bytes);
    captureExtent_ = extent;
    captureBgra_ = swapchain_.bgra();
    uses.push_back(voxen::writes(captureBuffer_.range()));
  }
  const VkSemaphore finished = swapchain_.renderFinished(imageIndex);
  scheduler_.waitSemaphoreOnSubmit(slot.acquired, VK_PIPELINE_STAGE_TRANSFER_BIT);  // the first write to the image is a transfer
  scheduler_.signalSemaphoreOnSubmit(finished);
  scheduler_.record({.name = "present",
                     .stages = VK_PIPELINE_STAGE_TRANSFER_BIT,
                     .uses = std::move(uses),
                     .record = [&](VkCommandBuffer cmd) { record(cmd, slot, rgba, imageIndex, capture); }});
  if (capture) capture_ = scheduler_.readback<uint8_t>(captureBuffer_.range());
  slot.submitted = scheduler_.submit();
  next_ = (next_ + 1) % uint32_t(slots_.size());

  VkPresentInfoKHR presentInfo{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  const VkSwapchainKHR swapchain = swapchain_.handle();
  presentInfo.waitSemaphoreCount = 1;
  presentInfo.pWaitSemaphores = &finished;
  presentInfo.swapchainCount = 1;
  presentInfo.pSwapchains = &swapchain;
  presentInfo.pImageIndices = &imageIndex;
  // The queue is shared with the schedulers' submissions (Device::submit): under its lock.
  const VkResult presented = [&] {
    const auto lock = device_.queueLock(0);
    return vkQueuePresentKHR(device_.queue(), &presentInfo);
  }();
  Outcome outcome{true, acquired == VK_SUBOPTIMAL_KHR};
  if (presented == VK_ERROR_OUT_OF_DATE_KHR || presented == VK_SUBOPTIMAL_KHR)
    outcome.swapchainStale = true;
  else
    VOXEN_VK_CHECK(presented);
  return outcome;
}

void Presenter::record(VkCommandBuffer cmd, const Slot& slot, const voxen::BufferRange& rgba, uint32_t imageIndex,
                       bool capture) {
  const VkImage target = swapchain_.images()[imageIndex];
  const VkExtent2D extent = swapchain_.extent();
  const VkPipelineStageFlags transfer = VK_PIPELINE_STAGE_TRANSFER_BIT;

  // The image's old contents are not needed. (The scheduler's barrier before this command
  // orders the read of `rgba` after the frame's writes.)
  {
    const VkImageMemoryBarrier toCopy = imageBarrier(slot.image, VK_IMAGE_LAYOUT_UNDEFINED,
                                                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdPipelineBarrier(cmd, transfer, transfer, 0, 0, nullptr, 0, nullptr, 1, &toCopy);
  }
  VkBufferImageCopy copy{};
  copy.bufferOffset = rgba.offset;
  copy.imageSubresource = kColorLayers;
  copy.imageExtent = {width_, height_, 1};
  vkCmdCopyBufferToImage(cmd, rgba.buffer, slot.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);

  // The copied image becomes the blit's source. The swapchain image's transition waits at
  // the transfer stage, where the submission waits for the acquire semaphore.
  {
    const VkImageMemoryBarrier barriers[2] = {
        imageBarrier(slot.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                     VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT),
        imageBarrier(target, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT)};
    vkCmdPipelineBarrier(cmd, transfer, transfer, 0, 0, nullptr, 0, nullptr, 2, barriers);
  }
  VkImageBlit blit{};
  blit.srcSubresource = blit.dstSubresource = kColorLayers;
  blit.srcOffsets[1] = {int32_t(width_), int32_t(height_), 1};
  blit.dstOffsets[1] = {int32_t(extent.width), int32_t(extent.height), 1};
  const bool sameSize = extent.width == width_ && extent.height == height_;
  vkCmdBlitImage(cmd, slot.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit,
                 sameSize ? VK_FILTER_NEAREST : stretchFilter_);

  if (capture) {
    // Into the capture buffer, which the scheduler then reads back (it declared the write).
    const VkImageMemoryBarrier toRead = imageBarrier(target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                                     VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    vkCmdPipelineBarrier(cmd, transfer, transfer, 0, 0, nullptr, 0, nullptr, 1, &toRead);
    VkBufferImageCopy readback{};
    readback.imageSubresource = kColorLayers;
    readback.imageExtent = {extent.width, extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, captureBuffer_.handle(), 1, &readback);
    const VkImageMemoryBarrier toPresent =
        imageBarrier(target, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, 0, 0);
    vkCmdPipelineBarrier(cmd, transfer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 0, nullptr, 1, &toPresent);
  } else {
    const VkImageMemoryBarrier toPresent = imageBarrier(target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                                        VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_ACCESS_TRANSFER_WRITE_BIT, 0);
    vkCmdPipelineBarrier(cmd, transfer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 0, nullptr, 1, &toPresent);
  }
}

CapturedImage Presenter::takeCapture() {
  if (!capture_.valid()) throw Error("takeCapture() without a present(capture = true) before it");
  CapturedImage image;
  image.width = captureExtent_.width;
  image.height = captureExtent_.height;
  image.rgba = capture_.get();  // waits for the frame
  if (captureBgra_)
    for (size_t i = 0; i < image.rgba.size(); i += 4) std::swap(image.rgba[i], image.rgba[i + 2]);
  return image;
}

}  // namespace voxen_samples
