#include "voxen/transform/gpu_transform_tree.hpp"

#include <algorithm>
#include <cstring>

#include "voxen/gpu/transform/transform_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

GpuTransformTree::GpuTransformTree(Scheduler& scheduler, TransformTree& tree) : scheduler_(scheduler), tree_(tree) {
  scatterKernel_ = scheduler.library().kernel("transform/transform_scatter.comp");
  levelsKernel_ = scheduler.library().kernel("transform/transform_levels.comp");
}

GpuTransformTree::~GpuTransformTree() = default;

// Device arrays for every node index the tree has used (grown by doubling); growing
// uploads everything anew.
void GpuTransformTree::ensureCapacity() {
  const uint32_t needed = uint32_t(tree_.capacity());
  if (needed <= capacity_) return;
  uint32_t capacity = std::max<uint32_t>(1024, capacity_);
  while (capacity < needed) capacity *= 2;
  capacity_ = capacity;
  Device& device = scheduler_.device();
  const uint64_t words = (uint64_t(capacity) + 31) / 32;
  locals_ = Buffer(device, "transform locals", uint64_t(capacity) * 64);
  worlds_ = Buffer(device, "transform worlds", uint64_t(capacity) * 64);
  parents_ = Buffer(device, "transform parents", uint64_t(capacity) * 4);
  order_ = Buffer(device, "transform level order", uint64_t(capacity) * 4);
  dirty_ = Buffer(device, "transform dirty bits", words * 4);
  changed_ = Buffer(device, "transform changed marks", uint64_t(capacity) * 4);
  boxes_ = Buffer(device, "transform local boxes", uint64_t(capacity) * 32);
  // Every local as it is now, every live node dirty, the root's world the identity.
  std::vector<glm::mat4> locals(capacity, glm::mat4(1.0f));
  for (uint32_t n = 0; n < tree_.capacity(); ++n) locals[n] = tree_.local(n);
  scheduler_.upload(locals_.range(), locals.data(), locals.size() * 64);
  const glm::mat4 identity(1.0f);
  scheduler_.upload(worlds_.range(0, 64), &identity, 64);
  scheduler_.fill(dirty_.range(), 0xFFFFFFFFu);
  stats_.structureUploaded = true;
  uploadStructure();
}

// Parents, and the nodes level after level with each level's start.
void GpuTransformTree::uploadStructure() {
  std::vector<uint32_t> parents(capacity_, 0), order;
  order.reserve(tree_.size());
  levelStarts_.assign(1, 0);
  for (uint32_t l = 1; l <= tree_.levels(); ++l) {
    for (uint32_t n : tree_.levelNodes(l)) {
      parents[n] = tree_.parent(n);
      order.push_back(n);
    }
    levelStarts_.push_back(uint32_t(order.size()));
  }
  scheduler_.upload(parents_.range(), parents.data(), parents.size() * 4);
  if (!order.empty()) scheduler_.upload(order_.range(0, order.size() * 4), order.data(), order.size() * 4);
  starts_ = Buffer(scheduler_.device(), "transform level starts", levelStarts_.size() * 4);
  scheduler_.upload(starts_.range(), levelStarts_.data(), levelStarts_.size() * 4);
  stats_.structureUploaded = true;
}

void GpuTransformTree::recordLevels() {
  gpu::TransformPush push{};
  push.locals = locals_.address();
  push.worlds = worlds_.address();
  push.parents = parents_.address();
  push.order = order_.address();
  push.dirty = dirty_.address();
  push.changed = changed_.address();
  push.levelStarts = starts_.address();
  const std::vector<BufferUse> uses{reads(locals_.range()), readsWrites(worlds_.range()), reads(parents_.range()),
                                    reads(order_.range()),  reads(dirty_.range()),        readsWrites(changed_.range()),
                                    reads(starts_.range())};
  const uint32_t levels = uint32_t(levelStarts_.size() - 1);
  auto width = [&](uint32_t l) { return levelStarts_[l + 1] - levelStarts_[l]; };
  for (uint32_t l = 0; l < levels;) {
    push.firstLevel = l;
    if (width(l) > gpu::kNarrowLevel) {
      push.lastLevel = l + 1;
      push.count = width(l);
      scheduler_.dispatchThreads({"transform level", levelsKernel_.get(), {}, push, uses}, width(l));
      ++l;
    } else {
      // A run of narrow levels: one workgroup, at most 4096 levels (lavapipe stops an
      // invocation's loops after 65,535 iterations).
      uint32_t last = l;
      while (last < levels && width(last) <= gpu::kNarrowLevel && last - l < 4096) ++last;
      push.lastLevel = last;
      if (last == l + 1) {  // a single narrow level: the one-level form
        push.count = width(l);
        scheduler_.dispatchThreads({"transform level", levelsKernel_.get(), {}, push, uses}, width(l));
      } else {
        scheduler_.dispatch({"transform narrow levels", levelsKernel_.get(), {1, 1, 1}, push, uses});
      }
      l = last;
    }
    ++stats_.dispatches;
  }
}

void GpuTransformTree::process() {
  stats_ = {};
  const bool grown = tree_.capacity() > capacity_;
  ensureCapacity();
  if (!grown && tree_.structureChanged()) uploadStructure();
  // The changed locals, packed, then scattered on the GPU (after a growth every local is
  // already uploaded and every node dirty).
  const std::vector<uint32_t>& dirty = tree_.dirtyNodes();
  if (!grown && !dirty.empty()) {
    if (dirty.size() > packedCapacity_) {
      packedCapacity_ = std::max<uint64_t>(dirty.size(), packedCapacity_ * 2);
      packedNodes_ = Buffer(scheduler_.device(), "transform changed nodes", packedCapacity_ * 4);
      packedLocals_ = Buffer(scheduler_.device(), "transform changed locals", packedCapacity_ * 64);
    }
    std::vector<glm::mat4> locals(dirty.size());
    for (size_t i = 0; i < dirty.size(); ++i) locals[i] = tree_.local(dirty[i]);
    scheduler_.upload(packedNodes_.range(0, dirty.size() * 4), dirty.data(), dirty.size() * 4);
    scheduler_.upload(packedLocals_.range(0, dirty.size() * 64), locals.data(), dirty.size() * 64);
    gpu::TransformPush push{};
    push.locals = locals_.address();
    push.dirty = dirty_.address();
    push.packedNodes = packedNodes_.address();
    push.packedLocals = packedLocals_.address();
    push.count = uint32_t(dirty.size());
    scheduler_.dispatchThreads({"transform changed locals", scatterKernel_.get(), {}, push,
                                {reads(packedNodes_.range()), reads(packedLocals_.range()), readsWrites(locals_.range()),
                                 readsWrites(dirty_.range())}},
                               dirty.size());
    stats_.uploadedLocals = dirty.size();
  }
  if (grown) stats_.uploadedLocals = tree_.capacity();
  if (grown || tree_.boxesChanged()) uploadBoxes();
  scheduler_.fill(changed_.range(), 0);
  recordLevels();
  scheduler_.fill(dirty_.range(), 0);  // processed
  scheduler_.submit();
  tree_.clearDirty();
}

// Every node's local box (vec4 lo, vec4 hi), when boxes changed.
void GpuTransformTree::uploadBoxes() {
  std::vector<glm::vec4> boxes(size_t(tree_.capacity()) * 2);
  for (uint32_t n = 0; n < tree_.capacity(); ++n) {
    boxes[2 * n] = glm::vec4(tree_.box(n).lo, 0.0f);
    boxes[2 * n + 1] = glm::vec4(tree_.box(n).hi, 0.0f);
  }
  scheduler_.upload(boxes_.range(0, boxes.size() * 16), boxes.data(), boxes.size() * 16);
}

glm::mat4 GpuTransformTree::world(uint32_t node) {
  if (!tree_.live(node)) throw Error("transform tree: node " + std::to_string(node) + " is not a live node");
  const auto values = scheduler_.readback<glm::mat4>(worlds_.range(uint64_t(node) * 64, 64)).get();
  return values.front();
}

void GpuTransformTree::download() {
  const auto values = scheduler_.readback<glm::mat4>(worlds_.range(0, tree_.capacity() * 64ull)).get();
  for (uint32_t n = 1; n < tree_.capacity(); ++n)
    if (tree_.live(n)) tree_.setWorld(n, values[n]);
}

}  // namespace voxen
