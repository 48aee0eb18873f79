// The transform_scene pipeline without the sample: a transform tree processed and culled on
// the GPU, its visible nodes' boxes expanded into triangles by an indirect dispatch sized by
// the culling, and drawn by the TriangleRasterizer, all recorded with no readback in between.
// Checked afterwards against the CPU doing the same from the GPU's world matrices: the
// visible list equals cullCpu, the triangles equal the box reference bit for bit, the
// triangle-id image equals rasterizeReference bit for bit, and no culled node owns a pixel.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include "support/gpu_fixture.hpp"
#include "voxen/painter/box_instances.hpp"
#include "voxen/painter/cpu_box_instances.hpp"
#include "voxen/painter/cpu_rasterizer.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"
#include "voxen/transform/gpu_culling.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"
#include "voxen/testdata/transform_forest.hpp"

namespace {

using namespace voxen;

}  // namespace

TEST_CASE("Transform tree drawing: culled on the device, expanded and rasterized as the CPU does from the same worlds",
          "[transform][painter][gpu]") {
  auto& gpu = vt::gpu();
  Scheduler& s = gpu.scheduler;
  // Chains of three levels scattered around the camera's target, many of them out of view.
  std::mt19937 rng(5);
  TransformTree tree = chainScene(rng, 120, 12.0f);
  std::vector<uint32_t> colors(tree.capacity());
  for (uint32_t n = 0; n < colors.size(); ++n) colors[n] = 0xFF000000u | (n * 2654435761u & 0xFFFFFFu);

  RasterizerOptions options;
  options.width = 128, options.height = 96;
  options.rasterMode = RasterMode::TriangleId;
  Camera camera;
  camera.eye = {0.0f, -9.0f, 5.0f};
  camera.target = {0.0f, 0.0f, 1.0f};
  camera.farPlane = 40.0f;
  const Frustum frustum = Frustum::fromViewProjection(camera.viewProj(options.width, options.height));

  GpuTransformTree gpuTree(s, tree);
  GpuCulling culling(s, gpuTree);
  BoxInstances boxes(s);
  TriangleRasterizer raster(s, options);
  Buffer colorBuffer(gpu.device, "drawing test colours", colors.size() * 4);
  Buffer triangles(gpu.device, "drawing test triangles", tree.capacity() * 12 * sizeof(gpu::Triangle));
  Buffer triangleCount(gpu.device, "drawing test triangle count", 8);
  s.upload(colorBuffer.range(), colors.data(), colors.size() * 4);

  // Two frames, the second after moving every top-level node: the pipeline follows the tree.
  for (int frame = 0; frame < 2; ++frame) {
    INFO("frame " << frame);
    if (frame == 1)
      for (uint32_t n : tree.levelNodes(1)) tree.setLocal(n, glm::translate(tree.local(n), {3.0f, 1.0f, 0.0f}));
    gpuTree.process();
    const CullOutput cull = culling.cull(frustum);
    boxes.record({gpuTree.levelWorlds(), gpuTree.boxes(), colorBuffer.range(), cull.visible, cull.count, cull.dispatchArgs,
                  gpuTree.slots()},
                 triangles.range(), triangleCount.range());
    raster.draw(camera, triangles.range(), triangleCount.range(0, 4));
    s.submit();

    const std::vector<uint32_t> visible = culling.download(cull);
    gpuTree.download();
    const std::vector<uint32_t> expected = tree.cullCpu(frustum);
    CHECK(visible == expected);
    CHECK(expected.size() > 30);
    CHECK(expected.size() + 30 < tree.size());  // a good part is culled

    std::vector<glm::mat4> worlds(tree.capacity());
    std::vector<BoxInstanceLocal> localBoxes(tree.capacity());
    for (uint32_t n = 0; n < tree.capacity(); ++n) {
      worlds[n] = tree.world(n);
      localBoxes[n] = {tree.box(n).lo, tree.box(n).hi};
    }
    const std::vector<gpu::Triangle> cpuTriangles =
        boxInstanceTrianglesReference(visible, worlds, localBoxes, colors, uint32_t(tree.capacity() * 12));
    const uint32_t count = vt::readBack<uint32_t>(s, triangleCount.range())[0];
    REQUIRE(count == cpuTriangles.size());
    const std::vector<gpu::Triangle> gpuTriangles = vt::readBack<gpu::Triangle>(s, triangles.range(0, count * sizeof(gpu::Triangle)));
    for (size_t t = 0; t < count; ++t) {
      INFO("triangle " << t);
      REQUIRE(std::memcmp(&gpuTriangles[t], &cpuTriangles[t], sizeof(gpu::Triangle)) == 0);
    }

    const std::vector<uint32_t> image = raster.readImage().get();
    const RasterResult cpu = rasterizeReference(cpuTriangles, rasterConstants(options, camera, count));
    CHECK(image == cpu.image);
    const std::set<uint32_t> visibleSet(visible.begin(), visible.end());
    size_t covered = 0;
    for (uint32_t id : image) {
      if (id == 0xFFFFFFFFu) continue;
      ++covered;
      REQUIRE(id < count);
      REQUIRE(visibleSet.count(cpuTriangles[id].cell) == 1);  // never a culled node
    }
    CHECK(covered > 500);
  }
}
