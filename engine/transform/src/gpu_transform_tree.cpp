#include "voxen/transform/gpu_transform_tree.hpp"

#include <algorithm>
#include <cstring>

#include "voxen/gpu/transform/transform_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/host/streamed_input.hpp"
#include "dirty_subtrees.hpp"

namespace voxen {

// A process() whose changed locals are at least 1 / kWholeLocalsDivisor of the node indices
// uploads the whole local array instead of packing and scattering the changed ones.
constexpr uint64_t kWholeLocalsDivisor = 2;

const char* transformProductName(TransformProduct product) {
  switch (product) {
    case TransformProduct::Auto: return "auto";
    case TransformProduct::Matrix: return "matrix";
    case TransformProduct::QuadShuffle: return "quad-shuffle";
    case TransformProduct::QuadShared: return "quad-shared";
  }
  return "?";
}

bool supportsQuadShuffle(const DeviceInfo& device) {
  const bool wholeQuads = device.subgroupSize >= 4 && device.subgroupSize % 4 == 0;
  return device.capabilities.subgroupBasic && device.capabilities.subgroupShuffle && wholeQuads;
}

TransformProduct chooseTransformProduct(const DeviceInfo& device) {
  if (device.type == VK_PHYSICAL_DEVICE_TYPE_CPU) return TransformProduct::Matrix;
  return supportsQuadShuffle(device) ? TransformProduct::QuadShuffle : TransformProduct::QuadShared;
}

GpuTransformTree::GpuTransformTree(Scheduler& scheduler, TransformTree& tree, GpuTransformOptions options)
    : scheduler_(scheduler), tree_(tree) {
  product_ = options.product == TransformProduct::Auto ? chooseTransformProduct(scheduler.device().info()) : options.product;
  if (product_ == TransformProduct::QuadShuffle && !supportsQuadShuffle(scheduler.device().info()))
    throw Error("transform tree: the quad-shuffle product needs subgroup shuffles and subgroups of whole quads, which " +
                scheduler.device().info().name + " lacks");
  lanesPerNode_ = product_ == TransformProduct::Matrix ? 1 : 4;
  const int variant = product_ == TransformProduct::Matrix ? 0 : product_ == TransformProduct::QuadShuffle ? 1 : 2;
  scatterKernel_ = scheduler.library().kernel("transform/transform_scatter.comp");
  nodeWorldsKernel_ = scheduler.library().kernel("transform/transform_node_worlds.comp");
  reorderKernel_ = scheduler.library().kernel("transform/transform_reorder.comp");
  levelsKernel_ = scheduler.library().kernel("transform/transform_levels.comp",
                                             KernelVariant{{{"TRANSFORM_PRODUCT", std::to_string(variant)}}, {}});
  changedInput_ = std::make_unique<StreamedInput>(scheduler, "transform changed locals", 1 << 16, 2);
  listedInput_ = std::make_unique<StreamedInput>(scheduler, "transform listed nodes", 1 << 16, 2);
  subtrees_ = std::make_unique<DirtySubtrees>();
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
  levelWorlds_ = Buffer(device, "transform worlds in level order", (uint64_t(capacity) + 1) * 64);
  parentSlots_ = Buffer(device, "transform parent slots in level order", uint64_t(capacity) * 4);
  order_ = Buffer(device, "transform level order", uint64_t(capacity) * 4);
  dirty_ = Buffer(device, "transform dirty bits", words * 4);
  levelChanged_ = Buffer(device, "transform changed marks in level order", (uint64_t(capacity) + 1) * 4);
  boxes_ = Buffer(device, "transform local boxes", uint64_t(capacity) * 32);
  slots_ = Buffer(device, "transform slots by node", uint64_t(capacity) * 4);
  // Every local as it is now, every live node dirty, the root's world the identity.
  std::vector<glm::mat4> locals(capacity, glm::mat4(1.0f));
  for (uint32_t n = 0; n < tree_.capacity(); ++n) locals[n] = tree_.local(n);
  scheduler_.upload(locals_.range(), locals.data(), locals.size() * 64);
  const glm::mat4 identity(1.0f);
  scheduler_.upload(levelWorlds_.range(0, 64), &identity, 64);
  scheduler_.fill(dirty_.range(), 0xFFFFFFFFu);
  scheduler_.fill(levelChanged_.range(), 0);  // no generation yet
  if (nodeIndexed_) {
    nodeWorlds_ = Buffer(device, "transform worlds by node", uint64_t(capacity) * 64);
    nodeChanged_ = Buffer(device, "transform changed marks by node", uint64_t(capacity) * 4);
    scheduler_.upload(nodeWorlds_.range(0, 64), &identity, 64);
    scheduler_.fill(nodeChanged_.range(), 0);
  }
  stats_.structureUploaded = true;
  uploadStructure(false);
}

// The nodes breadth first (the sparse listing's order too), each position's parent's slot,
// each node's slot and each level's first position.
void GpuTransformTree::uploadStructure(bool keepWorlds) {
  // Each node's slot before (0: none), for moving the worlds computed so far.
  std::vector<uint32_t> oldSlots;
  if (keepWorlds) {
    const std::vector<uint32_t>& oldOrder = subtrees_->order();
    oldSlots.assign(tree_.capacity(), 0);
    for (uint32_t p = 0; p < oldOrder.size(); ++p)
      if (oldOrder[p] < oldSlots.size()) oldSlots[oldOrder[p]] = p + 1;
  }
  subtrees_->rebuild(tree_);
  const std::vector<uint32_t>& order = subtrees_->order();
  std::vector<uint32_t> parents(order.size()), slots(tree_.capacity(), 0);
  levelStarts_.assign(1, 0);
  for (uint32_t p = 0; p < order.size(); ++p) {
    const uint32_t parent = tree_.parent(order[p]);
    parents[p] = parent == TransformTree::kRoot ? 0 : subtrees_->position(parent) + 1;
    slots[order[p]] = p + 1;
    // Breadth first, levels follow one another: a level ends where the next one's nodes begin.
    while (tree_.level(order[p]) > levelStarts_.size()) levelStarts_.push_back(p);
  }
  if (!order.empty()) {
    levelStarts_.push_back(uint32_t(order.size()));
    scheduler_.upload(order_.range(0, order.size() * 4), order.data(), order.size() * 4);
    scheduler_.upload(parentSlots_.range(0, parents.size() * 4), parents.data(), parents.size() * 4);
  }
  scheduler_.upload(slots_.range(0, slots.size() * 4), slots.data(), slots.size() * 4);
  if (keepWorlds && !order.empty()) {
    // New arrays: slot 0 the root, each node's world and mark from its slot before.
    std::vector<uint32_t> fromSlots(order.size());
    for (uint32_t p = 0; p < order.size(); ++p) fromSlots[p] = oldSlots[order[p]];
    Device& device = scheduler_.device();
    Buffer worlds(device, "transform worlds in level order", (uint64_t(capacity_) + 1) * 64);
    Buffer marks(device, "transform changed marks in level order", (uint64_t(capacity_) + 1) * 4);
    const glm::mat4 identity(1.0f);
    scheduler_.upload(worlds.range(0, 64), &identity, 64);
    scheduler_.fill(marks.range(), 0);
    // Destroyed by the device once the pass ran (Buffer::release), like the old arrays.
    Buffer fromBuffer(device, "transform slots before the structure change", fromSlots.size() * 4);
    const BufferRange from = fromBuffer.range();
    scheduler_.upload(from, fromSlots.data(), fromSlots.size() * 4);
    gpu::TransformMovePush push{};
    push.fromWorlds = levelWorlds_.address();
    push.fromMarks = levelChanged_.address();
    push.toWorlds = worlds.address();
    push.toMarks = marks.address();
    push.fromSlots = from.address;
    push.count = uint32_t(order.size());
    scheduler_.dispatchThreads({"transform reorder worlds", reorderKernel_.get(), {}, push,
                                {reads(levelWorlds_.range()), reads(levelChanged_.range()), reads(from),
                                 readsWrites(worlds.range()), readsWrites(marks.range())}},
                               order.size());
    levelWorlds_ = std::move(worlds);  // the old arrays live until the GPU is done with them
    levelChanged_ = std::move(marks);
  }
  starts_ = Buffer(scheduler_.device(), "transform level starts", levelStarts_.size() * 4);
  scheduler_.upload(starts_.range(), levelStarts_.data(), levelStarts_.size() * 4);
  stats_.structureUploaded = true;
}

// One dispatch per wide level, one single-workgroup dispatch per run of narrow ones, over
// `starts` (host copy) / `startsOnDevice`: a level's entries are its order positions, or
// `listed` ones (when not empty: a sparse update's positions).
void GpuTransformTree::recordLevels(const std::vector<uint32_t>& levelStarts, const BufferRange& startsOnDevice,
                                    const BufferRange& listed, Recompute recompute) {
  gpu::TransformPush push{};
  push.readMarks = recompute == Recompute::Marked ? 1u : 0u;
  push.locals = locals_.address();
  push.worlds = levelWorlds_.address();
  push.parentSlots = parentSlots_.address();
  push.order = order_.address();
  push.dirty = dirty_.address();
  push.changed = levelChanged_.address();
  push.generation = generation_;
  push.levelStarts = startsOnDevice.address;
  push.listed = listed.size == 0 ? 0 : listed.address;
  std::vector<BufferUse> uses{reads(locals_.range()), readsWrites(levelWorlds_.range()), reads(parentSlots_.range()),
                              reads(order_.range()),  reads(dirty_.range()),             readsWrites(levelChanged_.range()),
                              reads(startsOnDevice)};
  if (listed.size != 0) uses.push_back(reads(listed));
  const uint32_t levels = uint32_t(levelStarts.size() - 1);
  auto width = [&](uint32_t l) { return levelStarts[l + 1] - levelStarts[l]; };
  for (uint32_t l = 0; l < levels;) {
    push.firstLevel = l;
    if (width(l) > gpu::kNarrowLevel) {
      push.lastLevel = l + 1;
      push.count = width(l);
      scheduler_.dispatchThreads({"transform level", levelsKernel_.get(), {}, push, uses}, uint64_t(width(l)) * lanesPerNode_);
      ++l;
    } else {
      // A run of narrow levels: one workgroup, at most 4096 levels of 64 / lanesPerNode_
      // nodes per round (lavapipe stops an invocation's loops after 65,535 iterations).
      const uint32_t maxLevels = 4096 / lanesPerNode_;
      uint32_t last = l;
      while (last < levels && width(last) <= gpu::kNarrowLevel && last - l < maxLevels) ++last;
      push.lastLevel = last;
      if (last == l + 1) {  // a single narrow level: the one-level form
        push.count = width(l);
        scheduler_.dispatchThreads({"transform level", levelsKernel_.get(), {}, push, uses}, uint64_t(width(l)) * lanesPerNode_);
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
  if (!grown && tree_.structureChanged()) uploadStructure(true);
  // The changed locals, packed, then scattered on the GPU (after a growth every local is
  // already uploaded and every node dirty).
  const std::vector<uint32_t>& dirty = tree_.dirtyNodes();
  // Most locals changed: the tree's whole local array in one contiguous copy, no scatter
  // pass (packing costs 68 bytes per changed local and the scatter reads and writes them
  // again on the device; the copy moves 64 bytes per node index once).
  const bool whole = !grown && !dirty.empty() && dirty.size() * uint64_t(kWholeLocalsDivisor) >= tree_.capacity();
  // Every live node changed: the passes recompute the whole level order without reading
  // any dirty bit or changed mark.
  const bool everyNode = whole && dirty.size() == liveNodes();
  if (whole) {
    scheduler_.upload(locals_.range(0, tree_.capacity() * 64ull), &tree_.local(0), tree_.capacity() * 64ull);
    if (!everyNode) {
      std::vector<uint32_t> bits((tree_.capacity() + 31) / 32, 0);
      for (uint32_t n : dirty) {
        const uint32_t p = subtrees_->position(n);
        bits[p / 32] |= 1u << (p % 32);
      }
      scheduler_.upload(dirty_.range(0, bits.size() * 4), bits.data(), bits.size() * 4);
    }
    stats_.uploadedLocals = dirty.size();
    stats_.wholeLocals = true;
  } else if (!grown && !dirty.empty()) {
    // Packed as the locals (64 bytes each), then (node, order position) pairs: written
    // straight into device memory where it is host-visible.
    const size_t count = dirty.size(), localBytes = count * 64, bytes = localBytes + count * 8;
    std::byte* out = changedInput_->begin(bytes);
    for (size_t i = 0; i < count; ++i) std::memcpy(out + i * 64, &tree_.local(dirty[i]), 64);
    uint32_t* pairs = reinterpret_cast<uint32_t*>(out + localBytes);
    for (size_t i = 0; i < count; ++i) {
      pairs[2 * i] = dirty[i];
      pairs[2 * i + 1] = subtrees_->position(dirty[i]);
    }
    const BufferRange packed = changedInput_->end(bytes);
    gpu::TransformPush push{};
    push.locals = locals_.address();
    push.dirty = dirty_.address();
    push.packedLocals = packed.address;
    push.packedNodes = packed.address + localBytes;
    push.count = uint32_t(count);
    scheduler_.dispatchThreads({"transform changed locals", scatterKernel_.get(), {}, push,
                                {reads(packed), readsWrites(locals_.range()), readsWrites(dirty_.range())}},
                               count);
    stats_.uploadedLocals = dirty.size();
  }
  if (grown) stats_.uploadedLocals = tree_.capacity();
  if (grown || tree_.boxesChanged()) uploadBoxes();
  // Marks hold the generation that set them: no clearing per process (a 4 MB memset at 1 M
  // nodes), except when the counter wraps.
  if (++generation_ == 0) {
    scheduler_.fill(levelChanged_.range(), 0);
    if (nodeIndexed_) scheduler_.fill(nodeChanged_.range(), 0);
    generation_ = 1;
  }
  if (!grown && dirty.size() * uint64_t(gpu::kSparseDivisor) <= liveNodes()) {
    const BufferRange listed = recordSparseLevels();
    if (nodeIndexed_ && listed.size != 0) recordNodeWorlds(listed, uint32_t(listed.size / 4), 0);
  } else {
    recordLevels(levelStarts_, starts_.range(), BufferRange{}, everyNode ? Recompute::Every : Recompute::Marked);
    if (nodeIndexed_) recordNodeWorlds(BufferRange{}, liveNodes(), everyNode ? 0 : generation_);
  }
  scheduler_.fill(dirty_.range(), 0);  // processed
  const uint64_t submitted = scheduler_.submit();
  changedInput_->submitted(submitted);
  listedInput_->submitted(submitted);
  stats_.product = product_;
  tree_.clearDirty();
}

// Few changed locals: the host lists their subtrees (DirtySubtrees), level by level, and the
// passes recompute exactly those, reading no marks.
BufferRange GpuTransformTree::recordSparseLevels() {
  const ListedLevels listed = subtrees_->expand(tree_, tree_.dirtyNodes());
  stats_.sparse = true;
  stats_.listedNodes = listed.positions.size();
  if (listed.positions.empty()) return {};
  const size_t startsBytes = listed.starts.size() * 4, bytes = startsBytes + listed.positions.size() * 4;
  std::byte* out = listedInput_->begin(bytes);
  std::memcpy(out, listed.starts.data(), startsBytes);
  std::memcpy(out + startsBytes, listed.positions.data(), listed.positions.size() * 4);
  const BufferRange range = listedInput_->end(bytes);
  const BufferRange starts{range.buffer, range.offset, startsBytes, range.address, range.name};
  const BufferRange positions{range.buffer, range.offset + startsBytes, bytes - startsBytes, range.address + startsBytes,
                              range.name};
  recordLevels(listed.starts, starts, positions, Recompute::Every);
  return positions;
}

BufferRange GpuTransformTree::worlds() {
  keepNodeIndexed();
  return nodeWorlds_.range(0, uint64_t(capacity_) * 64);
}

BufferRange GpuTransformTree::changedMarks() {
  keepNodeIndexed();
  return nodeChanged_.range(0, uint64_t(capacity_) * 4);
}

void GpuTransformTree::keepNodeIndexed() {
  if (nodeIndexed_) return;
  nodeIndexed_ = true;
  if (capacity_ == 0) return;  // allocated with the other arrays by the first process()
  Device& device = scheduler_.device();
  nodeWorlds_ = Buffer(device, "transform worlds by node", uint64_t(capacity_) * 64);
  nodeChanged_ = Buffer(device, "transform changed marks by node", uint64_t(capacity_) * 4);
  const glm::mat4 identity(1.0f);
  scheduler_.upload(nodeWorlds_.range(0, 64), &identity, 64);
  scheduler_.fill(nodeChanged_.range(), 0);
  recordNodeWorlds(BufferRange{}, liveNodes(), 0);
}

void GpuTransformTree::recordNodeWorlds(const BufferRange& positions, uint32_t count, uint32_t onlyGeneration) {
  if (count == 0) return;
  gpu::TransformMovePush push{};
  push.fromWorlds = levelWorlds_.address();
  push.fromMarks = levelChanged_.address();
  push.toWorlds = nodeWorlds_.address();
  push.toMarks = nodeChanged_.address();
  push.order = order_.address();
  push.positions = positions.size == 0 ? 0 : positions.address;
  push.count = count;
  push.onlyGeneration = onlyGeneration;
  std::vector<BufferUse> uses{reads(levelWorlds_.range()), reads(levelChanged_.range()), reads(order_.range()),
                              readsWrites(nodeWorlds_.range()), readsWrites(nodeChanged_.range())};
  if (positions.size != 0) uses.push_back(reads(positions));
  scheduler_.dispatchThreads({"transform worlds by node", nodeWorldsKernel_.get(), {}, push, uses}, count);
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
  const uint32_t position = node < capacity_ ? subtrees_->position(node) : UINT32_MAX;
  if (position == UINT32_MAX)
    throw Error("transform tree: node " + std::to_string(node) + " was added after the last process(): it has no world yet");
  const auto values = scheduler_.readback<glm::mat4>(levelWorlds_.range((uint64_t(position) + 1) * 64, 64)).get();
  return values.front();
}

// The level order's worlds back in one contiguous read, each handed to its node: the tree's
// worlds written in node order (sequential writes, scattered reads: cheaper on the host
// than writing in level order, which measured 10-18 ms more per million nodes).
void GpuTransformTree::download() {
  const std::vector<uint32_t>& order = subtrees_->order();
  if (order.empty()) return;
  downloaded_.resize(order.size());
  scheduler_.readbackInto(levelWorlds_.range(64, order.size() * 64ull), std::span<glm::mat4>(downloaded_)).wait();
  for (uint32_t n = 1; n < tree_.capacity(); ++n) {
    const uint32_t position = subtrees_->position(n);
    if (position != UINT32_MAX && tree_.live(n)) tree_.setWorld(n, downloaded_[position]);
  }
}

}  // namespace voxen
