#pragma once
// A TransformTree processed on the GPU. process() uploads only what changed (the changed
// local matrices, packed, scattered by a pass that also sets their dirty bits; the
// structure's arrays when nodes were added or removed), then records the level passes: a
// level wider than gpu::kNarrowLevel is one dispatch with an invocation per node, a run of
// narrow levels is one single-workgroup dispatch that walks them with barriers (a chain of
// thousands of levels costs a few dispatches, not thousands). All of it in one command
// buffer and submission. World matrices stay on the device (worlds()) for consumers;
// world(n) and download() read back only when asked.
#include <glm/mat4x4.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/transform/transform_tree.hpp"

namespace voxen {

class Kernel;
class Scheduler;

struct TransformStats {
  uint64_t uploadedLocals = 0;  // changed local matrices uploaded by the last process()
  uint32_t dispatches = 0;      // level dispatches it recorded
  bool structureUploaded = false;
};

class GpuTransformTree {
 public:
  GpuTransformTree(Scheduler& scheduler, TransformTree& tree);
  ~GpuTransformTree();

  // Records and submits the update of every world matrix that depends on a changed local
  // (does not wait); clears the tree's dirty marks.
  void process();
  // The world matrix of one node (waits for the GPU, reads back 64 bytes).
  glm::mat4 world(uint32_t node);
  // Every world matrix into the tree (TransformTree::world), waiting for the GPU.
  void download();
  // The world matrices on the device: mat4 per node index (column-major), for consumers.
  BufferRange worlds() const { return worlds_.range(0, uint64_t(capacity_) * 64); }
  const TransformStats& stats() const { return stats_; }
  // For device-side consumers (culling): the local boxes (vec4 lo, vec4 hi per node), the
  // live nodes in level order, their number, and the arrays' node capacity.
  BufferRange boxes() const { return boxes_.range(0, uint64_t(capacity_) * 32); }
  BufferRange order() const { return order_.range(0, uint64_t(capacity_) * 4); }
  uint32_t liveNodes() const { return levelStarts_.empty() ? 0 : levelStarts_.back(); }
  uint32_t capacity() const { return capacity_; }

 private:
  void ensureCapacity();
  void uploadStructure();
  void recordLevels();
  void uploadBoxes();

  Scheduler& scheduler_;
  TransformTree& tree_;
  std::shared_ptr<Kernel> scatterKernel_, levelsKernel_;
  uint32_t capacity_ = 0;
  Buffer locals_, worlds_, parents_, order_, starts_, dirty_, changed_, packedNodes_, packedLocals_, boxes_;
  uint64_t packedCapacity_ = 0;
  std::vector<uint32_t> levelStarts_;  // host copy: entries of `order` per level
  TransformStats stats_;
};

}  // namespace voxen
