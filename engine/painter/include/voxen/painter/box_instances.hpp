#pragma once
// Instanced boxes for the painter's rasterizer: a pass that expands each listed instance's
// local box under its world matrix into 12 gpu::Triangle (shaders/painter/box_instances.comp;
// conventions in box_instances_shared.h), dispatched indirectly with a command written on the
// device (for example the transform tree's culling output), plus the triangle count the
// TriangleRasterizer reads. Nothing passes through the CPU between producer and rasterizer.
//
//   BoxInstances boxes(scheduler);
//   boxes.record({tree.levelWorlds(), tree.boxes(), colors, cull.visible, cull.count, cull.dispatchArgs,
//                 tree.slots()},
//                triangles, triangleCount);
//   raster.draw(camera, triangles, triangleCount.first(4));
#include <memory>

#include "voxen/host/buffer.hpp"

namespace voxen {

class Kernel;
class Scheduler;

struct BoxInstanceInput {
  BufferRange worlds;        // mat4 per instance id (column-major), or per slot when worldSlots is given
  BufferRange boxes;         // vec4 lo, vec4 hi per instance id (local frame)
  BufferRange colors;        // uint32 RGBA8 per instance id (red in the low byte)
  BufferRange instances;     // uint32 instance ids; count[0] of them are listed
  BufferRange count;         // uint32
  BufferRange dispatchArgs;  // VkDispatchIndirectCommand: at least ceil(count / 64) workgroups of 64
  // Empty: instance id i's matrix is worlds[i]. Else uint32 per instance id: the index of
  // its matrix in `worlds` (the transform tree stores its worlds in level order:
  // GpuTransformTree::levelWorlds() with slots()).
  BufferRange worldSlots{};
};

class BoxInstances {
 public:
  static constexpr uint32_t kTrianglesPerBox = 12;

  explicit BoxInstances(Scheduler& scheduler);
  ~BoxInstances();

  // Records (does not submit): listed instance k writes triangles [12k, 12k + 12) of
  // `triangles` when they fit it; `triangleCount` (8 bytes) gets the triangles written and
  // the listed instances that did not fit (never silent). Throws Error for missing or
  // misaligned ranges.
  void record(const BoxInstanceInput& input, const BufferRange& triangles, const BufferRange& triangleCount);

 private:
  Scheduler& scheduler_;
  std::shared_ptr<Kernel> expandKernel_, countKernel_;
};

}  // namespace voxen
