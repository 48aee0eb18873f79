#include "voxen/host/device.hpp"

#include <volk.h>

#include "voxen/host/log.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

void initializeVolkOnce() {
  static std::once_flag once;
  static VkResult result = VK_SUCCESS;
  std::call_once(once, [] { result = volkInitialize(); });
  if (result != VK_SUCCESS)
    throw VulkanError(result, "the Vulkan loader (libvulkan.so.1) could not be loaded: install libvulkan1");
}

bool envFlag(const char* name) {
  const char* value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

// The two-call enumeration pattern of Vulkan: ask for the count, then for the items.
template <class T, class Call>
std::vector<T> enumerated(Call call) {
  uint32_t count = 0;
  VOXEN_VK_CHECK(call(&count, nullptr));
  std::vector<T> items(count);
  VOXEN_VK_CHECK(call(&count, items.data()));
  items.resize(count);
  return items;
}

std::vector<VkExtensionProperties> instanceExtensions(const char* layer) {
  return enumerated<VkExtensionProperties>(
      [&](uint32_t* n, VkExtensionProperties* out) { return vkEnumerateInstanceExtensionProperties(layer, n, out); });
}

bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name) {
  for (const auto& e : list)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

bool hasLayer(const char* name) {
  for (const auto& layer : enumerated<VkLayerProperties>(vkEnumerateInstanceLayerProperties))
    if (std::strcmp(layer.layerName, name) == 0) return true;
  return false;
}

std::vector<VkExtensionProperties> deviceExtensions(VkPhysicalDevice physical) {
  return enumerated<VkExtensionProperties>([&](uint32_t* n, VkExtensionProperties* out) {
    return vkEnumerateDeviceExtensionProperties(physical, nullptr, n, out);
  });
}

std::vector<VkPhysicalDevice> physicalDevices(VkInstance instance) {
  return enumerated<VkPhysicalDevice>(
      [&](uint32_t* n, VkPhysicalDevice* out) { return vkEnumeratePhysicalDevices(instance, n, out); });
}

std::vector<VkQueueFamilyProperties> queueFamilies(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> list(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, list.data());
  return list;
}

// The compute-capable family with timestamps, preferring a universal (graphics) family so
// that later presentation can share the queue.
int chooseQueueFamily(VkPhysicalDevice physical) {
  const auto families = queueFamilies(physical);
  int best = -1;
  int bestScore = -1;
  for (size_t i = 0; i < families.size(); ++i) {
    const auto& f = families[i];
    if (!(f.queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    const int score = (f.timestampValidBits > 0 ? 2 : 0) + ((f.queueFlags & VK_QUEUE_GRAPHICS_BIT) ? 1 : 0);
    if (score > bestScore) {
      best = int(i);
      bestScore = score;
    }
  }
  return best;
}

// A temporary instance for listing devices without creating one.
struct ScopedInstance {
  VkInstance instance = VK_NULL_HANDLE;
  ScopedInstance() {
    initializeVolkOnce();
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "voxen";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    const char* portability = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
    if (hasExtension(instanceExtensions(nullptr), portability)) {
      info.enabledExtensionCount = 1;
      info.ppEnabledExtensionNames = &portability;
      info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    VOXEN_VK_CHECK(vkCreateInstance(&info, nullptr, &instance));
    volkLoadInstanceOnly(instance);
  }
  ~ScopedInstance() { vkDestroyInstance(instance, nullptr); }
};

// Through the instance's own entry point: volk's global vkDestroyDebugUtilsMessengerEXT is
// reloaded by every instance made later in the process (another Device, listDevices()) and is
// null after one without the debug-utils extension.
void destroyMessenger(VkInstance instance, VkDebugUtilsMessengerEXT messenger) {
  auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
  if (destroy) destroy(instance, messenger, nullptr);
}

}  // namespace

std::string formatApiVersion(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

DeviceCapabilities queryCapabilities(VkPhysicalDevice physical) {
  DeviceCapabilities caps;
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(physical, &properties);
  caps.deviceName = properties.deviceName;
  caps.apiVersion = properties.apiVersion;
  caps.computeQueue = chooseQueueFamily(physical) >= 0;
  if (caps.computeQueue)
    caps.timestamps = queueFamilies(physical)[chooseQueueFamily(physical)].timestampValidBits > 0 &&
                      properties.limits.timestampPeriod > 0.0f;
  const auto extensions = deviceExtensions(physical);
  caps.memoryBudget = hasExtension(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  if (caps.apiVersion < VK_API_VERSION_1_2) return caps;  // the 1.2 structures are not valid to query

  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &features12;
  const bool hasAtomicFloat = hasExtension(extensions, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  if (hasAtomicFloat) features12.pNext = &atomicFloat;
  vkGetPhysicalDeviceFeatures2(physical, &features);
  caps.bufferDeviceAddress = features12.bufferDeviceAddress;
  caps.timelineSemaphore = features12.timelineSemaphore;
  caps.shaderBufferInt64Atomics = features12.shaderBufferInt64Atomics;
  caps.shaderInt64 = features.features.shaderInt64;
  caps.shaderFloat64 = features.features.shaderFloat64;
  caps.shaderBufferFloat32AtomicAdd = hasAtomicFloat && atomicFloat.shaderBufferFloat32AtomicAdd;

  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 properties2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  properties2.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical, &properties2);
  caps.subgroupInCompute = subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT;
  caps.subgroupBasic = subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT;
  caps.subgroupShuffle = subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  caps.subgroupArithmetic = subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  return caps;
}

std::vector<PhysicalDeviceSummary> Device::listDevices() {
  ScopedInstance scoped;
  std::vector<PhysicalDeviceSummary> list;
  for (VkPhysicalDevice physical : physicalDevices(scoped.instance)) {
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    vkGetPhysicalDeviceProperties(physical, &properties.properties);
    if (properties.properties.apiVersion >= VK_API_VERSION_1_2) {
      properties.pNext = &driver;
      vkGetPhysicalDeviceProperties2(physical, &properties);
    }
    PhysicalDeviceSummary summary;
    summary.name = properties.properties.deviceName;
    summary.type = properties.properties.deviceType;
    summary.apiVersion = properties.properties.apiVersion;
    summary.driverName = driver.driverName;
    summary.driverInfo = driver.driverInfo;
    const auto missing = missingFeatures(queryCapabilities(physical));
    summary.meetsRequirements = missing.empty();
    for (size_t i = 0; i < missing.size(); ++i) summary.missing += (i ? ", " : "") + missing[i];
    list.push_back(std::move(summary));
  }
  return list;
}

Device::Device(DeviceOptions options) : options_(std::move(options)) {
  const auto start = std::chrono::steady_clock::now();
  initializeVolkOnce();
  validation_ = options_.validation || options_.synchronizationValidation || envFlag("VOXEN_VALIDATION");
  try {
    createInstance(options_.synchronizationValidation);
    const auto instanceMade = std::chrono::steady_clock::now();
    setupTimes_.instanceSeconds = std::chrono::duration<double>(instanceMade - start).count();
    std::string selector = options_.selector;
    if (selector.empty())
      if (const char* env = std::getenv("VOXEN_DEVICE")) selector = env;
    pickPhysicalDevice(selector);
    createLogicalDevice();
    setupTimes_.deviceSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - instanceMade).count();
  } catch (...) {
    if (device_) vkDestroyDevice(device_, nullptr);
    if (messenger_) destroyMessenger(instance_, messenger_);
    if (instance_) vkDestroyInstance(instance_, nullptr);
    throw;
  }
  memoryStats_ = std::make_unique<MemoryStats>();
}

Device::~Device() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    const std::lock_guard lock(trackersMutex_);
    for (auto& g : garbage_) g.destroy();
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) destroyMessenger(instance_, messenger_);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

VKAPI_ATTR VkBool32 VKAPI_CALL Device::debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* self = static_cast<Device*>(user);
  ValidationMessage message;
  message.severity = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)     ? ValidationMessage::Severity::Error
                     : (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) ? ValidationMessage::Severity::Warning
                                                                                    : ValidationMessage::Severity::Info;
  if (message.severity == ValidationMessage::Severity::Info) return VK_FALSE;
  message.id = data->pMessageIdName ? data->pMessageIdName : "";
  message.text = data->pMessage ? data->pMessage : "";
  self->validationMessages_.fetch_add(1);
  if (self->options_.onValidationMessage)
    self->options_.onValidationMessage(message);
  else
    logMessage(message.severity == ValidationMessage::Severity::Error ? LogLevel::Error : LogLevel::Warning,
               std::string("validation ") +
                   (message.severity == ValidationMessage::Severity::Error ? "error" : "warning") + ": " + message.text);
  return VK_FALSE;
}

void Device::createInstance(bool synchronizationValidation) {
  const char* layerName = "VK_LAYER_KHRONOS_validation";
  if (validation_ && !hasLayer(layerName))
    throw Error("validation was requested (VOXEN_VALIDATION=1) but VK_LAYER_KHRONOS_validation is not installed "
                "(apt-get install vulkan-validationlayers)");
  const auto available = instanceExtensions(nullptr);
  std::vector<const char*> extensions;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  if (hasExtension(available, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  VkDebugUtilsMessengerCreateInfoEXT messengerInfo{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messengerInfo.pfnUserCallback = &Device::debugCallback;
  messengerInfo.pUserData = this;
  const VkValidationFeatureEnableEXT syncValidation = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  if (validation_) {
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = &layerName;
    info.pNext = &messengerInfo;  // also reports problems inside vkCreateInstance itself
    if (synchronizationValidation && hasExtension(instanceExtensions(layerName), VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
      features.enabledValidationFeatureCount = 1;
      features.pEnabledValidationFeatures = &syncValidation;
      messengerInfo.pNext = &features;
    }
  }
  // Extensions the program asked for (a window's surface extensions), each once.
  for (const std::string& name : options_.instanceExtensions) {
    if (!hasExtension(available, name.c_str()))
      throw Error("the Vulkan loader lacks the instance extension " + name +
                  " (requested by DeviceOptions::instanceExtensions)");
    if (std::none_of(extensions.begin(), extensions.end(), [&](const char* e) { return name == e; }))
      extensions.push_back(name.c_str());
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "voxen";
  app.pEngineName = "voxen";
  app.apiVersion = VK_API_VERSION_1_2;
  info.pApplicationInfo = &app;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VOXEN_VK_CHECK(vkCreateInstance(&info, nullptr, &instance_));
  volkLoadInstance(instance_);
  if (validation_) {
    messengerInfo.pNext = nullptr;  // the validation-features chain belongs to vkCreateInstance only
    VOXEN_VK_CHECK(vkCreateDebugUtilsMessengerEXT(instance_, &messengerInfo, nullptr, &messenger_));
  }
}

void Device::pickPhysicalDevice(const std::string& selector) {
  const auto devices = physicalDevices(instance_);
  std::vector<DeviceCandidate> candidates;
  for (VkPhysicalDevice physical : devices) {
    VkPhysicalDeviceProperties properties{};
    vkGetPhysicalDeviceProperties(physical, &properties);
    candidates.push_back({properties.deviceName, properties.deviceType});
  }
  // Without a selector, skip devices that cannot run Voxen rather than failing on them.
  uint32_t index = 0;
  if (selector.empty()) {
    std::vector<DeviceCandidate> usable;
    std::vector<uint32_t> usableIndex;
    for (uint32_t i = 0; i < devices.size(); ++i)
      if (missingFeatures(queryCapabilities(devices[i])).empty()) {
        usable.push_back(candidates[i]);
        usableIndex.push_back(i);
      }
    if (usable.empty()) {
      if (devices.empty()) chooseDevice(candidates, selector);  // throws "no Vulkan device"
      requireFeatures(queryCapabilities(devices[chooseDevice(candidates, selector)]));
    }
    index = usableIndex[chooseDevice(usable, selector)];
  } else {
    index = chooseDevice(candidates, selector);
  }
  physical_ = devices[index];
  info_.index = index;
  info_.capabilities = queryCapabilities(physical_);
  requireFeatures(info_.capabilities);
  if (options_.withoutFloat64 || envFlag("VOXEN_NO_FLOAT64")) info_.capabilities.shaderFloat64 = false;

  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maintenance3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  driver.pNext = &maintenance3;
  maintenance3.pNext = &subgroup;
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  properties.pNext = &driver;
  vkGetPhysicalDeviceProperties2(physical_, &properties);
  const auto& limits = properties.properties.limits;
  info_.name = properties.properties.deviceName;
  info_.type = properties.properties.deviceType;
  info_.apiVersion = properties.properties.apiVersion;
  info_.driverVersion = properties.properties.driverVersion;
  info_.driverId = driver.driverID;
  info_.driverName = driver.driverName;
  info_.driverInfo = driver.driverInfo;
  info_.subgroupSize = subgroup.subgroupSize;
  for (int i = 0; i < 3; ++i) info_.maxComputeWorkGroupCount[i] = limits.maxComputeWorkGroupCount[i];
  info_.maxComputeWorkGroupInvocations = limits.maxComputeWorkGroupInvocations;
  info_.maxPushConstantsSize = limits.maxPushConstantsSize;
  info_.maxStorageBufferRange = limits.maxStorageBufferRange;
  info_.maxMemoryAllocationSize = maintenance3.maxMemoryAllocationSize;
  info_.timestampPeriodNs = info_.capabilities.timestamps ? limits.timestampPeriod : 0.0f;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memoryProperties_);
}

void Device::createLogicalDevice() {
  queueFamily_ = uint32_t(chooseQueueFamily(physical_));
  const float priority = 1.0f;
  // Up to kMaxQueues queues of the family, one per scheduler in turn: threads that map
  // and query at once then submit to different queues on a GPU that has several.
  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &familyCount, families.data());
  const uint32_t queueCount = std::clamp(families[queueFamily_].queueCount, 1u, kMaxQueues);
  const std::vector<float> priorities(queueCount, priority);
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = queueFamily_;
  queueInfo.queueCount = queueCount;
  queueInfo.pQueuePriorities = priorities.data();

  VkPhysicalDeviceFeatures supported{};
  vkGetPhysicalDeviceFeatures(physical_, &supported);
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  features12.bufferDeviceAddress = VK_TRUE;
  features12.timelineSemaphore = VK_TRUE;
  features12.shaderBufferInt64Atomics = VK_TRUE;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &features12;
  features.features.shaderInt64 = VK_TRUE;
  // Optional features that later modules use when present.
  // shaderFloat64 as the capabilities say: off when the program pretends it is absent, so
  // that the validation layer refuses a module of the float64 flavour then.
  features.features.shaderFloat64 = info_.capabilities.shaderFloat64;
  features.features.shaderInt16 = supported.shaderInt16;

  std::vector<const char*> extensions;
  if (info_.capabilities.shaderBufferFloat32AtomicAdd) {
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    atomicFloat.shaderBufferFloat32AtomicAdd = VK_TRUE;
    features12.pNext = &atomicFloat;
  }
  if (info_.capabilities.memoryBudget) extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  const auto available = deviceExtensions(physical_);
  for (const auto& e : available)
    if (std::strcmp(e.extensionName, "VK_KHR_portability_subset") == 0) extensions.push_back("VK_KHR_portability_subset");
  // Extensions the program asked for (VK_KHR_swapchain to present), each once.
  for (const std::string& name : options_.deviceExtensions) {
    if (!hasExtension(available, name.c_str()))
      throw Error("device '" + info_.name + "' lacks the device extension " + name +
                  " (requested by DeviceOptions::deviceExtensions)");
    if (std::none_of(extensions.begin(), extensions.end(), [&](const char* e) { return name == e; }))
      extensions.push_back(name.c_str());
  }

  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &features;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VOXEN_VK_CHECK(vkCreateDevice(physical_, &info, nullptr, &device_));
  queues_.resize(queueCount);
  queueMutexes_ = std::make_unique<std::mutex[]>(queueCount);
  for (uint32_t i = 0; i < queueCount; ++i) vkGetDeviceQueue(device_, queueFamily_, i, &queues_[i]);
}

VkResult Device::submit(uint32_t queueIndex, const VkSubmitInfo& info) {
  const std::lock_guard lock(queueMutexes_[queueIndex]);
  return vkQueueSubmit(queues_[queueIndex], 1, &info, VK_NULL_HANDLE);
}

void Device::waitQueueIdle(uint32_t queueIndex) {
  const std::lock_guard lock(queueMutexes_[queueIndex]);
  vkQueueWaitIdle(queues_[queueIndex]);
}

uint32_t Device::findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < memoryProperties_.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i))) continue;
    const VkMemoryPropertyFlags flags = memoryProperties_.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (fallback == UINT32_MAX) fallback = i;
  }
  return fallback;
}

void Device::destroyWhenUnused(VkBuffer buffer, std::function<void()> destroy) {
  const std::lock_guard lock(trackersMutex_);
  Garbage garbage{std::move(destroy), {}};
  for (GpuWorkTracker* tracker : trackers_) {
    const uint64_t lastUse = tracker->lastUseOf(buffer);
    if (lastUse > tracker->pollCompleted()) garbage.waits.emplace_back(tracker, lastUse);
  }
  if (garbage.waits.empty())
    garbage.destroy();
  else
    garbage_.push_back(std::move(garbage));
}

void Device::collectGarbage() {
  const std::lock_guard lock(trackersMutex_);
  std::erase_if(garbage_, [](Garbage& g) {
    for (const auto& [tracker, value] : g.waits)
      if (tracker->pollCompleted() < value) return false;
    g.destroy();
    return true;
  });
}

void Device::registerTracker(GpuWorkTracker* tracker) {
  const std::lock_guard lock(trackersMutex_);
  trackers_.push_back(tracker);
}

std::vector<GpuWorkTracker*> Device::trackers() const {
  const std::lock_guard lock(trackersMutex_);
  return trackers_;
}

size_t Device::trackerCount() const {
  const std::lock_guard lock(trackersMutex_);
  return trackers_.size();
}

void Device::unregisterTracker(GpuWorkTracker* tracker) {
  const std::lock_guard lock(trackersMutex_);
  std::erase(trackers_, tracker);
  for (auto& g : garbage_) std::erase_if(g.waits, [&](const auto& wait) { return wait.first == tracker; });
  collectGarbage();
}

std::vector<HeapReport> Device::heapReport() const {
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
  VkPhysicalDeviceMemoryProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
  if (info_.capabilities.memoryBudget) properties.pNext = &budget;
  vkGetPhysicalDeviceMemoryProperties2(physical_, &properties);
  std::vector<HeapReport> reports;
  for (uint32_t heap = 0; heap < properties.memoryProperties.memoryHeapCount; ++heap) {
    HeapReport report;
    report.heap = heap;
    report.size = properties.memoryProperties.memoryHeaps[heap].size;
    report.deviceLocal = properties.memoryProperties.memoryHeaps[heap].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
    report.usedByVoxen = memoryStats_->heapBytes(heap);
    if (info_.capabilities.memoryBudget) {
      report.budget = budget.heapBudget[heap];
      report.driverUsage = budget.heapUsage[heap];
    }
    reports.push_back(report);
  }
  return reports;
}

}  // namespace voxen
