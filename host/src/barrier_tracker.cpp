#include "voxen/host/barrier_tracker.hpp"

#include <algorithm>

namespace voxen {

namespace {

constexpr VkPipelineStageFlags kShaderStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;

bool coversAll(VkFlags set, VkFlags bits) { return (set & bits) == bits; }

}  // namespace

VkAccessFlags readAccessOf(VkPipelineStageFlags stage) {
  VkAccessFlags access = 0;
  if (stage & kShaderStages) access |= VK_ACCESS_SHADER_READ_BIT;
  if (stage & VK_PIPELINE_STAGE_TRANSFER_BIT) access |= VK_ACCESS_TRANSFER_READ_BIT;
  if (stage & VK_PIPELINE_STAGE_HOST_BIT) access |= VK_ACCESS_HOST_READ_BIT;
  if (stage & VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT) access |= VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  return access;
}

VkAccessFlags writeAccessOf(VkPipelineStageFlags stage) {
  VkAccessFlags access = 0;
  if (stage & kShaderStages) access |= VK_ACCESS_SHADER_WRITE_BIT;
  if (stage & VK_PIPELINE_STAGE_TRANSFER_BIT) access |= VK_ACCESS_TRANSFER_WRITE_BIT;
  if (stage & VK_PIPELINE_STAGE_HOST_BIT) access |= VK_ACCESS_HOST_WRITE_BIT;
  return access;
}

size_t BarrierTracker::segmentCount(uint64_t resource) const {
  const auto it = buffers_.find(resource);
  return it == buffers_.end() ? 0 : it->second.size();
}

Barrier BarrierTracker::record(VkPipelineStageFlags stage, std::span<const ResourceAccess> accesses) {
  Barrier barrier;
  // One lookup per access: the lists found here are updated below (references into an
  // unordered_map stay valid while it grows).
  targets_.clear();
  for (const ResourceAccess& access : accesses) {
    if (!(access.read || access.write)) {
      targets_.push_back(nullptr);
      continue;
    }
    Segments& segments = buffers_[access.resource];
    targets_.push_back(&segments);
    const uint64_t begin = access.offset, end = access.end();
    // The first segment that ends past `begin`, then every one that starts before `end`.
    auto s = segments.size() == 1 ? segments.begin()
                                  : std::upper_bound(segments.begin(), segments.end(), begin,
                                                     [](uint64_t offset, const Segment& seg) { return offset < seg.end; });
    for (; s != segments.end() && s->begin < end; ++s) {
      if (s->end <= begin) continue;
      const State& state = s->state;
      // A command in several stages needs the write visible to each of them.
      if (state.writeStage && !coversAll(state.visibleTo, stage)) {  // read-after-write, write-after-write
        barrier.srcStages |= state.writeStage;
        barrier.srcAccess |= state.writeAccess;
      }
      if (access.write && state.readStages && !coversAll(state.readsOrderedBefore, stage))  // write-after-read
        barrier.srcStages |= state.readStages;
    }
  }
  if (!barrier.empty()) {
    barrier.dstStages = stage;
    barrier.dstAccess = readAccessOf(stage) | writeAccessOf(stage);
    applyBarrier(barrier);
  }
  for (size_t i = 0; i < accesses.size(); ++i)
    if (targets_[i]) noteAccess(*targets_[i], accesses[i], stage);
  return barrier;
}

void BarrierTracker::applyBarrier(const Barrier& barrier) {
  // The barrier is global: it orders and publishes every earlier access in its source
  // scope, not only those of this command's ranges. States that become equal merge.
  for (auto& [resource, segments] : buffers_) {
    for (Segment& seg : segments) {
      State& s = seg.state;
      if (s.writeStage && coversAll(barrier.srcStages, s.writeStage) && coversAll(barrier.srcAccess, s.writeAccess))
        s.visibleTo |= barrier.dstStages;
      if (s.readStages && coversAll(barrier.srcStages, s.readStages)) s.readsOrderedBefore |= barrier.dstStages;
    }
    if (segments.size() < 2) continue;
    scratch_.clear();
    for (const Segment& seg : segments) appendMerged(scratch_, seg);
    segments.swap(scratch_);
  }
}

void BarrierTracker::appendMerged(Segments& out, const Segment& segment) {
  if (segment.begin >= segment.end) return;
  if (!out.empty() && out.back().end == segment.begin && out.back().state == segment.state)
    out.back().end = segment.end;
  else
    out.push_back(segment);
}

void BarrierTracker::noteAccess(Segments& segments, const ResourceAccess& access, VkPipelineStageFlags stage) {
  const auto change = [&](State s) {
    if (access.write) {
      s = State{};
      s.writeStage = stage;
      s.writeAccess = writeAccessOf(stage);
    } else {
      s.readStages |= stage;
      s.readsOrderedBefore = 0;  // this read is not ordered before anything yet
    }
    return s;
  };
  const uint64_t begin = access.offset, end = access.end();
  // The common cases in place: a first access, a write over everything, the same range again.
  if (segments.empty() || (access.write && begin <= segments.front().begin && end >= segments.back().end)) {
    segments.assign(1, {begin, end, change(State{})});
    return;
  }
  if (segments.size() == 1 && segments[0].begin == begin && segments[0].end == end) {
    segments[0].state = change(segments[0].state);
    return;
  }
  // Otherwise rebuild the list: segments outside [begin, end) are kept, those inside are split at
  // its ends and changed, and the gaps inside it become new segments.
  scratch_.clear();
  uint64_t cursor = begin;  // the first byte of [begin, end) not yet emitted
  for (const Segment& seg : segments) {
    if (seg.end <= begin) {
      appendMerged(scratch_, seg);
      continue;
    }
    if (seg.begin >= end) {
      if (cursor < end) appendMerged(scratch_, {cursor, end, change(State{})});
      cursor = end;
      appendMerged(scratch_, seg);
      continue;
    }
    if (seg.begin < begin) appendMerged(scratch_, {seg.begin, begin, seg.state});
    if (cursor < seg.begin) appendMerged(scratch_, {cursor, seg.begin, change(State{})});
    const uint64_t hi = std::min(seg.end, end);
    appendMerged(scratch_, {std::max(seg.begin, begin), hi, change(seg.state)});
    cursor = hi;
    if (seg.end > end) appendMerged(scratch_, {end, seg.end, seg.state});
  }
  if (cursor < end) appendMerged(scratch_, {cursor, end, change(State{})});
  segments.swap(scratch_);
}

}  // namespace voxen
