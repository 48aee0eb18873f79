#include "voxen/host/buffer.hpp"

#include <volk.h>

#include <utility>

#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

std::string heapState(const Device& device, uint32_t heap) {
  const auto& props = device.memoryProperties();
  return "heap " + std::to_string(heap) + " holds " + formatBytes(props.memoryHeaps[heap].size) + ", of which Voxen uses " +
         formatBytes(device.memoryStats().heapBytes(heap));
}

[[noreturn]] void throwOutOfMemory(const Device& device, const std::string& name, VkDeviceSize size, uint32_t heap,
                                   VkResult result, const std::string& reason) {
  throw OutOfDeviceMemoryError(result, "cannot allocate buffer '" + name + "' of " + formatBytes(size) + " on '" +
                                           device.info().name + "': " + reason + " (" + heapState(device, heap) + ")");
}

}  // namespace

Buffer::Buffer(Device& device, std::string name, VkDeviceSize size, MemoryKind kind)
    : device_(&device), name_(std::move(name)), size_(size), kind_(kind) {
  if (size == 0) throw Error("buffer '" + name_ + "' has size 0");
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
               VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  const VkDevice vk = device.handle();
  VkResult result = vkCreateBuffer(vk, &info, nullptr, &buffer_);
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
    throwOutOfMemory(device, name_, size, 0, result, "vkCreateBuffer ran out of memory");
  VOXEN_VK_CHECK(result);

  try {
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(vk, buffer_, &requirements);
    VkMemoryPropertyFlags required = 0, preferred = 0;
    switch (kind) {
      case MemoryKind::DeviceLocal: preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT; break;
      case MemoryKind::HostUpload:
        required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        break;
      case MemoryKind::HostReadback:
        required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
        break;
    }
    const uint32_t type = device.findMemoryType(requirements.memoryTypeBits, required, preferred);
    if (type == UINT32_MAX) throw Error("no memory type fits buffer '" + name_ + "'");
    const uint32_t heap = device.memoryProperties().memoryTypes[type].heapIndex;
    // Refuse what cannot fit before asking the driver: some drivers (lavapipe) would try.
    const VkDeviceSize heapSize = device.memoryProperties().memoryHeaps[heap].size;
    if (requirements.size > heapSize)
      throwOutOfMemory(device, name_, size, heap, VK_ERROR_OUT_OF_DEVICE_MEMORY, "larger than the whole heap");
    const VkDeviceSize maxAllocation = device.info().maxMemoryAllocationSize;
    if (maxAllocation && requirements.size > maxAllocation)
      throwOutOfMemory(device, name_, size, heap, VK_ERROR_OUT_OF_DEVICE_MEMORY,
                       "larger than the device's maxMemoryAllocationSize of " + formatBytes(maxAllocation));

    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    allocate.pNext = &flags;
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = type;
    result = vkAllocateMemory(vk, &allocate, nullptr, &memory_);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
      throwOutOfMemory(device, name_, size, heap, result, "the driver is out of memory");
    VOXEN_VK_CHECK(result);
    VOXEN_VK_CHECK(vkBindBufferMemory(vk, buffer_, memory_, 0));
    // Mapped only where host writes need no flush: a non-null mapped() means what the host
    // writes is visible to the GPU at the next submission.
    const VkMemoryPropertyFlags hostCoherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((device.memoryProperties().memoryTypes[type].propertyFlags & hostCoherent) == hostCoherent) {
      void* pointer = nullptr;
      VOXEN_VK_CHECK(vkMapMemory(vk, memory_, 0, VK_WHOLE_SIZE, 0, &pointer));
      mapped_ = static_cast<std::byte*>(pointer);
    }
    VkBufferDeviceAddressInfo addressInfo{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    addressInfo.buffer = buffer_;
    address_ = vkGetBufferDeviceAddress(vk, &addressInfo);
    const VkMemoryPropertyFlags typeFlags = device.memoryProperties().memoryTypes[type].propertyFlags;
    statsId_ = device.memoryStats().add(name_, requirements.size, heap,
                                        {.deviceLocal = (typeFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0,
                                         .hostVisible = (typeFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0});
  } catch (...) {
    release();
    throw;
  }
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept { *this = std::move(other); }

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, nullptr);
    name_ = std::move(other.name_);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    address_ = std::exchange(other.address_, 0);
    kind_ = other.kind_;
    mapped_ = std::exchange(other.mapped_, nullptr);
    statsId_ = std::exchange(other.statsId_, 0);
  }
  return *this;
}

BufferRange Buffer::range(VkDeviceSize offset, VkDeviceSize size) const {
  if (offset > size_ || size > size_ - offset)
    throw Error("range [" + std::to_string(offset) + ", +" + std::to_string(size) + ") is outside buffer '" + name_ +
                "' of " + std::to_string(size_) + " bytes");
  return {buffer_, offset, size, address_ + offset, name_.c_str()};
}

void Buffer::release() {
  if (!device_) return;
  Device* device = device_;
  if (statsId_) device->memoryStats().remove(statsId_);
  // The GPU may still use the buffer (recorded or in-flight work): the device destroys it
  // once that work has completed.
  device->destroyWhenUnused(buffer_, [device, buffer = buffer_, memory = memory_] {
    if (buffer) vkDestroyBuffer(device->handle(), buffer, nullptr);
    if (memory) vkFreeMemory(device->handle(), memory, nullptr);  // unmaps implicitly
  });
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
  statsId_ = 0;
  device_ = nullptr;
}

}  // namespace voxen
