// The painter against its CPU references, bit for bit: a painter frame (brush strokes,
// incremental marching cubes and the software rasterizer in one command buffer) against the
// CPU brush, mesher and rasterizer chained the same way, in triangle-id and shaded modes;
// and the transform scene's pipeline (a transform tree culled on the device, its visible
// boxes expanded into triangles by an indirect dispatch, drawn by the TriangleRasterizer)
// against the CPU doing the same from the GPU's world matrices.
#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "check_row.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/painter/box_instances.hpp"
#include "voxen/painter/cpu_box_instances.hpp"
#include "voxen/painter/cpu_brush.hpp"
#include "voxen/painter/cpu_mesher.hpp"
#include "voxen/painter/cpu_rasterizer.hpp"
#include "voxen/painter/painter.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"
#include "voxen/testdata/demo_scene.hpp"
#include "voxen/testdata/transform_forest.hpp"
#include "voxen/transform/gpu_culling.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"

namespace voxen {

namespace {

using gpu::Triangle;

uint64_t differingTriangles(const std::vector<Triangle>& expected, const std::vector<Triangle>& got) {
  uint64_t differing = expected.size() > got.size() ? expected.size() - got.size() : got.size() - expected.size();
  for (size_t i = 0; i < std::min(expected.size(), got.size()); ++i)
    differing += std::memcmp(&expected[i], &got[i], sizeof(Triangle)) != 0;
  return differing;
}

uint64_t differingPixels(const std::vector<uint32_t>& expected, const std::vector<uint32_t>& got) {
  if (expected.size() != got.size()) return std::max(expected.size(), got.size());
  uint64_t differing = 0;
  for (size_t i = 0; i < expected.size(); ++i) differing += expected[i] != got[i];
  return differing;
}

const char* modeName(RasterMode mode) { return mode == RasterMode::TriangleId ? "triangle-id" : "shaded"; }

void checkPainterFrame(CheckContext& context, RasterMode mode) {
  const uint32_t grid = context.sized(40u, 128u), width = context.sized(160u, 1920u), height = context.sized(120u, 1080u);
  const std::string name = std::string("painter frames (") + modeName(mode) + "): brush, meshing, rasterizer at " +
                           std::to_string(width) + " x " + std::to_string(height) + " against the CPU chain";
  runRow(context, "painter", name, [&](RowResult& row) {
    DensityGrid cpuGrid = demoScene(int(grid));
    PainterOptions options;
    options.gridX = options.gridY = options.gridZ = grid;
    options.width = width, options.height = height;
    options.maxTriangles = context.sized(1u << 16, 1u << 21);
    options.largeTriangleArea = context.sized(2u, 8u);  // many triangles take the large path
    options.rasterMode = mode;
    Painter painter(context.scheduler, options);
    painter.setGrid(cpuGrid.density, cpuGrid.color);
    Camera camera = cameraFraming(glm::vec3(0.0f), glm::vec3(float(grid - 1)), 50.0f, float(width) / float(height));
    uint64_t triangles = 0, wrongTriangles = 0, wrongPixels = 0, pixels = 0, overflow = 0, largeTiles = 0, wrongCounts = 0;
    constexpr int kFrames = 4;
    for (int k = 0; k < kFrames; ++k) {
      Stroke stroke;
      const Ray3 ray = camera.rayThroughPixel(float(width) * (0.44f + 0.05f * k), float(height) * (0.46f + 0.03f * k), width, height);
      stroke.origin = ray.origin;
      stroke.direction = ray.direction;
      stroke.operation = k == 2 ? BrushMode::Erase : BrushMode::Add;
      stroke.radius = 3.5f * float(grid) / 40.0f;
      stroke.color = 0xff00ff00u - uint32_t(k);
      if (k > 0) applyStroke(cpuGrid, stroke);  // frame 0 draws the scene as it is
      painter.frame(camera, k > 0 ? &stroke : nullptr);
      const std::vector<Triangle> expectedMesh = meshGrid(cpuGrid);
      const FrameCounters counters = painter.readCounters();
      std::vector<Triangle> mesh = painter.readTriangles().get();
      mesh.resize(std::min<size_t>(counters.triangles, mesh.size()));
      RasterResult expected = rasterizeReference(expectedMesh, viewConstants(options, camera));
      if (context.breakReferences()) expected.image[expected.image.size() / 2] ^= 1u;
      const std::vector<uint32_t> image = painter.readImage().get();
      triangles += expectedMesh.size();
      wrongTriangles += differingTriangles(expectedMesh, mesh);
      wrongPixels += differingPixels(expected.image, image);
      pixels += image.size();
      overflow += counters.overflowTriangles;
      largeTiles += expected.largeTiles;
      wrongCounts += counters.drawnTriangles != expected.drawnTriangles || counters.largeTiles != expected.largeTiles;
      camera.orbit(0.3f, 0.05f);
    }
    row.figure("frames", kFrames, "{} frames");
    row.figure("triangles", double(triangles), "{} triangles");
    row.figure("pixels", double(pixels), "{} pixels");
    row.figure("differing_triangles", double(wrongTriangles), "{} triangles differ");
    row.figure("differing_pixels", double(wrongPixels), "{} pixels differ");
    row.require(overflow == 0, "the triangle list overflowed");
    row.require(largeTiles > 0, "no triangle took the large-triangle path");
    row.require(wrongTriangles == 0, std::to_string(wrongTriangles) + " triangles differ from the CPU mesher's");
    row.require(wrongPixels == 0, std::to_string(wrongPixels) + " pixels differ from the CPU rasterizer's");
    row.require(wrongCounts == 0, "the drawn-triangle or large-tile counts differ from the CPU rasterizer's");
  });
}

void checkTransformScene(CheckContext& context, RasterMode mode) {
  const uint32_t chains = context.sized(120u, 20000u), width = context.sized(320u, 1920u), height = context.sized(240u, 1080u);
  const std::string name = std::string("transform scene (") + modeName(mode) +
                           "): culling, box instances (mirrored too) and the triangle rasterizer against the CPU";
  runRow(context, "painter", name, [&](RowResult& row) {
    Scheduler& s = context.scheduler;
    // Chains scattered around the camera's target, many of them out of view; every fourth
    // mirrored (the boxes' winding must flip to stay front-facing).
    std::mt19937 rng(5);
    TransformTree tree = chainScene(rng, chains, 12.0f * std::sqrt(float(chains) / 120.0f), 4);
    std::vector<uint32_t> colors(tree.capacity());
    for (uint32_t n = 0; n < colors.size(); ++n) colors[n] = 0xFF000000u | (n * 2654435761u & 0xFFFFFFu);
    RasterizerOptions options;
    options.width = width, options.height = height;
    options.rasterMode = mode;
    options.largeTriangleArea = 64;
    Camera camera;
    camera.eye = {0.0f, -9.0f, 5.0f};
    camera.target = {0.0f, 0.0f, 1.0f};
    camera.farPlane = 40.0f;
    const Frustum frustum = Frustum::fromViewProjection(camera.viewProj(width, height));

    GpuTransformTree gpuTree(s, tree);
    GpuCulling culling(s, gpuTree);
    BoxInstances boxes(s);
    TriangleRasterizer raster(s, options);
    Buffer colorBuffer(s.device(), "check scene colours", colors.size() * 4);
    Buffer triangles(s.device(), "check scene triangles", tree.capacity() * 12 * sizeof(Triangle));
    Buffer triangleCount(s.device(), "check scene triangle count", 8);
    s.upload(colorBuffer.range(), colors.data(), colors.size() * 4);
    gpuTree.process();
    const CullOutput cull = culling.cull(frustum);
    boxes.record({gpuTree.levelWorlds(), gpuTree.boxes(), colorBuffer.range(), cull.visible, cull.count, cull.dispatchArgs,
                  gpuTree.slots()},
                 triangles.range(), triangleCount.range());
    raster.draw(camera, triangles.range(), triangleCount.range(0, 4));
    s.submit();

    const std::vector<uint32_t> visible = culling.download(cull);
    gpuTree.download();  // the CPU works from the GPU's worlds: each stage alone is compared
    const std::vector<uint32_t> expectedVisible = tree.cullCpu(frustum);
    std::vector<glm::mat4> worlds(tree.capacity());
    std::vector<BoxInstanceLocal> localBoxes(tree.capacity());
    for (uint32_t n = 0; n < tree.capacity(); ++n) {
      worlds[n] = tree.world(n);
      localBoxes[n] = {tree.box(n).lo, tree.box(n).hi};
    }
    const std::vector<Triangle> expectedTriangles =
        boxInstanceTrianglesReference(visible, worlds, localBoxes, colors, uint32_t(tree.capacity() * 12));
    const std::vector<uint32_t> counts = s.readback<uint32_t>(triangleCount.range()).get();
    std::vector<Triangle> gotTriangles =
        s.readback<Triangle>(triangles.range(0, std::min<uint64_t>(counts[0], tree.capacity() * 12) * sizeof(Triangle))).get();
    const std::vector<uint32_t> image = raster.readImage().get();
    RasterResult expected = rasterizeReference(expectedTriangles, rasterConstants(options, camera, uint32_t(expectedTriangles.size())));
    if (context.breakReferences()) expected.image[expected.image.size() / 3] ^= 1u;
    const uint64_t wrongTriangles = differingTriangles(expectedTriangles, gotTriangles);
    const uint64_t wrongPixels = differingPixels(expected.image, image);
    uint64_t covered = 0;
    for (size_t p = 0; p < image.size(); ++p)
      covered += expected.image[p] != (mode == RasterMode::TriangleId ? 0xFFFFFFFFu : options.backgroundColor);
    row.figure("nodes", double(tree.size()), "{} nodes");
    row.figure("visible", double(visible.size()), "{} visible");
    row.figure("triangles", double(expectedTriangles.size()), "{} triangles");
    row.figure("covered_pixels", double(covered), "{} pixels covered");
    row.figure("differing_triangles", double(wrongTriangles), "{} triangles differ");
    row.figure("differing_pixels", double(wrongPixels), "{} pixels differ");
    row.require(visible == expectedVisible, "the visible list differs from the CPU's culling");
    row.require(expectedVisible.size() > 30 && expectedVisible.size() + 30 < tree.size(), "the view culls too little or shows too little");
    row.require(counts[1] == 0, std::to_string(counts[1]) + " boxes did not fit the triangle list");
    row.require(wrongTriangles == 0, std::to_string(wrongTriangles) + " triangles differ from the CPU's boxes");
    row.require(covered > image.size() / 50, "the picture is nearly empty");
    row.require(wrongPixels == 0, std::to_string(wrongPixels) + " pixels differ from the CPU rasterizer's");
  });
}

}  // namespace

void checkPainter(CheckContext& context) {
  for (RasterMode mode : {RasterMode::TriangleId, RasterMode::Shaded}) checkPainterFrame(context, mode);
  for (RasterMode mode : {RasterMode::TriangleId, RasterMode::Shaded}) checkTransformScene(context, mode);
}

}  // namespace voxen
