#pragma once
// One frame of the scene on the device, with no trip through the CPU between its passes:
// the transform tree's changed locals are uploaded and its world matrices processed level by
// level (GpuTransformTree), the nodes' world boxes culled against the camera's frustum
// (GpuCulling: the visible list, its count and an indirect dispatch command), the visible
// nodes' boxes expanded into triangles by a pass sized by that command (BoxInstances), and
// the triangles drawn by the painter's software rasterizer (TriangleRasterizer).
#include <memory>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/painter/box_instances.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"
#include "voxen/transform/gpu_culling.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"

namespace transform_scene {

class ArmForest;

struct RendererOptions {
  uint32_t width = 640, height = 480;
  bool triangleIds = false;  // also draw a triangle-id image of every frame (--verify)
};

class SceneRenderer {
 public:
  SceneRenderer(voxen::Scheduler& scheduler, voxen::TransformTree& tree, const ArmForest& forest, RendererOptions options);

  // Records and submits one frame (does not wait). The tree's locals must be set already.
  void frame(const voxen::Camera& camera);

  voxen::BufferRange image() const { return shaded_.imageRange(); }
  uint32_t backgroundColor() const { return shaded_.options().backgroundColor; }
  voxen::Future<uint32_t> readImage() { return shaded_.readImage(); }
  voxen::Future<uint32_t> readIdImage();  // triangleIds only
  // The latest frame's visible node count (waits).
  uint32_t readVisibleCount();
  // The latest frame's triangles and their count (written, dropped) (wait).
  std::vector<uint32_t> readTriangleCount();
  std::vector<voxen::gpu::Triangle> readTriangles(uint32_t count);

  voxen::GpuTransformTree& gpuTree() { return gpuTree_; }
  voxen::GpuCulling& culling() { return culling_; }
  const voxen::CullOutput& cullOutput() const { return cull_; }
  const voxen::Frustum& frustum() const { return frustum_; }

 private:
  voxen::Scheduler& scheduler_;
  RendererOptions options_;
  voxen::GpuTransformTree gpuTree_;
  voxen::GpuCulling culling_;
  voxen::BoxInstances boxes_;
  voxen::TriangleRasterizer shaded_;
  std::unique_ptr<voxen::TriangleRasterizer> ids_;
  voxen::Buffer colors_, triangles_, triangleCount_;
  voxen::CullOutput cull_{};
  voxen::Frustum frustum_{};
};

}  // namespace transform_scene
