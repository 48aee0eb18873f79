#pragma once
// A persistent device buffer with a stable device address. Shaders reach buffers only
// through these addresses (GL_EXT_buffer_reference in push constants), so a buffer lives
// across batches and frames and is never rebound.
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace voxen {

class Device;

enum class MemoryKind {
  DeviceLocal,  // fastest for the GPU; reached from the host only through the staging ring
  HostUpload,   // host-visible, coherent, write-combined where possible: the host writes
  HostReadback  // host-visible, coherent, cached where possible: the host reads
};

// A view of part of a buffer: what passes declare and what shaders receive as an address.
struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
  VkDeviceAddress address = 0;  // of the first byte of the range
  const char* name = "";
  // The first `bytes` of this range (for declaring what a pass really touches).
  BufferRange first(VkDeviceSize bytes) const { return {buffer, offset, bytes, address, name}; }
};

class Buffer {
 public:
  Buffer() = default;
  Buffer(Device& device, std::string name, VkDeviceSize size, MemoryKind kind = MemoryKind::DeviceLocal);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  VkDeviceAddress address() const { return address_; }
  VkDeviceSize size() const { return size_; }
  const std::string& name() const { return name_; }
  MemoryKind kind() const { return kind_; }
  // Host pointer when the memory is host-visible and coherent (always for the host kinds;
  // also for DeviceLocal on unified-memory devices such as lavapipe, integrated GPUs and
  // Apple's, or with resizable BAR), else nullptr.
  std::byte* mapped() const { return mapped_; }

  BufferRange range() const { return {buffer_, 0, size_, address_, name_.c_str()}; }
  BufferRange range(VkDeviceSize offset, VkDeviceSize size) const;
  operator BufferRange() const { return range(); }  // NOLINT: a buffer is its whole range

 private:
  void release();

  Device* device_ = nullptr;
  std::string name_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  VkDeviceAddress address_ = 0;
  MemoryKind kind_ = MemoryKind::DeviceLocal;
  std::byte* mapped_ = nullptr;
  uint64_t statsId_ = 0;
};

}  // namespace voxen
