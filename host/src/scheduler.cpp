#include "voxen/host/scheduler.hpp"

#include <volk.h>

#include <algorithm>

#include "voxen/host/barrier_tracker.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/parallel_copy.hpp"
#include "voxen/host/ring_allocator.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

namespace {

constexpr VkDeviceSize kStagingAlignment = 16;

VkDeviceSize alignUp(VkDeviceSize value, VkDeviceSize alignment) { return (value + alignment - 1) / alignment * alignment; }

// Where a growing allocation starts: its initial size, at most its maximum (0: the maximum).
VkDeviceSize initialSize(VkDeviceSize initial, VkDeviceSize maximum) {
  return initial == 0 ? maximum : std::min(initial, maximum);
}

// The size a growing allocation of `current` bytes moves to: doubled, and doubled again
// until it reaches `atLeast`, never past `maximum`.
VkDeviceSize grownSize(VkDeviceSize current, VkDeviceSize atLeast, VkDeviceSize maximum) {
  VkDeviceSize grown = std::min(maximum, current * 2);
  while (grown < maximum && grown < atLeast) grown = std::min(maximum, grown * 2);
  return grown;
}

constexpr VkPipelineStageFlags kComputeStage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags kTransferStage = VK_PIPELINE_STAGE_TRANSFER_BIT;
// An indirect dispatch reads its counts in the draw-indirect stage, its buffers in compute.
constexpr VkPipelineStageFlags kIndirectDispatchStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;

// Bytes [offset, offset + size) of a range.
BufferRange part(const BufferRange& range, VkDeviceSize offset, VkDeviceSize size) {
  return {range.buffer, range.offset + offset, size, range.address ? range.address + offset : 0, range.name};
}

ResourceAccess accessOf(const BufferRange& range, Access access) {
  ResourceAccess a;
  a.resource = uint64_t(range.buffer);
  a.read = access != Access::Write;
  a.write = access != Access::Read;
  a.offset = range.offset;
  a.size = range.size;
  return a;
}

}  // namespace

struct Scheduler::BatchSlot {
  struct PassRecord {
    std::string name;
    int32_t query = -1;  // first of two timestamps, -1 when untimed
  };
  struct ReadbackChunk {
    std::shared_ptr<detail::ReadbackState> state;
    VkDeviceSize stagingOffset = 0, dstOffset = 0, size = 0;
  };
  uint32_t index = 0;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;
  uint64_t value = 0;      // timeline value of its last submission
  bool recording = false;
  bool retired = true;     // results of the last submission were collected
  bool hostReads = false;  // copies into the staging ring that the host will read
  VkDeviceSize stagedBytes = 0;
  VkDeviceSize transientUsed = 0;
  uint32_t timedCount = 0;
  std::vector<PassRecord> passes;
  std::vector<ReadbackChunk> readbacks;
  // Binary semaphores attached to the next submission of this slot.
  std::vector<VkSemaphore> waitSemaphores;
  std::vector<VkPipelineStageFlags> waitStages;
  std::vector<VkSemaphore> signalSemaphores;
};

Scheduler::Scheduler(Device& device, ShaderLibrary& library, SchedulerOptions options)
    : device_(device),
      library_(library),
      options_(options),
      staging_(device, "staging ring", initialSize(options.initialStagingBytes, options.stagingBytes), MemoryKind::HostReadback),
      ring_(std::make_unique<RingAllocator>(initialSize(options.initialStagingBytes, options.stagingBytes))),
      transient_(device, "transient scratch",
                 initialSize(options.initialTransientBytes, options.transientBytes) * std::max(1u, options.batchesInFlight)),
      transientSlotBytes_(initialSize(options.initialTransientBytes, options.transientBytes)),
      tracker_(std::make_unique<BarrierTracker>()) {
  if (options_.batchesInFlight == 0) options_.batchesInFlight = 1;
  queueIndex_ = device_.acquireQueueIndex();
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  semaphoreInfo.pNext = &type;
  VOXEN_VK_CHECK(vkCreateSemaphore(device_.handle(), &semaphoreInfo, nullptr, &timeline_));
  for (uint32_t i = 0; i < options_.batchesInFlight; ++i) {
    auto slot = std::make_unique<BatchSlot>();
    slot->index = i;
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    poolInfo.queueFamilyIndex = device_.queueFamily();
    VOXEN_VK_CHECK(vkCreateCommandPool(device_.handle(), &poolInfo, nullptr, &slot->pool));
    VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    allocate.commandPool = slot->pool;
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 1;
    VOXEN_VK_CHECK(vkAllocateCommandBuffers(device_.handle(), &allocate, &slot->cmd));
    if (device_.info().capabilities.timestamps && options_.maxTimedPassesPerBatch > 0) {
      VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
      queryInfo.queryCount = 2 * options_.maxTimedPassesPerBatch;
      VOXEN_VK_CHECK(vkCreateQueryPool(device_.handle(), &queryInfo, nullptr, &slot->queries));
    }
    slots_.push_back(std::move(slot));
  }
  device_.registerTracker(this);
}

Scheduler::~Scheduler() {
  // Work recorded but never submitted is dropped, not submitted: during stack unwinding the
  // buffers it names may already be gone. Submitted work is waited for.
  // Destroying the pool below frees a command buffer still in the recording state.
  device_.waitQueueIdle(queueIndex_);
  device_.unregisterTracker(this);
  for (auto& slot : slots_) {
    if (slot->queries) vkDestroyQueryPool(device_.handle(), slot->queries, nullptr);
    vkDestroyCommandPool(device_.handle(), slot->pool, nullptr);
  }
  vkDestroySemaphore(device_.handle(), timeline_, nullptr);
}

Scheduler& Scheduler::soleSchedulerOf(Device& device) {
  Scheduler* found = nullptr;
  size_t count = 0;
  for (GpuWorkTracker* tracker : device.trackers())
    if (auto* scheduler = dynamic_cast<Scheduler*>(tracker)) found = scheduler, ++count;
  if (count != 1)
    throw Error("device '" + device.info().name + "' has " + std::to_string(count) +
                " schedulers; work that must go through one needs to be given it");
  return *found;
}

Scheduler::BatchSlot& Scheduler::current() {
  BatchSlot& slot = *slots_[slotIndex_];
  if (!slot.recording) begin(slot);
  return slot;
}

void Scheduler::begin(BatchSlot& slot) {
  if (slot.value > lastCompleted_) wait(slot.value);
  retireCompleted();
  VOXEN_VK_CHECK(vkResetCommandPool(device_.handle(), slot.pool, 0));
  VkCommandBufferBeginInfo beginInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  beginInfo.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VOXEN_VK_CHECK(vkBeginCommandBuffer(slot.cmd, &beginInfo));
  if (slot.queries) vkCmdResetQueryPool(slot.cmd, slot.queries, 0, 2 * options_.maxTimedPassesPerBatch);
  slot.hostReads = false;
  slot.stagedBytes = 0;
  slot.transientUsed = 0;
  slot.timedCount = 0;
  {
    const std::lock_guard lock(foreignMutex_);
    slot.recording = true;
    recordingThread_ = std::this_thread::get_id();
    // The previous batch completes before this one starts (the submission waits on it), so
    // nothing recorded earlier needs a barrier here.
    tracker_->reset();
  }
  // Hot reload: swap pipelines whose sources changed, before anything is recorded. Pipelines
  // retired by a reload are destroyed against this scheduler's timeline only while it is the
  // device's one scheduler (the library keeps them otherwise, see reloadChanged); the count
  // is read once, so both calls judge the same moment.
  const bool soleScheduler = device_.trackerCount() == 1;
  stats_.kernelSwaps += library_.reloadChanged(lastSubmitted_, !soleScheduler);
  if (soleScheduler) library_.collectRetired(lastCompleted_);
}

void Scheduler::collectAccesses(const std::vector<BufferUse>& uses, const char* what, const std::string& name) {
  // One access per declared range: a range declared twice is read and written.
  accesses_.clear();
  for (const BufferUse& use : uses) {
    if (!use.range.buffer) throw Error(std::string(what) + " '" + name + "' declared a null buffer");
    const ResourceAccess access = accessOf(use.range, use.access);
    auto same = std::find_if(accesses_.begin(), accesses_.end(), [&](const ResourceAccess& a) {
      return a.resource == access.resource && a.offset == access.offset && a.size == access.size;
    });
    if (same == accesses_.end()) {
      accesses_.push_back(access);
    } else {
      same->read |= access.read;
      same->write |= access.write;
    }
  }
}

void Scheduler::barrierFor(const std::string& name, VkPipelineStageFlags stage) {
  BatchSlot& slot = current();
  Barrier barrier;
  {
    const std::lock_guard lock(foreignMutex_);
    barrier = tracker_->record(stage, accesses_);
  }
  if (!barrier.empty()) {
    VkMemoryBarrier memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    memory.srcAccessMask = barrier.srcAccess;
    memory.dstAccessMask = barrier.dstAccess;
    vkCmdPipelineBarrier(slot.cmd, barrier.srcStages, barrier.dstStages, 0, 1, &memory, 0, nullptr, 0, nullptr);
    ++stats_.barriers;
  }
  if (keepLog_) log_.push_back({name, stage, accesses_, barrier});
}

void Scheduler::barrierFor(const std::string& name, VkPipelineStageFlags stage, const BufferRange& range, Access access) {
  accesses_.clear();
  accesses_.push_back(accessOf(range, access));
  barrierFor(name, stage);
}

int32_t Scheduler::beginTimed(BatchSlot& slot) {
  if (!slot.queries || slot.timedCount >= options_.maxTimedPassesPerBatch) return -1;
  const auto query = int32_t(2 * slot.timedCount++);
  vkCmdWriteTimestamp(slot.cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, slot.queries, uint32_t(query));
  return query;
}

void Scheduler::endTimed(BatchSlot& slot, const std::string& name, int32_t query) {
  if (query >= 0) vkCmdWriteTimestamp(slot.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, slot.queries, uint32_t(query + 1));
  slot.passes.push_back({name, query});
}

void Scheduler::checkPass(const Pass& pass) const {
  if (!pass.kernel) throw Error("pass '" + pass.name + "' has no kernel");
  if (pass.push.size > ShaderLibrary::kPushConstantBytes) throw Error("pass '" + pass.name + "' push constants too large");
}

void Scheduler::recordDispatch(const Pass& pass, const BufferRange* indirectArgs) {
  collectAccesses(pass.uses, "pass", pass.name);
  if (indirectArgs) accesses_.push_back(accessOf(*indirectArgs, Access::Read));
  BatchSlot& slot = current();
  barrierFor(pass.name, indirectArgs ? kIndirectDispatchStages : kComputeStage);
  const int32_t query = beginTimed(slot);
  vkCmdBindPipeline(slot.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass.kernel->pipeline());
  if (dispatched_.insert(pass.kernel->pipeline()).second) ++stats_.firstDispatches;
  // Always the whole range, zero-padded, so no shader ever reads unset push constants.
  vkCmdPushConstants(slot.cmd, library_.pipelineLayout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                     ShaderLibrary::kPushConstantBytes, pass.push.bytes.data());
  if (indirectArgs)
    vkCmdDispatchIndirect(slot.cmd, indirectArgs->buffer, indirectArgs->offset);
  else
    vkCmdDispatch(slot.cmd, pass.groups[0], pass.groups[1], pass.groups[2]);
  endTimed(slot, pass.name, query);
  ++stats_.dispatches;
}

void Scheduler::dispatch(const Pass& pass) {
  checkPass(pass);
  const DeviceInfo& info = device_.info();
  for (int axis = 0; axis < 3; ++axis)
    if (pass.groups[axis] > info.maxComputeWorkGroupCount[axis])
      throw Error("pass '" + pass.name + "' dispatches " + std::to_string(pass.groups[axis]) + " workgroups along " +
                  "xyz"[axis] + ", above the device's limit of " + std::to_string(info.maxComputeWorkGroupCount[axis]));
  if (pass.groups[0] == 0 || pass.groups[1] == 0 || pass.groups[2] == 0) return;
  recordDispatch(pass, nullptr);
}

void Scheduler::dispatchIndirect(const Pass& pass, const BufferRange& args) {
  checkPass(pass);
  if (!args.buffer) throw Error("indirect pass '" + pass.name + "' has no argument buffer");
  // vkCmdDispatchIndirect: a 4-byte aligned offset and 12 bytes of counts inside the buffer.
  if (args.offset % 4 || args.size < sizeof(uint32_t) * 3)
    throw Error("indirect pass '" + pass.name + "': arguments in '" + std::string(args.name) + "' at offset " +
                std::to_string(args.offset) + " (" + std::to_string(args.size) +
                " bytes) need a 4-byte aligned offset and 12 bytes (VkDispatchIndirectCommand)");
  BufferRange counts = args;
  counts.size = sizeof(uint32_t) * 3;  // the bytes the GPU reads
  recordDispatch(pass, &counts);
  ++stats_.indirectDispatches;
}

void Scheduler::dispatchThreads(Pass pass, uint64_t threads) {
  if (!pass.kernel) throw Error("pass '" + pass.name + "' has no kernel");
  const uint32_t local = pass.kernel->localSize().x;
  if (local == 0) throw Error("pass '" + pass.name + "': kernel " + pass.kernel->path() + " has no fixed local_size_x");
  // Beyond the x limit the groups fold into y; shaders index threads with
  // voxenThreadIndex() (common/dispatch.glsl) and skip the few past `threads`.
  const uint64_t groups = (threads + local - 1) / local;
  const uint64_t maxX = device_.info().maxComputeWorkGroupCount[0];
  const uint64_t rows = (groups + maxX - 1) / maxX;
  if (rows > device_.info().maxComputeWorkGroupCount[1])
    throw Error("pass '" + pass.name + "' needs " + std::to_string(groups) + " workgroups, more than the device can launch");
  pass.groups = {uint32_t(rows ? (groups + rows - 1) / rows : 0), uint32_t(rows), 1};
  dispatch(pass);
}

void Scheduler::record(const Command& command) {
  if (!command.record) throw Error("command '" + command.name + "' records nothing");
  if (command.stages == 0) throw Error("command '" + command.name + "' names no pipeline stage");
  collectAccesses(command.uses, "command", command.name);
  BatchSlot& slot = current();
  barrierFor(command.name, command.stages);
  const int32_t query = beginTimed(slot);
  command.record(slot.cmd);
  endTimed(slot, command.name, query);
  ++stats_.commands;
}

void Scheduler::waitSemaphoreOnSubmit(VkSemaphore semaphore, VkPipelineStageFlags stages) {
  if (!semaphore || !stages) throw Error("waitSemaphoreOnSubmit: a semaphore and the stages that wait for it are required");
  BatchSlot& slot = current();  // begins the batch, so that submit() sends it even if empty
  slot.waitSemaphores.push_back(semaphore);
  slot.waitStages.push_back(stages);
}

void Scheduler::signalSemaphoreOnSubmit(VkSemaphore semaphore) {
  if (!semaphore) throw Error("signalSemaphoreOnSubmit: no semaphore");
  current().signalSemaphores.push_back(semaphore);
}

VkDeviceSize Scheduler::stagingAllocate(VkDeviceSize size) {
  // Hand a half-full ring to the GPU early, so the host fills one half while the GPU
  // drains the other.
  if (slots_[slotIndex_]->recording && slots_[slotIndex_]->stagedBytes + size > ring_->capacity() / 2) submit();
  for (;;) {
    if (auto offset = ring_->allocate(size, kStagingAlignment, lastSubmitted_ + 1)) {
      current().stagedBytes += size;
      return *offset;
    }
    if (growStaging(size)) continue;
    ++stats_.stagingWaits;
    if (ring_->oldestTag() > lastSubmitted_) submit();  // the ring holds only this batch's data
    wait(ring_->oldestTag());
  }
}

// A full ring below its maximum doubles instead of making the host wait: a run that stages
// little keeps a small ring. The old ring goes once every batch that used it completed
// (their readbacks copied out), so no byte in flight moves.
bool Scheduler::growStaging(VkDeviceSize needed) {
  const VkDeviceSize capacity = ring_->capacity();
  if (capacity >= options_.stagingBytes) return false;
  const VkDeviceSize grown = grownSize(capacity, 4 * needed, options_.stagingBytes);
  finish();
  if (!ring_->empty()) throw Error("staging ring not empty after every batch completed (internal error)");
  staging_ = Buffer(device_, "staging ring", grown, MemoryKind::HostReadback);
  ring_ = std::make_unique<RingAllocator>(grown);
  return true;
}

// The scratch grows for a batch that asks for more than a slot's share: the batches already
// recorded or in flight keep the old buffer (released once they complete), later ones use
// the new one.
void Scheduler::growTransient(VkDeviceSize perSlot) {
  retiredTransients_.emplace_back(lastSubmitted_ + 1, std::move(transient_));
  transient_ = Buffer(device_, "transient scratch", perSlot * std::max(1u, options_.batchesInFlight));
  transientSlotBytes_ = perSlot;
}

void Scheduler::upload(const BufferRange& dst, const void* data, size_t bytes) {
  if (bytes > dst.size) throw Error("upload of " + std::to_string(bytes) + " bytes into '" + std::string(dst.name) +
                                    "' range of " + std::to_string(dst.size) + " bytes");
  const VkDeviceSize chunkLimit = std::max<VkDeviceSize>(ring_->capacity() / 4, kStagingAlignment);
  const auto* source = static_cast<const std::byte*>(data);
  for (VkDeviceSize done = 0; done < bytes;) {
    const VkDeviceSize chunk = std::min<VkDeviceSize>(bytes - done, chunkLimit);
    const VkDeviceSize offset = stagingAllocate(chunk);
    parallelCopy(staging_.mapped() + offset, source + done, chunk);
    barrierFor("upload", kTransferStage, part(dst, done, chunk), Access::Write);
    const VkBufferCopy region{offset, dst.offset + done, chunk};
    vkCmdCopyBuffer(current().cmd, staging_.handle(), dst.buffer, 1, &region);
    done += chunk;
  }
  stats_.uploadedBytes += bytes;
}

void Scheduler::fill(const BufferRange& dst, uint32_t value) {
  if (dst.offset % 4 || dst.size % 4) throw Error("fill of '" + std::string(dst.name) + "' needs 4-byte aligned offset and size");
  barrierFor("fill", kTransferStage, dst, Access::Write);
  vkCmdFillBuffer(current().cmd, dst.buffer, dst.offset, dst.size, value);
}

void Scheduler::copy(const BufferRange& src, const BufferRange& dst) {
  if (src.size > dst.size) throw Error("copy from '" + std::string(src.name) + "' does not fit '" + std::string(dst.name) + "'");
  collectAccesses({reads(src), writes(part(dst, 0, src.size))}, "copy", "copy");
  barrierFor("copy", kTransferStage);
  const VkBufferCopy region{src.offset, dst.offset, src.size};
  vkCmdCopyBuffer(current().cmd, src.buffer, dst.buffer, 1, &region);
}

void Scheduler::recordReadback(const BufferRange& src, std::span<std::byte> destination, size_t elementBytes,
                               std::shared_ptr<detail::ReadbackState> state) {
  if (src.size % elementBytes)
    throw std::invalid_argument("readback of '" + std::string(src.name) + "' (" + std::to_string(src.size) +
                                " bytes): size is not a multiple of the element (" + std::to_string(elementBytes) + " bytes)");
  if (src.size != destination.size_bytes())
    throw std::invalid_argument("readback of '" + std::string(src.name) + "' (" + std::to_string(src.size) +
                                " bytes) into a destination of " + std::to_string(destination.size_bytes()) + " bytes");
  state->destination = destination.data();
  // Held while the chunks are recorded: when the ring waits or grows, the chunks recorded so
  // far may retire before the last is recorded, and must not complete the readback.
  ++state->pendingChunks;
  const VkDeviceSize chunkLimit = std::max<VkDeviceSize>(ring_->capacity() / 4, kStagingAlignment);
  for (VkDeviceSize done = 0; done < src.size;) {
    const VkDeviceSize chunk = std::min<VkDeviceSize>(src.size - done, chunkLimit);
    const VkDeviceSize offset = stagingAllocate(chunk);
    barrierFor("readback", kTransferStage, part(src, done, chunk), Access::Read);
    BatchSlot& slot = current();
    const VkBufferCopy region{src.offset + done, offset, chunk};
    vkCmdCopyBuffer(slot.cmd, src.buffer, staging_.handle(), 1, &region);
    slot.readbacks.push_back({state, offset, done, chunk});
    slot.hostReads = true;
    ++state->pendingChunks;
    state->readyAt = lastSubmitted_ + 1;
    done += chunk;
  }
  if (--state->pendingChunks == 0) state->done = true;
  stats_.readBackBytes += src.size;
}

BufferRange Scheduler::transient(VkDeviceSize bytes, VkDeviceSize alignment) {
  BatchSlot& slot = current();
  const VkDeviceSize offset = alignUp(slot.transientUsed, std::max<VkDeviceSize>(alignment, 1));
  if (offset + bytes > options_.transientBytes)
    throw Error("transient allocation of " + std::to_string(bytes) + " bytes exceeds the per-batch scratch of " +
                std::to_string(options_.transientBytes) + " bytes (SchedulerOptions::transientBytes)");
  if (offset + bytes > transientSlotBytes_) growTransient(grownSize(transientSlotBytes_, offset + bytes, options_.transientBytes));
  slot.transientUsed = offset + bytes;
  return transient_.range(slot.index * transientSlotBytes_ + offset, bytes);
}

uint64_t Scheduler::submit() {
  BatchSlot& slot = *slots_[slotIndex_];
  if (!slot.recording) return lastSubmitted_;
  if (slot.hostReads) {
    VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(slot.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr, 0,
                         nullptr);
  }
  VOXEN_VK_CHECK(vkEndCommandBuffer(slot.cmd));
  // Each batch waits for the one before, which orders all their memory accesses; binary
  // semaphores attached by the caller (a swapchain's) come after the timeline. Values of
  // binary semaphores are ignored but must be given for every semaphore.
  std::vector<VkSemaphore> waits{timeline_}, signals{timeline_};
  std::vector<VkPipelineStageFlags> waitStages{VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
  waits.insert(waits.end(), slot.waitSemaphores.begin(), slot.waitSemaphores.end());
  waitStages.insert(waitStages.end(), slot.waitStages.begin(), slot.waitStages.end());
  signals.insert(signals.end(), slot.signalSemaphores.begin(), slot.signalSemaphores.end());
  const uint64_t signalValue = lastSubmitted_ + 1;
  std::vector<uint64_t> waitValues(waits.size(), 0), signalValues(signals.size(), 0);
  waitValues[0] = lastSubmitted_;
  signalValues[0] = signalValue;
  VkTimelineSemaphoreSubmitInfo timelineInfo{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timelineInfo.waitSemaphoreValueCount = uint32_t(waitValues.size());
  timelineInfo.pWaitSemaphoreValues = waitValues.data();
  timelineInfo.signalSemaphoreValueCount = uint32_t(signalValues.size());
  timelineInfo.pSignalSemaphoreValues = signalValues.data();
  VkSubmitInfo submitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submitInfo.pNext = &timelineInfo;
  submitInfo.waitSemaphoreCount = uint32_t(waits.size());
  submitInfo.pWaitSemaphores = waits.data();
  submitInfo.pWaitDstStageMask = waitStages.data();
  submitInfo.commandBufferCount = 1;
  submitInfo.pCommandBuffers = &slot.cmd;
  submitInfo.signalSemaphoreCount = uint32_t(signals.size());
  submitInfo.pSignalSemaphores = signals.data();
  VOXEN_VK_CHECK(device_.submit(queueIndex_, submitInfo));
  const std::lock_guard lock(foreignMutex_);
  slot.recording = false;
  slot.retired = false;
  slot.value = signalValue;
  slot.waitSemaphores.clear();
  slot.waitStages.clear();
  slot.signalSemaphores.clear();
  lastSubmitted_ = signalValue;
  slotIndex_ = (slotIndex_ + 1) % uint32_t(slots_.size());
  ++stats_.submissions;
  return signalValue;
}

void Scheduler::wait(uint64_t value) {
  if (value > lastSubmitted_) submit();
  if (value > lastSubmitted_) throw Error("waiting for timeline value " + std::to_string(value) + " that was never submitted");
  if (value > lastCompleted_) {
    VkSemaphoreWaitInfo waitInfo{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    waitInfo.semaphoreCount = 1;
    waitInfo.pSemaphores = &timeline_;
    waitInfo.pValues = &value;
    const auto timeoutNs = uint64_t(options_.waitTimeoutSeconds * 1e9);
    const VkResult result = vkWaitSemaphores(device_.handle(), &waitInfo, timeoutNs);
    if (result == VK_TIMEOUT)
      throw Error("the GPU did not finish batch " + std::to_string(value) + " within " +
                  std::to_string(options_.waitTimeoutSeconds) + " s");
    VOXEN_VK_CHECK(result);
    raiseCompleted(value);
  }
  retireCompleted();
}

void Scheduler::finish() {
  submit();
  if (lastSubmitted_ > 0) wait(lastSubmitted_);
}

uint64_t Scheduler::completedValue() {
  pollCompleted();
  retireCompleted();
  return lastCompleted_;
}

uint64_t Scheduler::lastUseOf(VkBuffer buffer) {
  // Recorded commands that name the buffer are submitted rather than lost. Older batches
  // are not tracked per buffer: any of them still in flight may use it. Another thread
  // (destroying a buffer of its own scheduler) must not submit this one's batch: it learns
  // the value that batch will signal, and the destruction waits for it.
  {
    const std::lock_guard lock(foreignMutex_);
    if (!slots_[slotIndex_]->recording || !tracker_->touched(uint64_t(buffer))) return lastSubmitted_;
    if (recordingThread_ != std::this_thread::get_id()) return lastSubmitted_ + 1;
  }
  submit();
  return lastSubmitted_;
}

uint64_t Scheduler::raiseCompleted(uint64_t value) {
  uint64_t seen = lastCompleted_.load();
  while (seen < value && !lastCompleted_.compare_exchange_weak(seen, value)) {
  }
  return std::max(seen, value);
}

uint64_t Scheduler::pollCompleted() {
  uint64_t value = 0;
  VOXEN_VK_CHECK(vkGetSemaphoreCounterValue(device_.handle(), timeline_, &value));
  return raiseCompleted(value);
}

ReadbackTicket::ReadbackTicket(ReadbackTicket&& other) noexcept
    : scheduler_(other.scheduler_), state_(std::move(other.state_)) {}

ReadbackTicket& ReadbackTicket::operator=(ReadbackTicket&& other) noexcept {
  if (this != &other) {
    waitQuietly();
    scheduler_ = other.scheduler_;
    state_ = std::move(other.state_);
  }
  return *this;
}

ReadbackTicket::~ReadbackTicket() { waitQuietly(); }

bool ReadbackTicket::ready() const { return state_ && scheduler_->readbackReady(*state_); }

void ReadbackTicket::wait() {
  if (!state_) throw std::logic_error("ReadbackTicket::wait() on an empty or already waited-for readback");
  scheduler_->waitFor(*state_);
  state_.reset();
}

// A destructor cannot throw: a device lost while waiting is reported by the scheduler's
// next call instead. The wait itself is what matters: the caller's memory is released next.
void ReadbackTicket::waitQuietly() noexcept {
  if (!state_) return;
  try {
    scheduler_->waitFor(*state_);
  } catch (...) {
  }
  state_.reset();
}

bool Scheduler::readbackReady(const detail::ReadbackState& state) {
  if (!state.done && state.readyAt <= lastSubmitted_) completedValue();
  return state.done;
}

void Scheduler::waitFor(const detail::ReadbackState& state) {
  if (!state.done) wait(state.readyAt);
  if (!state.done) throw Error("readback did not complete (internal error)");
}

void Scheduler::retire(BatchSlot& slot) {
  if (slot.timedCount > 0) {
    std::vector<uint64_t> stamps(2 * slot.timedCount);
    VOXEN_VK_CHECK(vkGetQueryPoolResults(device_.handle(), slot.queries, 0, 2 * slot.timedCount,
                                         stamps.size() * sizeof(uint64_t), stamps.data(), sizeof(uint64_t),
                                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    const double period = device_.info().timestampPeriodNs;
    for (const auto& pass : slot.passes) {
      double ms = 0.0;
      // A pair out of order (lavapipe after graphics work) reads as zero, not as 2^64 ticks.
      if (pass.query >= 0 && stamps[pass.query + 1] > stamps[pass.query])
        ms = double(stamps[pass.query + 1] - stamps[pass.query]) * period * 1e-6;
      profile_.add(pass.name, ms, pass.query >= 0);
    }
  } else {
    for (const auto& pass : slot.passes) profile_.add(pass.name, 0.0, false);
  }
  for (const auto& chunk : slot.readbacks) {
    parallelCopy(chunk.state->destination + chunk.dstOffset, staging_.mapped() + chunk.stagingOffset, chunk.size);
    if (--chunk.state->pendingChunks == 0) chunk.state->done = true;
  }
  slot.passes.clear();
  slot.readbacks.clear();
  slot.retired = true;
}

void Scheduler::retireCompleted() {
  // Oldest first, so readbacks complete in submission order.
  std::vector<BatchSlot*> done;
  for (auto& slot : slots_)
    if (!slot->retired && !slot->recording && slot->value <= lastCompleted_) done.push_back(slot.get());
  std::sort(done.begin(), done.end(), [](const BatchSlot* a, const BatchSlot* b) { return a->value < b->value; });
  for (BatchSlot* slot : done) retire(*slot);
  ring_->release(lastCompleted_);
  std::erase_if(retiredTransients_, [this](const auto& retired) { return retired.first <= lastCompleted_; });
  device_.collectGarbage();
}

}  // namespace voxen
