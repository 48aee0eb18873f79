#include "voxen/context.hpp"

#include <cctype>
#include <atomic>
#include <chrono>
#include <mutex>

#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/memory_budget.hpp"

namespace voxen {

DeviceChoice DeviceChoice::index(uint32_t index) {
  DeviceChoice choice;
  choice.index_ = index;
  return choice;
}

DeviceChoice DeviceChoice::named(std::string substring) {
  DeviceChoice choice;
  choice.name_ = std::move(substring);
  return choice;
}

DeviceChoice DeviceChoice::parse(const std::string& selector) {
  if (selector.empty()) return best();
  for (const char c : selector)
    if (!std::isdigit(static_cast<unsigned char>(c))) return named(selector);
  // Digits past uint32 cannot be an index the loader lists: kept as the text, which then
  // matches no device and is reported as such.
  if (selector.size() > 9) return named(selector);
  return index(uint32_t(std::stoul(selector)));
}

namespace {

// The host's selector text: an index as its digits, a name as given (the host reads a
// selector of digits only as an index).
std::string selectorText(const DeviceChoice& choice) {
  if (choice.indexChosen()) return std::to_string(*choice.indexChosen());
  return choice.nameChosen();
}

}  // namespace

// Members in construction order, so that they are destroyed scheduler first, device last.
// `device`, `library` and `scheduler` point at the owned objects or at a borrowed scheduler's.
struct Context::Impl {
  ContextOptions options;
  std::unique_ptr<Device> ownedDevice;
  std::unique_ptr<ShaderLibrary> ownedLibrary;
  std::unique_ptr<Scheduler> ownedScheduler;
  Device* device = nullptr;
  ShaderLibrary* library = nullptr;
  Scheduler* scheduler = nullptr;
  ContextSetupTimes setup;
  // open() runs once, under openMutex; `opened` lets later calls skip the lock.
  std::mutex openMutex;
  std::atomic<bool> opened{false};

  ~Impl() {
    ownedScheduler.reset();
    ownedLibrary.reset();
    ownedDevice.reset();
  }
};

Context::Context(ContextOptions options) : impl_(std::make_unique<Impl>()) { impl_->options = std::move(options); }

Context::Context(Scheduler& existing, ContextOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->scheduler = &existing;
  impl_->library = &existing.library();
  impl_->device = &existing.device();
  impl_->opened = true;
}

Context::~Context() = default;

void Context::open() {
  if (impl_->opened.load(std::memory_order_acquire)) return;
  const std::lock_guard lock(impl_->openMutex);
  if (impl_->scheduler) return;
  const ContextOptions& o = impl_->options;
  if (!impl_->device) {
    DeviceOptions device;
    device.selector = selectorText(o.device);
    device.validation = o.validation;
    device.synchronizationValidation = o.synchronizationValidation;
    if (o.onValidationMessage) device.onValidationMessage = o.onValidationMessage;
    impl_->ownedDevice = std::make_unique<Device>(std::move(device));
    impl_->device = impl_->ownedDevice.get();
    impl_->setup.instanceSeconds = impl_->device->setupTimes().instanceSeconds;
    impl_->setup.deviceSeconds = impl_->device->setupTimes().deviceSeconds;
  }
  auto since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto start = std::chrono::steady_clock::now();
  if (!impl_->library) {
    ShaderLibraryOptions library;
    library.hotReloadDir = o.hotReloadDir;
    if (o.shaderLog) library.log = o.shaderLog;
    library.pipelineCache = o.pipelineCache;
    impl_->ownedLibrary = std::make_unique<ShaderLibrary>(*impl_->device, std::move(library));
    impl_->library = impl_->ownedLibrary.get();
    impl_->setup.shaderLibrarySeconds = since(start);
  }
  start = std::chrono::steady_clock::now();
  impl_->ownedScheduler = std::make_unique<Scheduler>(*impl_->device, *impl_->library);
  impl_->scheduler = impl_->ownedScheduler.get();
  impl_->setup.schedulerSeconds = since(start);
  impl_->opened.store(true, std::memory_order_release);
}

bool Context::isOpen() const { return impl_->opened.load(std::memory_order_acquire); }

std::unique_ptr<Scheduler> Context::makeScheduler() {
  open();
  return std::make_unique<Scheduler>(*impl_->device, *impl_->library);
}

Device& Context::device() {
  open();
  return *impl_->device;
}

ShaderLibrary& Context::shaders() {
  open();
  return *impl_->library;
}

Scheduler& Context::scheduler() {
  open();
  return *impl_->scheduler;
}

const DeviceInfo& Context::deviceInfo() { return device().info(); }

const ContextOptions& Context::options() const { return impl_->options; }

const ContextSetupTimes& Context::setupTimes() const { return impl_->setup; }

uint64_t Context::memoryBudgetBytes() const {
  return impl_->options.memoryBudgetBytes > 0 ? impl_->options.memoryBudgetBytes : defaultMemoryBudgetBytes();
}

std::string Context::memoryHint() const {
  if (!impl_->options.memoryHint.empty()) return impl_->options.memoryHint;
  return "raise ContextOptions::memoryBudgetBytes (now " + std::to_string(memoryBudgetBytes() >> 20) + " MB)";
}

}  // namespace voxen
