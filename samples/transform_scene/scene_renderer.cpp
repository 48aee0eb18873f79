#include "scene_renderer.hpp"

#include "arm_forest.hpp"
#include "voxen/host/error.hpp"

namespace transform_scene {

using namespace voxen;

namespace {

RasterizerOptions rasterOptions(const RendererOptions& o, RasterMode mode) {
  RasterizerOptions r;
  r.width = o.width, r.height = o.height;
  r.rasterMode = mode;
  r.backgroundColor = 0xff2a1d14u;
  return r;
}

}  // namespace

SceneRenderer::SceneRenderer(Scheduler& scheduler, TransformTree& tree, const ArmForest& forest, RendererOptions options)
    : scheduler_(scheduler),
      options_(options),
      gpuTree_(scheduler, tree),
      culling_(scheduler, gpuTree_),
      boxes_(scheduler),
      shaded_(scheduler, rasterOptions(options, RasterMode::Shaded)) {
  if (options.triangleIds) ids_ = std::make_unique<TriangleRasterizer>(scheduler, rasterOptions(options, RasterMode::TriangleId));
  // The scene's structure is fixed, so colours and the triangle list are sized once: every
  // node visible is the worst case.
  const std::vector<uint32_t>& colors = forest.colors();
  if (colors.size() < tree.capacity()) throw Error("transform_scene: fewer colours than nodes");
  colors_ = Buffer(scheduler.device(), "scene colours", colors.size() * 4);
  scheduler.upload(colors_.range(), colors.data(), colors.size() * 4);
  triangles_ = Buffer(scheduler.device(), "scene triangles", tree.capacity() * BoxInstances::kTrianglesPerBox * sizeof(gpu::Triangle));
  triangleCount_ = Buffer(scheduler.device(), "scene triangle count", 8);
}

void SceneRenderer::frame(const Camera& camera) {
  gpuTree_.process();  // uploads the changed locals and records the level passes; submits
  frustum_ = Frustum::fromViewProjection(camera.viewProj(options_.width, options_.height));
  cull_ = culling_.cull(frustum_);
  boxes_.record({gpuTree_.levelWorlds(), gpuTree_.boxes(), colors_.range(), cull_.visible, cull_.count, cull_.dispatchArgs,
                gpuTree_.slots()},
                triangles_.range(), triangleCount_.range());
  shaded_.draw(camera, triangles_.range(), triangleCount_.range(0, 4));
  if (ids_) ids_->draw(camera, triangles_.range(), triangleCount_.range(0, 4));
  scheduler_.submit();
}

Future<uint32_t> SceneRenderer::readIdImage() {
  if (!ids_) throw Error("transform_scene: no triangle-id image (RendererOptions::triangleIds)");
  return ids_->readImage();
}

uint32_t SceneRenderer::readVisibleCount() { return scheduler_.readback<uint32_t>(cull_.count).get().front(); }

std::vector<uint32_t> SceneRenderer::readTriangleCount() { return scheduler_.readback<uint32_t>(triangleCount_.range()).get(); }

std::vector<gpu::Triangle> SceneRenderer::readTriangles(uint32_t count) {
  if (count == 0) return {};
  return scheduler_.readback<gpu::Triangle>(triangles_.range(0, uint64_t(count) * sizeof(gpu::Triangle))).get();
}

}  // namespace transform_scene
