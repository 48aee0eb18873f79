#pragma once
// The host scheduler. Passes declare the buffers they read and write; the scheduler records
// their dispatches into the current batch's command buffer, derives the barriers between
// them (BarrierTracker), stages uploads and readbacks through a ring of host-visible memory,
// and submits batches on a timeline semaphore with several in flight. Readbacks complete as
// futures. Each pass is named and timed with GPU timestamps.
//
// Work that is not a compute dispatch (a graphics pass, a blit into a swapchain image) goes
// through record(Command): it declares its buffer uses like a pass and records itself into
// the batch's command buffer, so this is the only code that submits to the queue.
//
// Threads: a scheduler is not thread-safe. Every call on it, and on the Futures and
// ReadbackTickets it returned (ready(), get(), wait(), and a ticket's destructor and
// move-assignment, which wait), must be made by one thread at a time. Usually that is the one
// thread that records and submits; other threads may take turns under a lock the callers
// share (as a Vulkan queue is externally synchronised), e.g. to record readbacks into their
// own memory or to wait for or drop a ticket another thread issued. The lock is needed even
// for ready() and a ticket's wait: a completion copies every finished readback out of the
// staging ring, other threads' included, on the thread that notices it.
#include <vulkan/vulkan_core.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/profile.hpp"
#include "voxen/host/recorded_command.hpp"

namespace voxen {

class BarrierTracker;
class Device;
class Kernel;
class RingAllocator;
class ShaderLibrary;
class Scheduler;

enum class Access { Read, Write, ReadWrite };

struct BufferUse {
  BufferRange range;
  Access access;
};
inline BufferUse reads(const BufferRange& r) { return {r, Access::Read}; }
inline BufferUse writes(const BufferRange& r) { return {r, Access::Write}; }
inline BufferUse readsWrites(const BufferRange& r) { return {r, Access::ReadWrite}; }

// Push-constant bytes of a pass (at most ShaderLibrary::kPushConstantBytes).
struct PushConstants {
  std::array<std::byte, 128> bytes{};
  uint32_t size = 0;
  PushConstants() = default;
  template <class T>
  PushConstants(const T& value) {  // NOLINT: any trivially copyable struct converts
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 128, "push constants are at most 128 bytes");
    std::memcpy(bytes.data(), &value, sizeof(T));
    size = sizeof(T);
  }
};

struct Pass {
  std::string name;                // for the profile and errors
  const Kernel* kernel = nullptr;
  std::array<uint32_t, 3> groups{1, 1, 1};
  PushConstants push;
  std::vector<BufferUse> uses;     // every buffer the shader touches through an address
};

// Work other than a compute dispatch, recorded by the caller into the batch's command
// buffer: a render pass, a blit. Its buffer accesses are declared like a pass's, so the
// scheduler places the barriers against other work; images the command owns it
// transitions itself inside `record`. `stages` are every pipeline stage in which the
// command may touch the declared buffers (e.g. VERTEX_SHADER | TRANSFER).
struct Command {
  std::string name;  // for the profile, the recording log and errors
  VkPipelineStageFlags stages = 0;
  std::vector<BufferUse> uses;
  // Records into the command buffer; must leave no render pass open.
  std::function<void(VkCommandBuffer)> record;
};

// The staging ring and the transient scratch start at their initial sizes and grow (by
// doubling) up to their maximum as the work asks for more, so a small run holds little
// memory (host-visible memory on a discrete GPU is pinned host memory). 0 as an initial
// size: start at the maximum.
struct SchedulerOptions {
  VkDeviceSize stagingBytes = 64ull << 20;   // host-visible ring for uploads and readbacks, at most
  VkDeviceSize transientBytes = 16ull << 20; // per batch slot, for per-batch scratch data, at most
  uint32_t batchesInFlight = 3;
  uint32_t maxTimedPassesPerBatch = 1024;
  // A wait for the GPU longer than this is reported as an error instead of hanging.
  double waitTimeoutSeconds = 600.0;
  VkDeviceSize initialStagingBytes = 1ull << 20;
  VkDeviceSize initialTransientBytes = 1ull << 20;  // per batch slot
};

namespace detail {
// Where a readback's bytes land: the caller's memory (readbackInto) or the Future's vector
// (readback), written straight from the staging ring when the batch completes (no
// intermediate copy).
struct ReadbackState {
  std::byte* destination = nullptr;
  uint64_t readyAt = 0;  // timeline value after which the destination is complete
  uint32_t pendingChunks = 0;
  bool done = false;
};
template <class T>
struct TypedReadback : ReadbackState {
  std::vector<T> values;
};
}  // namespace detail

// The result of a readback. get() waits for the GPU (submitting the batch if needed) and
// hands the values over, like std::future: once.
template <class T>
class Future {
 public:
  Future() = default;
  bool valid() const { return state_ != nullptr; }
  bool ready() const;
  std::vector<T> get();

 private:
  friend class Scheduler;
  Future(Scheduler* scheduler, std::shared_ptr<detail::TypedReadback<T>> state)
      : scheduler_(scheduler), state_(std::move(state)) {}
  Scheduler* scheduler_ = nullptr;
  std::shared_ptr<detail::TypedReadback<T>> state_;
};

// A readback into memory the caller owns (Scheduler::readbackInto): wait() returns once the
// bytes are there. The caller's memory must stay valid until then; a ticket destroyed before
// its readback completed waits for it, so the scheduler never writes into released memory.
// Not copyable; waited for and destroyed under the scheduler's thread rule (see the top of
// this file): on any thread, one thread at a time with every other use of the scheduler.
class ReadbackTicket {
 public:
  ReadbackTicket() = default;
  ReadbackTicket(ReadbackTicket&& other) noexcept;
  ReadbackTicket& operator=(ReadbackTicket&& other) noexcept;
  ReadbackTicket(const ReadbackTicket&) = delete;
  ReadbackTicket& operator=(const ReadbackTicket&) = delete;
  ~ReadbackTicket();
  bool valid() const { return state_ != nullptr; }
  bool ready() const;
  void wait();

 private:
  friend class Scheduler;
  ReadbackTicket(Scheduler* scheduler, std::shared_ptr<detail::ReadbackState> state)
      : scheduler_(scheduler), state_(std::move(state)) {}
  void waitQuietly() noexcept;
  Scheduler* scheduler_ = nullptr;
  std::shared_ptr<detail::ReadbackState> state_;
};

// Counters that tests and tools read to see what the scheduler did.
struct SchedulerStats {
  uint64_t dispatches = 0;  // direct and indirect
  uint64_t indirectDispatches = 0;
  uint64_t commands = 0;    // recorded through record(Command)
  uint64_t barriers = 0;
  uint64_t submissions = 0;
  uint64_t uploadedBytes = 0;
  uint64_t readBackBytes = 0;
  uint64_t stagingWaits = 0;  // times the ring was full and the host waited for the GPU
  uint64_t kernelSwaps = 0;   // pipelines replaced by hot reload
  // Dispatches of a pipeline this scheduler had not dispatched before: drivers that compile
  // at the first dispatch (lavapipe) compile then, so a benchmark warms every pipeline it
  // times until this stops growing.
  uint64_t firstDispatches = 0;
};

class Scheduler : public GpuWorkTracker {
 public:
  Scheduler(Device& device, ShaderLibrary& library, SchedulerOptions options = {});
  ~Scheduler() override;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Records a dispatch. Throws if the group count exceeds the device's limits.
  void dispatch(const Pass& pass);
  // Records a dispatch of enough workgroups for `threads` invocations along x, folding into
  // y past the device's x limit (shaders index with voxenThreadIndex(), common/dispatch.glsl).
  void dispatchThreads(Pass pass, uint64_t threads);
  // Records a dispatch whose workgroup counts the GPU reads from `args` when it runs: a
  // VkDispatchIndirectCommand (three uint32: x, y, z) written by earlier work, for sizes
  // known only on the GPU. pass.groups is ignored. The read of `args` is a declared use
  // (an indirect-command read), so the pass that wrote the counts is waited for. Counts of
  // zero dispatch nothing; counts above the device's limits are not checked on the GPU and
  // must not happen.
  void dispatchIndirect(const Pass& pass, const BufferRange& args);
  // Records `command` into the current batch with the barriers its uses need; timed and
  // logged like a pass.
  void record(const Command& command);
  // Binary semaphores for the batch being recorded (the next submit() sends them): it waits
  // for `semaphore` before any of its work in `stages`, and signals `semaphore` once all of
  // it completes. For a swapchain: wait for the image's acquire, signal for its present.
  void waitSemaphoreOnSubmit(VkSemaphore semaphore, VkPipelineStageFlags stages);
  void signalSemaphoreOnSubmit(VkSemaphore semaphore);

  // Copies host data into a buffer through the staging ring; large transfers are split.
  void upload(const BufferRange& dst, const void* data, size_t bytes);
  template <class T>
  void upload(const BufferRange& dst, std::span<const T> values) {
    upload(dst, values.data(), values.size_bytes());
  }
  void fill(const BufferRange& dst, uint32_t value);
  void copy(const BufferRange& src, const BufferRange& dst);

  // Reads a buffer range back; the future resolves once the GPU finished the batch. The
  // range must be a whole number of elements. The same recording as readbackInto, into the
  // future's own vector.
  template <class T>
  Future<T> readback(const BufferRange& src) {
    static_assert(std::is_trivially_copyable_v<T>, "readbacks are raw bytes");
    auto state = std::make_shared<detail::TypedReadback<T>>();
    state->values.resize(src.size / sizeof(T));
    recordReadback(src, std::as_writable_bytes(std::span<T>(state->values)), sizeof(T), state);
    return Future<T>(this, std::move(state));
  }

  // Reads a buffer range back into the caller's memory (destination.size_bytes() must equal
  // src.size): no allocation, and memory the caller reuses is not faulted in again, which
  // is what lets a readback run at bus speed. See ReadbackTicket for the lifetime rule.
  template <class T>
  ReadbackTicket readbackInto(const BufferRange& src, std::span<T> destination) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>, "readbacks write raw bytes");
    auto state = std::make_shared<detail::ReadbackState>();
    recordReadback(src, std::as_writable_bytes(destination), sizeof(T), state);
    return ReadbackTicket(this, std::move(state));
  }

  // Scratch memory valid until this batch slot comes round again (batchesInFlight later).
  BufferRange transient(VkDeviceSize bytes, VkDeviceSize alignment = 256);

  // Ends the current batch and submits it; returns its timeline value (or the last one if
  // nothing was recorded).
  uint64_t submit();
  // Waits for a timeline value (submitting the current batch if it is that value).
  void wait(uint64_t value);
  // Submits and waits for everything.
  void finish();
  uint64_t lastSubmitted() const { return lastSubmitted_; }
  uint64_t completedValue();

  // GpuWorkTracker: lets buffers be destroyed safely while work is recorded or in flight.
  uint64_t lastUseOf(VkBuffer buffer) override;
  uint64_t pollCompleted() override;

  const SchedulerStats& stats() const { return stats_; }
  const Profile& profile() const { return profile_; }
  void resetProfile() { profile_ = Profile{}; }
  // Keep a log of recorded commands and their barriers (off by default).
  void setRecordingLog(bool on) { keepLog_ = on; }
  const std::vector<RecordedCommand>& recordingLog() const { return log_; }
  void clearRecordingLog() { log_.clear(); }

  Device& device() { return device_; }
  ShaderLibrary& library() { return library_; }
  // The one scheduler recording on `device`, for code given only the device; throws when
  // there is none or more than one (then pass the scheduler itself).
  static Scheduler& soleSchedulerOf(Device& device);

 private:
  template <class T>
  friend class Future;
  friend class ReadbackTicket;
  // The untyped half of readback() and readbackInto(): checks that `src` is a whole number of
  // elements of `elementBytes` and exactly fills `destination` (std::invalid_argument naming
  // the buffer otherwise), then records copies of `src` into the ring for `state`, whose
  // bytes land in `destination`.
  void recordReadback(const BufferRange& src, std::span<std::byte> destination, size_t elementBytes,
                      std::shared_ptr<detail::ReadbackState> state);
  // Whether the readback completed, noticing completed batches first (Future and
  // ReadbackTicket share it).
  bool readbackReady(const detail::ReadbackState& state);
  void waitFor(const detail::ReadbackState& state);
  struct BatchSlot;
  BatchSlot& current();
  void begin(BatchSlot& slot);
  void retire(BatchSlot& slot);
  void retireCompleted();
  // Places the barrier a command needs before it; `accesses_` holds its accesses.
  void barrierFor(const std::string& name, VkPipelineStageFlags stage);
  void barrierFor(const std::string& name, VkPipelineStageFlags stage, const BufferRange& range, Access access);
  void collectAccesses(const std::vector<BufferUse>& uses, const char* what, const std::string& name);
  void checkPass(const Pass& pass) const;
  void recordDispatch(const Pass& pass, const BufferRange* indirectArgs);
  int32_t beginTimed(BatchSlot& slot);
  void endTimed(BatchSlot& slot, const std::string& name, int32_t query);
  VkDeviceSize stagingAllocate(VkDeviceSize size);
  // Replaces the ring (or the scratch) by a larger one once every batch using it completed.
  bool growStaging(VkDeviceSize needed);
  void growTransient(VkDeviceSize perSlot);

  Device& device_;
  ShaderLibrary& library_;
  SchedulerOptions options_;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  std::vector<std::unique_ptr<BatchSlot>> slots_;
  uint32_t slotIndex_ = 0;
  uint64_t lastSubmitted_ = 0;
  // Raised by whichever thread notices completion first (pollCompleted() is asked from
  // other threads' buffer destructions through the device).
  std::atomic<uint64_t> lastCompleted_{0};
  uint64_t raiseCompleted(uint64_t value);
  // The device queue this scheduler submits to (Device::acquireQueueIndex()).
  uint32_t queueIndex_ = 0;
  // Guards what other threads read through GpuWorkTracker::lastUseOf: the recording slot's
  // state, the barrier tracker's touched buffers, slotIndex_ and lastSubmitted_ (written
  // under it, read without it on the scheduler's own thread), and which thread records the
  // current batch (only that thread may submit it early).
  mutable std::mutex foreignMutex_;
  std::thread::id recordingThread_{};
  Buffer staging_;
  std::unique_ptr<RingAllocator> ring_;
  Buffer transient_;
  VkDeviceSize transientSlotBytes_ = 0;  // each batch slot's share of transient_ now
  // Scratch buffers replaced by a larger one, with the timeline value after which no batch
  // uses them: ranges of the batch being recorded may not be declared in any pass yet.
  std::vector<std::pair<uint64_t, Buffer>> retiredTransients_;
  std::unique_ptr<BarrierTracker> tracker_;
  std::vector<ResourceAccess> accesses_;  // of the command being recorded; reused
  SchedulerStats stats_;
  std::unordered_set<VkPipeline> dispatched_;  // every pipeline dispatched so far (firstDispatches)
  Profile profile_;
  bool keepLog_ = false;
  std::vector<RecordedCommand> log_;
};

template <class T>
bool Future<T>::ready() const {
  return state_ && scheduler_->readbackReady(*state_);
}

template <class T>
std::vector<T> Future<T>::get() {
  if (!state_) throw std::logic_error("Future::get() on an empty or already retrieved readback");
  scheduler_->waitFor(*state_);
  std::vector<T> values = std::move(state_->values);
  state_.reset();
  return values;
}

}  // namespace voxen
