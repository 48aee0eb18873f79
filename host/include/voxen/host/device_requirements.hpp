#pragma once
// What Voxen needs from a GPU, and how it picks one. Pure functions over plain structs so
// that the rules are tested without the hardware that would break them.
#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <string>
#include <vector>

namespace voxen {

// Everything Voxen checks on a physical device, read once through vkGetPhysicalDevice*.
struct DeviceCapabilities {
  std::string deviceName;
  uint32_t apiVersion = 0;
  bool computeQueue = false;
  bool bufferDeviceAddress = false;
  bool timelineSemaphore = false;
  bool shaderInt64 = false;
  bool shaderBufferInt64Atomics = false;
  bool subgroupInCompute = false;
  bool subgroupBasic = false;
  bool subgroupShuffle = false;
  bool subgroupArithmetic = false;  // subgroupAdd: the occupancy passes and the painter's brush count with it
  // Optional: used when present, never required.
  bool shaderBufferFloat32AtomicAdd = false;
  bool memoryBudget = false;
  bool timestamps = false;
  // 64-bit floats in shaders: the exactly rounded division and square root of
  // shaders/common/exact_math.glsl use them (engine shaders are built in both flavours).
  bool shaderFloat64 = false;
};

// Names of the required features the device lacks (empty when it has them all).
std::vector<std::string> missingFeatures(const DeviceCapabilities& caps);

// Throws FeatureError naming every missing feature and the device.
void requireFeatures(const DeviceCapabilities& caps);

struct DeviceCandidate {
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
};

// Picks a device: with an empty selector, discrete GPU, then integrated, then virtual,
// then CPU (lavapipe); otherwise the selector is an index ("1") or a case-insensitive
// substring of the name ("llvmpipe"). Throws Error listing the devices when nothing matches.
uint32_t chooseDevice(const std::vector<DeviceCandidate>& candidates, const std::string& selector);

const char* deviceTypeName(VkPhysicalDeviceType type);

}  // namespace voxen
