#pragma once
// The Vulkan instance, the chosen physical device and its logical device with one compute
// queue. Function pointers come from volk through the loader's trampolines, so several
// devices (tests create more than one) can live in one process.
#include <vulkan/vulkan_core.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "voxen/host/device_requirements.hpp"
#include "voxen/host/memory_stats.hpp"

namespace voxen {

struct ValidationMessage {
  enum class Severity { Info, Warning, Error } severity = Severity::Warning;
  std::string id;    // e.g. "VUID-vkCmdDispatch-groupCountX-00386"
  std::string text;
};

// Something that records and submits GPU work on this device (the Scheduler). The device
// asks it, before a buffer is destroyed, whether work it has recorded or submitted may
// still use that buffer, so that destruction waits for the GPU instead of pulling memory
// from under it.
class GpuWorkTracker {
 public:
  virtual ~GpuWorkTracker() = default;
  // Submits recorded work that names `buffer` (so it is not lost) and returns the timeline
  // value after which no work of this tracker uses it (0: none does).
  virtual uint64_t lastUseOf(VkBuffer buffer) = 0;
  // The newest completed timeline value, without blocking.
  virtual uint64_t pollCompleted() = 0;
};

struct DeviceOptions {
  // Index or name substring; empty means the VOXEN_DEVICE environment variable, then auto.
  std::string selector;
  // Validation layer and debug messenger; also switched on by VOXEN_VALIDATION=1.
  bool validation = false;
  // Synchronisation validation (hazards between transfers, barriers); implies validation.
  bool synchronizationValidation = false;
  // Receives every validation message; the default sends it to the log sink (voxen/host/log.hpp).
  std::function<void(const ValidationMessage&)> onValidationMessage;
  // Extensions beyond Voxen's own, for programs that present to a window: instance
  // extensions (a window system's surface extensions, e.g. glfwGetRequiredInstanceExtensions)
  // and device extensions (VK_KHR_swapchain). Enabled only when listed here; a listed one
  // that the loader or the chosen device lacks is an Error naming it.
  std::vector<std::string> instanceExtensions;
  std::vector<std::string> deviceExtensions;
  // Pretends the device lacks shaderFloat64 (also VOXEN_NO_FLOAT64=1): the feature stays
  // off and the shaders take their native division and square root, which a device without
  // doubles runs. For tests of that flavour on a device that has doubles.
  bool withoutFloat64 = false;
};

// One line per physical device, for `voxen info` and device-selection errors.
struct PhysicalDeviceSummary {
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t apiVersion = 0;
  std::string driverName;
  std::string driverInfo;
  bool meetsRequirements = false;
  std::string missing;  // comma-separated, when !meetsRequirements
};

struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t apiVersion = 0;
  uint32_t driverVersion = 0;
  VkDriverId driverId = VkDriverId(0);
  std::string driverName;
  std::string driverInfo;
  DeviceCapabilities capabilities;
  uint32_t subgroupSize = 0;
  uint32_t maxComputeWorkGroupCount[3] = {0, 0, 0};
  uint32_t maxComputeWorkGroupInvocations = 0;
  uint32_t maxPushConstantsSize = 0;
  uint32_t maxStorageBufferRange = 0;
  VkDeviceSize maxMemoryAllocationSize = 0;
  float timestampPeriodNs = 0.0f;
  bool isLavapipe() const { return driverId == VK_DRIVER_ID_MESA_LLVMPIPE; }
};

// Wall time of opening the device, for `voxen map --profile`.
struct DeviceSetupTimes {
  double instanceSeconds = 0;  // the loader, layers and vkCreateInstance
  double deviceSeconds = 0;    // choosing the physical device and vkCreateDevice
};

class Device {
 public:
  explicit Device(DeviceOptions options = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Every physical device the loader reports, whether or not Voxen can use it.
  static std::vector<PhysicalDeviceSummary> listDevices();

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physicalDevice() const { return physical_; }
  const DeviceSetupTimes& setupTimes() const { return setupTimes_; }
  VkDevice handle() const { return device_; }
  // The first queue (presenting to a window uses it). Submitting to or waiting on a queue
  // must be externally synchronised: go through submit() / waitQueueIdle(), or hold
  // queueLock() around the call.
  VkQueue queue() const { return queues_[0]; }
  // Queues of the chosen family the device opened (up to kMaxQueues): each Scheduler takes
  // one in turn (acquireQueueIndex()), so schedulers on different threads of a real GPU run
  // side by side; lavapipe has one, which they share.
  static constexpr uint32_t kMaxQueues = 4;
  uint32_t queueCount() const { return uint32_t(queues_.size()); }
  VkQueue queue(uint32_t index) const { return queues_[index]; }
  uint32_t acquireQueueIndex() { return nextQueue_.fetch_add(1) % queueCount(); }
  std::unique_lock<std::mutex> queueLock(uint32_t index) { return std::unique_lock<std::mutex>(queueMutexes_[index]); }
  // vkQueueSubmit / vkQueueWaitIdle under the queue's lock (thread-safe).
  VkResult submit(uint32_t queueIndex, const VkSubmitInfo& info);
  void waitQueueIdle(uint32_t queueIndex);
  uint32_t queueFamily() const { return queueFamily_; }
  const DeviceInfo& info() const { return info_; }
  const VkPhysicalDeviceMemoryProperties& memoryProperties() const { return memoryProperties_; }
  bool validationEnabled() const { return validation_; }

  // Memory type index with all `required` flags, preferring those with `preferred` too.
  // Returns UINT32_MAX when none fits.
  uint32_t findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;

  MemoryStats& memoryStats() { return *memoryStats_; }
  const MemoryStats& memoryStats() const { return *memoryStats_; }
  // Heap sizes, use by Voxen and the driver's budget (VK_EXT_memory_budget when present).
  std::vector<HeapReport> heapReport() const;

  // Count of validation messages of severity Warning or worse since creation.
  uint64_t validationMessageCount() const { return validationMessages_.load(); }

  // Deferred destruction: `destroy` runs once no registered tracker's work can use
  // `buffer` any more (at once when none can). Buffer's destructor goes through here.
  // Thread-safe, as are collectGarbage() and the tracker registry below: schedulers on
  // several threads share one device (trackers answer lastUseOf/pollCompleted from any thread).
  void destroyWhenUnused(VkBuffer buffer, std::function<void()> destroy);
  // Runs the deferred destructions whose work has completed; trackers call it as they
  // retire batches.
  void collectGarbage();
  void registerTracker(GpuWorkTracker* tracker);
  // The tracker must have no work in flight (it waited for its queue).
  void unregisterTracker(GpuWorkTracker* tracker);
  // The trackers registered now, oldest first (a copy: others may register meanwhile).
  std::vector<GpuWorkTracker*> trackers() const;
  size_t trackerCount() const;

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                      VkDebugUtilsMessageTypeFlagsEXT types,
                                                      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);
  void createInstance(bool synchronizationValidation);
  void pickPhysicalDevice(const std::string& selector);
  void createLogicalDevice();

  DeviceOptions options_;
  bool validation_ = false;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  DeviceSetupTimes setupTimes_;
  VkDevice device_ = VK_NULL_HANDLE;
  std::vector<VkQueue> queues_;
  std::unique_ptr<std::mutex[]> queueMutexes_;
  std::atomic<uint32_t> nextQueue_{0};
  uint32_t queueFamily_ = 0;
  DeviceInfo info_;
  VkPhysicalDeviceMemoryProperties memoryProperties_{};
  std::unique_ptr<MemoryStats> memoryStats_;
  std::atomic<uint64_t> validationMessages_{0};
  struct Garbage {
    std::function<void()> destroy;
    std::vector<std::pair<GpuWorkTracker*, uint64_t>> waits;
  };
  // Guards trackers_ and garbage_; recursive: a tracker asked for a buffer's last use may
  // submit, and a submission collects garbage.
  mutable std::recursive_mutex trackersMutex_;
  std::vector<GpuWorkTracker*> trackers_;
  std::vector<Garbage> garbage_;
};

// Reads the capabilities that Voxen checks from a physical device.
DeviceCapabilities queryCapabilities(VkPhysicalDevice physical);

std::string formatApiVersion(uint32_t version);

}  // namespace voxen

namespace voxen {
// A table of the buffers Voxen holds (largest first), the total, and each heap's size and
// budget: what `--profile` prints so a user sees where device memory went.
std::string memoryReport(const Device& device);
}  // namespace voxen
