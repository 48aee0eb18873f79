#pragma once
// The process-wide GPU fixture of voxen_tests: one validated device, one shader library and
// one scheduler, created on first use and shared by every test case, so that the instance,
// the device and the compiled pipelines are paid for once (docs/architecture.md: LLVM compiles each
// pipeline at its first dispatch).
//
// Every validation message the device reports goes through ValidationRecorder. Unless an
// ExpectValidationMessage guard consumes it, the listener in main.cpp fails the test case
// during which it arrived and makes the process exit non-zero.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "voxen/testdata/split_mix.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace vt {

struct SharedGpu {
  SharedGpu();
  voxen::Device device;
  voxen::ShaderLibrary library;
  voxen::Scheduler scheduler;
};

// The shared fixture, created on the first call.
SharedGpu& gpu();
bool gpuCreated();
// Submits and waits for whatever a test case left recorded, so that validation messages
// from its work land in that test case; resets the scheduler's recording log.
void flushGpu();
// Destroys the fixture (device last). Messages reported during teardown (leaked objects)
// are recorded under the name "<teardown>".
void destroyGpu();

// The DeviceOptions every test device uses: validation, synchronisation validation and
// the recorder as message sink.
voxen::DeviceOptions validatedDeviceOptions();

class ExpectValidationMessage;

class ValidationRecorder {
 public:
  void record(const voxen::ValidationMessage& message);
  // Returns messages that arrived outside any test case (and remembers them as a failure).
  std::vector<voxen::ValidationMessage> beginTestCase(const std::string& name);
  // Returns the messages no guard consumed since beginTestCase, and remembers the test
  // case as failed when there were any.
  std::vector<voxen::ValidationMessage> endTestCase();
  const std::vector<std::string>& failedTestCases() const { return failed_; }
  std::string currentTestCase() const;
  // Unconsumed messages so far in the current test case.
  size_t pendingCount() const;

 private:
  friend class ExpectValidationMessage;
  mutable std::mutex mutex_;
  std::string current_ = "<outside any test case>";
  std::vector<voxen::ValidationMessage> unexpected_;
  std::vector<ExpectValidationMessage*> guards_;
  std::vector<std::string> failed_;
};

ValidationRecorder& validation();
std::string describe(const voxen::ValidationMessage& message);

// While alive, consumes validation messages whose id or text contains `substring`.
class ExpectValidationMessage {
 public:
  explicit ExpectValidationMessage(std::string substring);
  ~ExpectValidationMessage();
  ExpectValidationMessage(const ExpectValidationMessage&) = delete;
  ExpectValidationMessage& operator=(const ExpectValidationMessage&) = delete;
  size_t seen() const;
  const std::vector<voxen::ValidationMessage>& messages() const { return messages_; }

 private:
  friend class ValidationRecorder;
  std::string substring_;
  std::vector<voxen::ValidationMessage> messages_;
};

// The shared library's kernel for an embedded shader path ("selftest/saxpy.comp").
const voxen::Kernel* kernel(const std::string& path);

// Reads a range back through a scheduler and waits for it.
template <class T>
std::vector<T> readBack(voxen::Scheduler& scheduler, const voxen::BufferRange& range) {
  return scheduler.readback<T>(range).get();
}

// Deterministic pseudo-random numbers (splitmix64) so failures reproduce.
using Rng = voxen::SplitMix;

double msSince(std::chrono::steady_clock::time_point start);

}  // namespace vt
