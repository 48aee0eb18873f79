#include "voxen/host/scheduler.hpp"

#include <algorithm>
#include <map>

#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

namespace {

constexpr VkDeviceSize kStagingAlignment = 16;

VkDeviceSize alignUp(VkDeviceSize value, VkDeviceSize alignment) { return (value + alignment - 1) / alignment * alignment; }

// One access per buffer: a pass that declares the same buffer twice reads and writes it.
std::vector<ResourceAccess> mergeAccesses(const std::vector<BufferUse>& uses) {
  std::map<uint64_t, ResourceAccess> merged;
  for (const BufferUse& use : uses) {
    if (!use.range.buffer) throw Error("a pass declared a null buffer");
    auto& access = merged[uint64_t(use.range.buffer)];
    access.resource = uint64_t(use.range.buffer);
    access.read |= use.access != Access::Write;
    access.write |= use.access != Access::Read;
  }
  std::vector<ResourceAccess> list;
  for (const auto& [key, access] : merged) list.push_back(access);
  return list;
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
};

Scheduler::Scheduler(Device& device, ShaderLibrary& library, SchedulerOptions options)
    : device_(device),
      library_(library),
      options_(options),
      staging_(device, "staging ring", options.stagingBytes, MemoryKind::HostReadback),
      ring_(options.stagingBytes),
      transient_(device, "transient scratch", options.transientBytes * std::max(1u, options.batchesInFlight)) {
  if (options_.batchesInFlight == 0) options_.batchesInFlight = 1;
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
  vkQueueWaitIdle(device_.queue());
  device_.unregisterTracker(this);
  for (auto& slot : slots_) {
    if (slot->queries) vkDestroyQueryPool(device_.handle(), slot->queries, nullptr);
    vkDestroyCommandPool(device_.handle(), slot->pool, nullptr);
  }
  vkDestroySemaphore(device_.handle(), timeline_, nullptr);
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
  slot.recording = true;
  slot.hostReads = false;
  slot.stagedBytes = 0;
  slot.transientUsed = 0;
  slot.timedCount = 0;
  // The previous batch completes before this one starts (the submission waits on it), so
  // nothing recorded earlier needs a barrier here.
  tracker_.reset();
  // Hot reload: swap pipelines whose sources changed, before anything is recorded.
  stats_.kernelSwaps += library_.reloadChanged(lastSubmitted_);
  library_.collectRetired(lastCompleted_);
}

void Scheduler::barrierFor(const std::string& name, VkPipelineStageFlags stage, std::vector<ResourceAccess> accesses) {
  BatchSlot& slot = current();
  const Barrier barrier = tracker_.record(stage, accesses);
  if (!barrier.empty()) {
    VkMemoryBarrier memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    memory.srcAccessMask = barrier.srcAccess;
    memory.dstAccessMask = barrier.dstAccess;
    vkCmdPipelineBarrier(slot.cmd, barrier.srcStages, barrier.dstStages, 0, 1, &memory, 0, nullptr, 0, nullptr);
    ++stats_.barriers;
  }
  if (keepLog_) log_.push_back({name, stage, std::move(accesses), barrier});
}

void Scheduler::dispatch(const Pass& pass) {
  if (!pass.kernel) throw Error("pass '" + pass.name + "' has no kernel");
  const DeviceInfo& info = device_.info();
  for (int axis = 0; axis < 3; ++axis)
    if (pass.groups[axis] > info.maxComputeWorkGroupCount[axis])
      throw Error("pass '" + pass.name + "' dispatches " + std::to_string(pass.groups[axis]) + " workgroups along " +
                  "xyz"[axis] + ", above the device's limit of " + std::to_string(info.maxComputeWorkGroupCount[axis]));
  if (pass.push.size > ShaderLibrary::kPushConstantBytes) throw Error("pass '" + pass.name + "' push constants too large");
  if (pass.groups[0] == 0 || pass.groups[1] == 0 || pass.groups[2] == 0) return;

  BatchSlot& slot = current();
  barrierFor(pass.name, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, mergeAccesses(pass.uses));
  int32_t query = -1;
  if (slot.queries && slot.timedCount < options_.maxTimedPassesPerBatch) {
    query = int32_t(2 * slot.timedCount++);
    vkCmdWriteTimestamp(slot.cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, slot.queries, uint32_t(query));
  }
  vkCmdBindPipeline(slot.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass.kernel->pipeline());
  // Always the whole range, zero-padded, so no shader ever reads unset push constants.
  vkCmdPushConstants(slot.cmd, library_.pipelineLayout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                     ShaderLibrary::kPushConstantBytes, pass.push.bytes.data());
  vkCmdDispatch(slot.cmd, pass.groups[0], pass.groups[1], pass.groups[2]);
  if (query >= 0) vkCmdWriteTimestamp(slot.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, slot.queries, uint32_t(query + 1));
  slot.passes.push_back({pass.name, query});
  ++stats_.dispatches;
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

VkDeviceSize Scheduler::stagingAllocate(VkDeviceSize size) {
  // Hand a half-full ring to the GPU early, so the host fills one half while the GPU
  // drains the other.
  if (slots_[slotIndex_]->recording && slots_[slotIndex_]->stagedBytes + size > ring_.capacity() / 2) submit();
  for (;;) {
    if (auto offset = ring_.allocate(size, kStagingAlignment, lastSubmitted_ + 1)) {
      current().stagedBytes += size;
      return *offset;
    }
    ++stats_.stagingWaits;
    if (ring_.oldestTag() > lastSubmitted_) submit();  // the ring holds only this batch's data
    wait(ring_.oldestTag());
  }
}

void Scheduler::upload(const BufferRange& dst, const void* data, size_t bytes) {
  if (bytes > dst.size) throw Error("upload of " + std::to_string(bytes) + " bytes into '" + std::string(dst.name) +
                                    "' range of " + std::to_string(dst.size) + " bytes");
  const VkDeviceSize chunkLimit = std::max<VkDeviceSize>(ring_.capacity() / 4, kStagingAlignment);
  const auto* source = static_cast<const std::byte*>(data);
  for (VkDeviceSize done = 0; done < bytes;) {
    const VkDeviceSize chunk = std::min<VkDeviceSize>(bytes - done, chunkLimit);
    const VkDeviceSize offset = stagingAllocate(chunk);
    std::memcpy(staging_.mapped() + offset, source + done, chunk);
    barrierFor("upload", VK_PIPELINE_STAGE_TRANSFER_BIT, {{uint64_t(dst.buffer), false, true}});
    const VkBufferCopy region{offset, dst.offset + done, chunk};
    vkCmdCopyBuffer(current().cmd, staging_.handle(), dst.buffer, 1, &region);
    done += chunk;
  }
  stats_.uploadedBytes += bytes;
}

void Scheduler::fill(const BufferRange& dst, uint32_t value) {
  if (dst.offset % 4 || dst.size % 4) throw Error("fill of '" + std::string(dst.name) + "' needs 4-byte aligned offset and size");
  barrierFor("fill", VK_PIPELINE_STAGE_TRANSFER_BIT, {{uint64_t(dst.buffer), false, true}});
  vkCmdFillBuffer(current().cmd, dst.buffer, dst.offset, dst.size, value);
}

void Scheduler::copy(const BufferRange& src, const BufferRange& dst) {
  if (src.size > dst.size) throw Error("copy from '" + std::string(src.name) + "' does not fit '" + std::string(dst.name) + "'");
  barrierFor("copy", VK_PIPELINE_STAGE_TRANSFER_BIT, mergeAccesses({reads(src), writes(dst)}));
  const VkBufferCopy region{src.offset, dst.offset, src.size};
  vkCmdCopyBuffer(current().cmd, src.buffer, dst.buffer, 1, &region);
}

void Scheduler::recordReadback(const BufferRange& src, std::shared_ptr<detail::ReadbackState> state) {
  const VkDeviceSize chunkLimit = std::max<VkDeviceSize>(ring_.capacity() / 4, kStagingAlignment);
  for (VkDeviceSize done = 0; done < src.size;) {
    const VkDeviceSize chunk = std::min<VkDeviceSize>(src.size - done, chunkLimit);
    const VkDeviceSize offset = stagingAllocate(chunk);
    barrierFor("readback", VK_PIPELINE_STAGE_TRANSFER_BIT, {{uint64_t(src.buffer), true, false}});
    BatchSlot& slot = current();
    const VkBufferCopy region{src.offset + done, offset, chunk};
    vkCmdCopyBuffer(slot.cmd, src.buffer, staging_.handle(), 1, &region);
    slot.readbacks.push_back({state, offset, done, chunk});
    slot.hostReads = true;
    ++state->pendingChunks;
    state->readyAt = lastSubmitted_ + 1;
    done += chunk;
  }
  if (src.size == 0) state->done = true;
  stats_.readBackBytes += src.size;
}

BufferRange Scheduler::transient(VkDeviceSize bytes, VkDeviceSize alignment) {
  BatchSlot& slot = current();
  const VkDeviceSize offset = alignUp(slot.transientUsed, std::max<VkDeviceSize>(alignment, 1));
  if (offset + bytes > options_.transientBytes)
    throw Error("transient allocation of " + std::to_string(bytes) + " bytes exceeds the per-batch scratch of " +
                std::to_string(options_.transientBytes) + " bytes (SchedulerOptions::transientBytes)");
  slot.transientUsed = offset + bytes;
  return transient_.range(slot.index * options_.transientBytes + offset, bytes);
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
  const uint64_t waitValue = lastSubmitted_;
  const uint64_t signalValue = lastSubmitted_ + 1;
  VkTimelineSemaphoreSubmitInfo timelineInfo{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timelineInfo.waitSemaphoreValueCount = 1;
  timelineInfo.pWaitSemaphoreValues = &waitValue;
  timelineInfo.signalSemaphoreValueCount = 1;
  timelineInfo.pSignalSemaphoreValues = &signalValue;
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo submitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submitInfo.pNext = &timelineInfo;
  // Each batch waits for the one before, which orders all their memory accesses.
  submitInfo.waitSemaphoreCount = 1;
  submitInfo.pWaitSemaphores = &timeline_;
  submitInfo.pWaitDstStageMask = &waitStage;
  submitInfo.commandBufferCount = 1;
  submitInfo.pCommandBuffers = &slot.cmd;
  submitInfo.signalSemaphoreCount = 1;
  submitInfo.pSignalSemaphores = &timeline_;
  VOXEN_VK_CHECK(vkQueueSubmit(device_.queue(), 1, &submitInfo, VK_NULL_HANDLE));
  slot.recording = false;
  slot.retired = false;
  slot.value = signalValue;
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
    lastCompleted_ = std::max(lastCompleted_, value);
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
  // are not tracked per buffer: any of them still in flight may use it.
  if (slots_[slotIndex_]->recording && tracker_.touched(uint64_t(buffer))) submit();
  return lastSubmitted_;
}

uint64_t Scheduler::pollCompleted() {
  uint64_t value = 0;
  VOXEN_VK_CHECK(vkGetSemaphoreCounterValue(device_.handle(), timeline_, &value));
  return lastCompleted_ = std::max(lastCompleted_, value);
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
    for (const auto& pass : slot.passes)
      profile_.add(pass.name, pass.query < 0 ? 0.0 : double(stamps[pass.query + 1] - stamps[pass.query]) * period * 1e-6,
                   pass.query >= 0);
  } else {
    for (const auto& pass : slot.passes) profile_.add(pass.name, 0.0, false);
  }
  for (const auto& chunk : slot.readbacks) {
    std::memcpy(chunk.state->destination + chunk.dstOffset, staging_.mapped() + chunk.stagingOffset, chunk.size);
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
  ring_.release(lastCompleted_);
  device_.collectGarbage();
}

}  // namespace voxen
