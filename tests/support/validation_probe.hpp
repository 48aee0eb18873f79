#pragma once
// A deliberate API misuse that the validation layer reports as
// VUID-VkBufferCreateInfo-size-00912 (a zero-size buffer), for the tests that check where
// validation messages go. The driver never sees a buffer that the layer refused to create.
#include <volk.h>

namespace vt {

inline void createZeroSizeBuffer(VkDevice device) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 0;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  vkCreateBuffer(device, &info, nullptr, &buffer);
  if (buffer != VK_NULL_HANDLE) vkDestroyBuffer(device, buffer, nullptr);
}

}  // namespace vt
