#include "support/gpu_fixture.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <iostream>

namespace vt {

namespace {
std::unique_ptr<SharedGpu>& sharedSlot() {
  static std::unique_ptr<SharedGpu> slot;
  return slot;
}
}  // namespace

voxen::DeviceOptions validatedDeviceOptions() {
  return voxen::DeviceOptions{
      .validation = true,
      .synchronizationValidation = true,
      .onValidationMessage = [](const voxen::ValidationMessage& message) { validation().record(message); },
  };
}

SharedGpu::SharedGpu() : device(validatedDeviceOptions()), library(device), scheduler(device, library) {}

SharedGpu& gpu() {
  auto& slot = sharedSlot();
  if (!slot) {
    const auto start = std::chrono::steady_clock::now();
    slot = std::make_unique<SharedGpu>();
    std::cout << "voxen_tests: device '" << slot->device.info().name << "' (" << slot->device.info().driverName
              << ", subgroup size " << slot->device.info().subgroupSize << ") ready in " << msSince(start) << " ms\n";
  }
  return *slot;
}

bool gpuCreated() { return sharedSlot() != nullptr; }

void flushGpu() {
  auto& slot = sharedSlot();
  if (!slot) return;
  try {
    slot->scheduler.finish();
  } catch (const std::exception& e) {
    std::cerr << "voxen_tests: Scheduler::finish() threw after test case '" << validation().currentTestCase()
              << "': " << e.what() << "\n";
    validation().record({voxen::ValidationMessage::Severity::Error, "voxen_tests-flush", e.what()});
  }
  slot->scheduler.setRecordingLog(false);
  slot->scheduler.clearRecordingLog();
}

void destroyGpu() {
  auto& slot = sharedSlot();
  if (!slot) return;
  const auto leftover = validation().beginTestCase("<teardown of the shared device>");
  for (const auto& message : leftover) std::cerr << "voxen_tests: validation message outside any test case: " << describe(message) << "\n";
  try {
    slot->scheduler.finish();
  } catch (const std::exception& e) {
    std::cerr << "voxen_tests: finish() at teardown threw: " << e.what() << "\n";
  }
  slot.reset();
}

// ---- validation recording ---------------------------------------------------------------

ValidationRecorder& validation() {
  static ValidationRecorder recorder;
  return recorder;
}

std::string describe(const voxen::ValidationMessage& message) {
  const char* severity = message.severity == voxen::ValidationMessage::Severity::Error     ? "error"
                         : message.severity == voxen::ValidationMessage::Severity::Warning ? "warning"
                                                                                          : "info";
  return std::string(severity) + " [" + message.id + "] " + message.text;
}

void ValidationRecorder::record(const voxen::ValidationMessage& message) {
  std::lock_guard lock(mutex_);
  if (message.severity == voxen::ValidationMessage::Severity::Info) return;
  for (ExpectValidationMessage* guard : guards_) {
    if (message.id.find(guard->substring_) != std::string::npos ||
        message.text.find(guard->substring_) != std::string::npos) {
      guard->messages_.push_back(message);
      return;
    }
  }
  unexpected_.push_back(message);
}

std::vector<voxen::ValidationMessage> ValidationRecorder::beginTestCase(const std::string& name) {
  std::lock_guard lock(mutex_);
  std::vector<voxen::ValidationMessage> leftover;
  leftover.swap(unexpected_);
  if (!leftover.empty()) failed_.push_back(current_);
  current_ = name;
  return leftover;
}

std::vector<voxen::ValidationMessage> ValidationRecorder::endTestCase() {
  std::lock_guard lock(mutex_);
  std::vector<voxen::ValidationMessage> messages;
  messages.swap(unexpected_);
  if (!messages.empty()) failed_.push_back(current_);
  current_ = "<outside any test case>";
  return messages;
}

std::string ValidationRecorder::currentTestCase() const {
  std::lock_guard lock(mutex_);
  return current_;
}

size_t ValidationRecorder::pendingCount() const {
  std::lock_guard lock(mutex_);
  return unexpected_.size();
}

ExpectValidationMessage::ExpectValidationMessage(std::string substring) : substring_(std::move(substring)) {
  auto& recorder = validation();
  std::lock_guard lock(recorder.mutex_);
  recorder.guards_.push_back(this);
}

ExpectValidationMessage::~ExpectValidationMessage() {
  auto& recorder = validation();
  std::lock_guard lock(recorder.mutex_);
  recorder.guards_.erase(std::remove(recorder.guards_.begin(), recorder.guards_.end(), this), recorder.guards_.end());
}

size_t ExpectValidationMessage::seen() const {
  std::lock_guard lock(validation().mutex_);
  return messages_.size();
}

// ---- helpers ------------------------------------------------------------------------------

const voxen::Kernel* kernel(const std::string& path) { return gpu().library.kernel(path).get(); }

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace vt
