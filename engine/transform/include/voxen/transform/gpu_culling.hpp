#pragma once
// Frustum culling of a GpuTransformTree's nodes on the device: world boxes from local boxes
// (kept for consumers), a visibility flag per node, the stream compaction of the flags, and
// a gather into the visible nodes' indices, with the count and an indirect dispatch command
// sized to it: a consumer pass runs over exactly the visible nodes with no trip through the
// CPU.
#include <memory>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"

namespace voxen {

class StreamCompaction;

struct CullOutput {
  BufferRange visible;       // uint32 node indices, level order; `count` of them are valid
  BufferRange count;         // uint32
  BufferRange dispatchArgs;  // VkDispatchIndirectCommand: workgroups of 64 over the visible nodes
  BufferRange worldBoxes;    // per node index: vec4 lo, vec4 hi (world)
};

class GpuCulling {
 public:
  GpuCulling(Scheduler& scheduler, GpuTransformTree& tree);
  ~GpuCulling();
  // Records the culling after the tree's last process() (does not submit).
  CullOutput cull(const Frustum& frustum);
  // The visible nodes (waits for the GPU).
  std::vector<uint32_t> download(const CullOutput& output);

 private:
  Scheduler& scheduler_;
  GpuTransformTree& tree_;
  std::unique_ptr<StreamCompaction> compaction_;
  std::shared_ptr<Kernel> cullKernel_, gatherKernel_;
  uint32_t capacity_ = 0;
  Buffer planes_, flags_, positions_, visible_, worldBoxes_, small_;  // small_: count and dispatch args
};

}  // namespace voxen
