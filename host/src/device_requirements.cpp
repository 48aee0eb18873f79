#include "voxen/host/device_requirements.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "voxen/host/error.hpp"

namespace voxen {

std::vector<std::string> missingFeatures(const DeviceCapabilities& caps) {
  std::vector<std::string> missing;
  if (caps.apiVersion < VK_API_VERSION_1_2) missing.emplace_back("Vulkan 1.2");
  if (!caps.computeQueue) missing.emplace_back("a compute queue");
  if (!caps.bufferDeviceAddress) missing.emplace_back("bufferDeviceAddress");
  if (!caps.timelineSemaphore) missing.emplace_back("timelineSemaphore");
  if (!caps.shaderInt64) missing.emplace_back("shaderInt64");
  if (!caps.shaderBufferInt64Atomics) missing.emplace_back("shaderBufferInt64Atomics");
  if (!caps.subgroupInCompute) missing.emplace_back("subgroup operations in compute shaders");
  if (!caps.subgroupBasic) missing.emplace_back("subgroup basic operations");
  if (!caps.subgroupShuffle) missing.emplace_back("subgroup shuffle operations");
  if (!caps.subgroupArithmetic) missing.emplace_back("subgroup arithmetic operations");
  return missing;
}

void requireFeatures(const DeviceCapabilities& caps) {
  const auto missing = missingFeatures(caps);
  if (missing.empty()) return;
  std::string message = "device '" + caps.deviceName + "' lacks what Voxen requires: ";
  for (size_t i = 0; i < missing.size(); ++i) message += (i ? ", " : "") + missing[i];
  message += " (choose another device with VOXEN_DEVICE or {})";
  throw FeatureError("DeviceOptions::selector", "DeviceOptions::selector", message);
}

const char* deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

namespace {

int typeRank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string listing(const std::vector<DeviceCandidate>& candidates) {
  std::string text;
  for (size_t i = 0; i < candidates.size(); ++i)
    text += "\n  [" + std::to_string(i) + "] " + candidates[i].name + " (" + deviceTypeName(candidates[i].type) + ")";
  return text;
}

}  // namespace

uint32_t chooseDevice(const std::vector<DeviceCandidate>& candidates, const std::string& selector) {
  if (candidates.empty()) throw Error("no Vulkan device found (install mesa-vulkan-drivers for the CPU driver lavapipe)");
  if (selector.empty()) {
    uint32_t best = 0;
    for (uint32_t i = 1; i < candidates.size(); ++i)
      if (typeRank(candidates[i].type) < typeRank(candidates[best].type)) best = i;
    return best;
  }
  uint32_t index = 0;
  const auto [end, ec] = std::from_chars(selector.data(), selector.data() + selector.size(), index);
  if (ec == std::errc() && end == selector.data() + selector.size()) {
    if (index < candidates.size()) return index;
    throw Error("device index " + selector + " is out of range; devices:" + listing(candidates));
  }
  const std::string needle = lowered(selector);
  for (uint32_t i = 0; i < candidates.size(); ++i)
    if (lowered(candidates[i].name).find(needle) != std::string::npos) return i;
  throw Error("no device name contains '" + selector + "'; devices:" + listing(candidates));
}

}  // namespace voxen
