// The painter's software rasterizer (shaders/painter/raster.glsl) on the shared lavapipe
// device: against its CPU reference bit for bit (depth and id or colour per pixel), against
// Vulkan's graphics pipeline on the same device, and on the properties the exact edge
// functions promise: shared edges written exactly once, the nearest fragment always wins,
// large triangles through the queue give the same image, and queue overflow is counted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <sstream>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include "support/gpu_fixture.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/cpu_rasterizer.hpp"
#include "voxen/painter/frame_kernel.hpp"
#include "voxen/painter/hardware_rasterizer.hpp"
#include "voxen/painter/normal_encoding.hpp"
#include "voxen/host/error.hpp"

namespace {

using namespace voxen;
using detail::dispatchPhase;
using detail::FrameKernels;
using detail::Phase;
using gpu::FrameConstants;
using gpu::kCounterCount;
using gpu::kCounterDrawnTriangles;
using gpu::kCounterLargeTiles;
using gpu::kCounterLargeTriangles;
using gpu::kRasterEmpty;
using gpu::Triangle;

constexpr uint32_t kQueueSentinel = 0xA5A5A5A5u;
constexpr uint32_t kSentinelEntries = 16;  // queue entries past maxLargeTiles that must stay untouched

float uniform(vt::Rng& rng, float lo, float hi) { return lo + (hi - lo) * float(double(rng.u32()) / 4294967296.0); }

glm::vec3 randomPoint(vt::Rng& rng, float lo, float hi) {
  return {uniform(rng, lo, hi), uniform(rng, lo, hi), uniform(rng, lo, hi)};
}

Triangle makeTriangle(glm::vec3 a, glm::vec3 b, glm::vec3 c, uint32_t color, glm::vec3 na, glm::vec3 nb, glm::vec3 nc) {
  Triangle t{};
  std::memcpy(t.p0, &a, 12);
  std::memcpy(t.p1, &b, 12);
  std::memcpy(t.p2, &c, 12);
  t.n0 = encodeNormal(na.x, na.y, na.z);
  t.n1 = encodeNormal(nb.x, nb.y, nb.z);
  t.n2 = encodeNormal(nc.x, nc.y, nc.z);
  t.color = color;
  return t;
}

Triangle flatTriangle(glm::vec3 a, glm::vec3 b, glm::vec3 c, uint32_t color) {
  const glm::vec3 n = glm::cross(b - a, c - a);
  return makeTriangle(a, b, c, color, n, n, n);
}

uint32_t randomColor(vt::Rng& rng) { return 0xFF000000u | (rng.u32() & 0x00FFFFFFu); }

FrameConstants frameFor(uint32_t width, uint32_t height, const glm::mat4& viewProj) {
  FrameConstants f{};
  std::memcpy(f.viewProj, &viewProj[0][0], sizeof(f.viewProj));
  const glm::vec3 light = glm::normalize(glm::vec3(0.3f, -0.5f, 0.8f));
  f.lightDir = {light.x, light.y, light.z, 0.0f};
  f.width = width, f.height = height;
  f.tilesX = (width + 7) / 8, f.tilesY = (height + 7) / 8;
  f.rasterMode = gpu::kRasterTriangleId;
  f.backgroundColor = 0xFF302418u;
  f.largeTriangleArea = 256;
  f.maxTriangles = 1u << 16;
  f.maxLargeTiles = 1u << 16;
  return f;
}

// A camera looking at the origin from about 4 units away.
glm::mat4 perspectiveView(uint32_t width, uint32_t height) {
  Camera camera;
  camera.eye = {0.7f, -3.6f, 1.4f};
  camera.target = {0.0f, 0.0f, 0.0f};
  camera.nearPlane = 0.05f;
  camera.farPlane = 20.0f;
  return camera.viewProj(width, height);
}

// World (x, y) in pixels straight onto the framebuffer (exact for sizes that are powers of
// two), world z is the depth: vertices placed on 1/256 pixel land exactly there.
glm::mat4 pixelView(uint32_t width, uint32_t height) {
  glm::mat4 m(1.0f);
  m[0][0] = 2.0f / float(width);
  m[1][1] = 2.0f / float(height);
  m[3][0] = -1.0f;
  m[3][1] = -1.0f;
  return m;
}

struct GpuRaster {
  std::vector<uint64_t> framebuffer;
  std::vector<uint32_t> counts, image, counters, queue;
  uint32_t queueCapacity = 0;
};

// Runs the four raster phases as the frame does, with `groups` workgroups each (default:
// the fewest that respect the iteration budget). blockTotal may exceed maxTriangles.
GpuRaster runGpu(const std::vector<Triangle>& triangles, FrameConstants f, std::optional<RasterGroups> groups = {},
                 uint32_t blockTotal = UINT32_MAX, bool countFragments = true) {
  auto& gpu = vt::gpu();
  Scheduler& s = gpu.scheduler;
  Device& d = gpu.device;
  if (f.maxTriangles == 0) f.maxTriangles = uint32_t(triangles.size());
  const uint64_t entries = uint64_t(f.tilesX) * f.tilesY * 64;
  Buffer constants(d, "raster test constants", sizeof(FrameConstants));
  Buffer triangleBuffer(d, "raster test triangles", std::max<size_t>(1, triangles.size()) * sizeof(Triangle));
  Buffer counters(d, "raster test counters", kCounterCount * 4);
  Buffer total(d, "raster test block total", 4);
  Buffer framebuffer(d, "raster test framebuffer", entries * 8);
  Buffer counts(d, "raster test fragment counts", entries * 4);
  Buffer queue(d, "raster test large queue", (uint64_t(f.maxLargeTiles) + kSentinelEntries) * 8);
  Buffer image(d, "raster test image", uint64_t(f.width) * f.height * 4);
  f.triangles = triangleBuffer.address();
  f.counters = counters.address();
  f.blockTotal = total.address();
  f.framebuffer = framebuffer.address();
  f.fragmentCounts = countFragments ? counts.address() : 0;
  f.largeQueue = queue.address();
  f.image = image.address();
  if (!triangles.empty()) s.upload(triangleBuffer.range(), triangles.data(), triangles.size() * sizeof(Triangle));
  const uint32_t count = blockTotal == UINT32_MAX ? uint32_t(triangles.size()) : blockTotal;
  s.upload(total.range(), &count, 4);
  s.fill(counters.range(), 0u);
  s.fill(queue.range(), kQueueSentinel);
  s.upload(constants.range(), &f, sizeof(f));
  const RasterGroups g = groups ? *groups : minimumRasterGroups(f);
  const FrameKernels kernels(gpu.library);
  const std::vector<BufferUse> uses{reads(triangleBuffer), reads(total),          readsWrites(counters), readsWrites(framebuffer),
                                    readsWrites(counts),   readsWrites(queue), writes(image)};
  dispatchPhase(s, kernels, Phase::RasterClear, constants.range(), 0, g.clear, uses);
  dispatchPhase(s, kernels, Phase::RasterSmall, constants.range(), 0, g.small, uses);
  dispatchPhase(s, kernels, Phase::RasterLarge, constants.range(), 0, g.large, uses);
  dispatchPhase(s, kernels, Phase::Resolve, constants.range(), 0, g.resolve, uses);
  GpuRaster r;
  r.queueCapacity = f.maxLargeTiles;
  r.framebuffer = vt::readBack<uint64_t>(s, framebuffer.range());
  r.counts = vt::readBack<uint32_t>(s, counts.range());
  r.image = vt::readBack<uint32_t>(s, image.range());
  r.counters = vt::readBack<uint32_t>(s, counters.range());
  r.queue = vt::readBack<uint32_t>(s, queue.range());
  return r;
}

struct Difference {
  size_t count = 0;
  std::string first;
};

template <class T>
Difference differ(const std::vector<T>& gpu, const std::vector<T>& cpu, const char* what) {
  Difference d;
  if (gpu.size() != cpu.size()) {
    // Built in place: g++ 12 flags the move of a concatenated temporary into the returned
    // aggregate as out of bounds (-Warray-bounds, a false positive that -Werror makes fatal).
    d.count = 1;
    d.first = what;
    d.first += ": sizes differ";
    return d;
  }
  for (size_t i = 0; i < gpu.size(); ++i)
    if (gpu[i] != cpu[i] && d.count++ == 0) {
      std::ostringstream s;
      s << what << "[" << i << "]: GPU " << std::hex << uint64_t(gpu[i]) << ", CPU " << uint64_t(cpu[i]);
      d.first = s.str();
    }
  return d;
}

// Every output of the GPU phases equals the CPU reference.
void requireSameAsCpu(const GpuRaster& gpu, const RasterResult& cpu) {
  REQUIRE(gpu.queueCapacity >= cpu.largeTiles);  // no overflow: the reference does not model it
  const Difference fb = differ(gpu.framebuffer, cpu.framebuffer, "framebuffer");
  const Difference image = differ(gpu.image, cpu.image, "image");
  const Difference counts = differ(gpu.counts, cpu.fragmentCounts, "fragment counts");
  INFO(fb.first << " " << image.first << " " << counts.first);
  CHECK(fb.count == 0);
  CHECK(image.count == 0);
  CHECK(counts.count == 0);
  CHECK(gpu.counters[kCounterDrawnTriangles] == cpu.drawnTriangles);
  CHECK(gpu.counters[kCounterLargeTriangles] == cpu.largeTriangles);
  CHECK(gpu.counters[kCounterLargeTiles] == cpu.largeTiles);
}

size_t coveredPixels(const RasterResult& r) {
  return size_t(std::count_if(r.framebuffer.begin(), r.framebuffer.end(), [](uint64_t v) { return v != kRasterEmpty; }));
}

// Small, medium and a few large triangles in [-1.5, 1.5]^3, overlapping, both windings,
// plus a few the camera must drop or clip: behind the eye, at w ~ 0, across the near plane.
std::vector<Triangle> randomSoup(vt::Rng& rng, size_t count) {
  std::vector<Triangle> tris;
  for (size_t i = 0; i < count; ++i) {
    const glm::vec3 a = randomPoint(rng, -1.5f, 1.5f);
    const float size = rng.chance(70) ? uniform(rng, 0.01f, 0.08f) : rng.chance(85) ? uniform(rng, 0.1f, 0.5f) : uniform(rng, 1.0f, 3.0f);
    const glm::vec3 b = a + randomPoint(rng, -size, size), c = a + randomPoint(rng, -size, size);
    tris.push_back(makeTriangle(a, b, c, randomColor(rng), randomPoint(rng, -1, 1), randomPoint(rng, -1, 1), randomPoint(rng, -1, 1)));
  }
  const glm::vec3 eye{0.7f, -3.6f, 1.4f}, forward = glm::normalize(-eye);
  const glm::vec3 side = glm::normalize(glm::cross(forward, glm::vec3(0, 0, 1)));
  tris.push_back(flatTriangle(eye - forward, eye + forward + side * 0.2f, eye + forward * 2.0f, 0xFF00FF00u));  // behind
  tris.push_back(flatTriangle(eye + forward * 1e-7f, eye + forward + side, eye + forward - side, 0xFF0000FFu));  // w ~ 0
  for (int k = 0; k < 4; ++k)  // one vertex between the eye and the near plane: clipped per pixel
    tris.push_back(flatTriangle(eye + forward * 0.02f + side * 0.005f * float(k), eye + forward * 1.5f + side * 0.6f,
                                eye + forward * 1.5f - side * 0.6f + glm::vec3(0, 0, 0.5f), 0xFFFFFF00u));
  return tris;
}

// An icosphere of `levels` subdivisions, counter-clockwise seen from outside.
std::vector<Triangle> icosphere(glm::vec3 centre, float radius, int levels, uint32_t color) {
  const float t = (1.0f + std::sqrt(5.0f)) / 2.0f;
  std::vector<glm::vec3> v{{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                           {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<glm::uvec3> f{{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                            {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                            {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (auto& p : v) p = glm::normalize(p);
  for (int l = 0; l < levels; ++l) {
    std::vector<glm::uvec3> next;
    for (const auto& tri : f) {
      uint32_t m[3];
      for (int e = 0; e < 3; ++e) {
        v.push_back(glm::normalize(v[tri[e]] + v[tri[(e + 1) % 3]]));  // duplicates are harmless: same position
        m[e] = uint32_t(v.size() - 1);
      }
      next.push_back({tri[0], m[0], m[2]});
      next.push_back({tri[1], m[1], m[0]});
      next.push_back({tri[2], m[2], m[1]});
      next.push_back({m[0], m[1], m[2]});
    }
    f = next;
  }
  std::vector<Triangle> tris;
  for (auto tri : f) {
    glm::vec3 a = v[tri[0]], b = v[tri[1]], c = v[tri[2]];
    if (glm::dot(glm::cross(b - a, c - a), a + b + c) < 0.0f) std::swap(b, c);
    tris.push_back(makeTriangle(centre + radius * a, centre + radius * b, centre + radius * c, color, a, b, c));
  }
  return tris;
}

}  // namespace

TEST_CASE("The GPU rasterizer equals the CPU reference on a random soup", "[painter][raster]") {
  vt::Rng rng(11);
  const auto tris = randomSoup(rng, 4000);
  // 317 x 239: partial tiles on the right and bottom.
  FrameConstants f = frameFor(317, 239, perspectiveView(317, 239));
  f.maxTriangles = uint32_t(tris.size());
  for (const bool cull : {false, true})
    for (const uint32_t mode : {uint32_t(gpu::kRasterTriangleId), uint32_t(gpu::kRasterShaded)}) {
      f.cullBackFaces = cull;
      f.rasterMode = mode;
      INFO("cull " << cull << ", mode " << mode);
      const RasterResult cpu = rasterizeReference(tris, f);
      CHECK(coveredPixels(cpu) > 20000);
      CHECK(cpu.largeTiles > 0);  // both paths are exercised
      CHECK(cpu.drawnTriangles < tris.size());  // the camera dropped some
      // The fewest groups (one invocation draws up to 127 triangles), then an odd grid;
      // blockTotal past maxTriangles is clamped.
      {
        INFO("fewest groups");
        requireSameAsCpu(runGpu(tris, f, std::nullopt, uint32_t(tris.size()) + 1000), cpu);
      }
      {
        INFO("odd grid");
        requireSameAsCpu(runGpu(tris, f, RasterGroups{7, 37, 13, 5}), cpu);
      }
    }
}

TEST_CASE("The GPU rasterizer agrees with Vulkan's graphics pipeline on coverage and nearest triangle", "[painter][raster]") {
  auto& gpu = vt::gpu();
  const uint32_t width = 400, height = 300;
  vt::Rng rng(12);
  std::vector<Triangle> tris = icosphere({0.0f, 0.0f, 0.0f}, 1.0f, 3, 0xFF3080F0u);
  for (const auto& t : icosphere({0.9f, -0.4f, 0.5f}, 0.6f, 2, 0xFF30F080u)) tris.push_back(t);
  for (int i = 0; i < 300; ++i) {
    const glm::vec3 a = randomPoint(rng, -1.6f, 1.6f);
    tris.push_back(flatTriangle(a, a + randomPoint(rng, -0.4f, 0.4f), a + randomPoint(rng, -0.4f, 0.4f), randomColor(rng)));
  }
  const glm::mat4 viewProj = perspectiveView(width, height);
  Buffer triangleBuffer(gpu.device, "raster test hw triangles", tris.size() * sizeof(Triangle));
  gpu.scheduler.upload(triangleBuffer.range(), tris.data(), tris.size() * sizeof(Triangle));
  gpu.scheduler.finish();
  HardwareRasterizer hardware(gpu.device, width, height);
  for (const bool cull : {false, true}) {
    FrameConstants f = frameFor(width, height, viewProj);
    f.cullBackFaces = cull;
    const GpuRaster soft = runGpu(tris, f);
    const std::vector<uint32_t> hard = hardware.drawIds(triangleBuffer.range(), uint32_t(tris.size()), &viewProj[0][0], cull);
    size_t either = 0, sameCoverage = 0, sameTriangle = 0;
    for (size_t i = 0; i < hard.size(); ++i) {
      const bool a = soft.image[i] != 0xFFFFFFFFu, b = hard[i] != 0xFFFFFFFFu;
      if (!a && !b) continue;
      ++either;
      sameCoverage += a == b;
      sameTriangle += soft.image[i] == hard[i];
    }
    const double coverage = 100.0 * double(sameCoverage) / double(either);
    const double nearest = 100.0 * double(sameTriangle) / double(either);
    WARN("graphics pipeline agreement (cull " << cull << ") over " << either << " covered pixels: coverage " << coverage
                                              << "%, nearest triangle " << nearest << "%");
    CHECK(either > 15000);
    CHECK(coverage >= 99.0);
    CHECK(nearest >= 99.0);
  }
  const HardwareRasterizer::Timing timing =
      hardware.timeDraws(triangleBuffer.range(), uint32_t(tris.size()), &viewProj[0][0], true, 4);
  WARN("graphics pipeline: " << timing.trianglesPerSecond << " triangles/s over " << timing.draws << " draws of "
                             << tris.size() << (timing.gpuTimestamps ? " (GPU timestamps)" : " (wall clock)"));
  CHECK(timing.seconds > 0.0);
  CHECK(timing.trianglesPerSecond > 0.0);
  // The same pipeline again after timing: the target is cleared between draws.
  CHECK(hardware.drawIds(triangleBuffer.range(), 0, &viewProj[0][0], true) ==
        std::vector<uint32_t>(size_t(width) * height, 0xFFFFFFFFu));

  // A closed mesh seen from outside looks the same with back faces culled: the winding
  // convention matches the pipeline's counter-clockwise front face (a wrong sign would show
  // the sphere's inside), and only the cap facing the eye is drawn: (1 - r / d) / 2 of the
  // sphere, 35% here.
  std::vector<Triangle> sphere = icosphere({0.0f, 0.0f, 0.0f}, 1.2f, 3, 0xFF808080u);
  FrameConstants f = frameFor(width, height, viewProj);
  const RasterResult all = rasterizeReference(sphere, f);
  f.cullBackFaces = 1;
  const RasterResult culled = rasterizeReference(sphere, f);
  CHECK(differ(culled.image, all.image, "image").count == 0);
  CHECK(culled.drawnTriangles * 100 < all.drawnTriangles * 40);
  CHECK(culled.drawnTriangles * 100 > all.drawnTriangles * 30);
}

namespace {

// A convex polygon drawn as triangles that share its inner edges, in its own cell.
struct Patch {
  std::vector<glm::dvec2> outline;  // counter-clockwise in pixel coordinates (y down)
};

// On a pixel centre, or on the 1/256 grid the rasterizer snaps to.
glm::vec3 snapped(glm::dvec2 p, bool toCentre) {
  if (toCentre) return {float(std::floor(p.x) + 0.5), float(std::floor(p.y) + 0.5), 0.0f};
  return {float(std::round(p.x * 256.0) / 256.0), float(std::round(p.y * 256.0) / 256.0), 0.0f};
}

// Signed distances of pixel centre (x, y) to a convex outline (positive inside).
double insideMargin(const std::vector<glm::dvec2>& outline, double x, double y) {
  double margin = 1e30;
  double area = 0.0;
  for (size_t i = 0; i < outline.size(); ++i) {
    const glm::dvec2 a = outline[i], b = outline[(i + 1) % outline.size()];
    area += a.x * b.y - b.x * a.y;
  }
  const double sign = area > 0.0 ? 1.0 : -1.0;
  for (size_t i = 0; i < outline.size(); ++i) {
    const glm::dvec2 a = outline[i], b = outline[(i + 1) % outline.size()];
    const double cross = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
    margin = std::min(margin, sign * cross / glm::length(b - a));
  }
  return margin;
}

}  // namespace

TEST_CASE("Triangles sharing edges write every pixel of their union exactly once", "[painter][raster]") {
  const uint32_t size = 256, cell = 32;
  vt::Rng rng(13);
  std::vector<Triangle> tris;
  std::vector<Patch> patches;
  auto depth = [&] { return uniform(rng, 0.1f, 0.9f); };
  // Random winding per triangle: the fill rule must not depend on it.
  auto add = [&](glm::vec3 a, glm::vec3 b, glm::vec3 c) {
    if (rng.chance(50)) std::swap(b, c);
    tris.push_back(flatTriangle(a, b, c, randomColor(rng)));
  };
  for (uint32_t cy = 0; cy < size / cell; ++cy)
    for (uint32_t cx = 0; cx < size / cell; ++cx) {
      const glm::dvec2 origin(cx * cell + 4.0, cy * cell + 4.0);
      const int kind = int((cx + cy * 8) % 4);
      Patch patch;
      std::vector<glm::vec3> v;
      if (kind == 0) {  // axis-aligned rectangle, corners on pixel centres, split on a diagonal
        const double w = double(rng.range(2, 22)), h = double(rng.range(2, 22));
        for (glm::dvec2 p : {origin, origin + glm::dvec2(w, 0), origin + glm::dvec2(w, h), origin + glm::dvec2(0, h)})
          v.push_back(snapped(p, true));
      } else if (kind == 1) {  // square on pixel centres split on the other diagonal (45 degrees through centres)
        const double w = double(rng.range(2, 22));
        for (glm::dvec2 p : {origin + glm::dvec2(w, 0), origin + glm::dvec2(w, w), origin + glm::dvec2(0, w), origin})
          v.push_back(snapped(p, true));
      } else {  // convex polygon with subpixel vertices: a quad (two triangles) or a fan
        // Jittered angles: every gap below pi, so a fan's hub near the centre lies inside.
        const int n = kind == 2 ? 4 : int(rng.range(4, 12));
        const double phase = uniform(rng, 0.0f, 6.2831853f);
        const glm::dvec2 centre = origin + glm::dvec2(12.0, 12.0);
        for (int i = 0; i < n; ++i) {
          const double a = phase + 6.283185307 * (double(i) + uniform(rng, -0.25f, 0.25f)) / double(n);
          v.push_back(snapped(centre + 11.5 * glm::dvec2(std::cos(a), std::sin(a)), false));
        }
        if (kind == 3) {  // a fan around a vertex on a pixel centre
          const glm::vec3 hub = snapped(centre, true);
          glm::vec3 hubDepth = hub;
          hubDepth.z = depth();
          for (auto& p : v) p.z = depth();
          for (int i = 0; i < n; ++i) add(hubDepth, v[i], v[(i + 1) % n]);
          for (const auto& p : v) patch.outline.push_back({p.x, p.y});
          REQUIRE(insideMargin(patch.outline, hub.x, hub.y) > 0.5);  // else the fan would fold over itself
          patches.push_back(patch);
          continue;
        }
      }
      for (auto& p : v) p.z = depth();
      add(v[0], v[1], v[2]);
      add(v[0], v[2], v[3]);
      for (const auto& p : v) patch.outline.push_back({p.x, p.y});
      patches.push_back(patch);
    }
  FrameConstants f = frameFor(size, size, pixelView(size, size));
  const GpuRaster gpu = runGpu(tris, f);
  const RasterResult cpu = rasterizeReference(tris, f);
  CHECK(differ(gpu.counts, cpu.fragmentCounts, "fragment counts").count == 0);
  size_t doubles = 0, gaps = 0, strays = 0, inside = 0;
  for (uint32_t y = 0; y < size; ++y)
    for (uint32_t x = 0; x < size; ++x) {
      const uint32_t n = gpu.counts[rasterTiledIndex(f.tilesX, x, y)];
      doubles += n > 1;
      double best = -1e30;  // the cell's patch (cells do not overlap)
      for (const auto& p : patches) best = std::max(best, insideMargin(p.outline, x + 0.5, y + 0.5));
      if (best > 1e-6) {
        ++inside;
        gaps += n != 1;
      } else if (best < -1e-6) {
        strays += n != 0;
      }
    }
  INFO("pixels strictly inside " << inside << ", double writes " << doubles << ", gaps " << gaps << ", strays " << strays);
  CHECK(patches.size() > 50);
  CHECK(inside > 10000);
  CHECK(doubles == 0);
  CHECK(gaps == 0);
  CHECK(strays == 0);
}

TEST_CASE("Under heavy overdraw the nearest fragment always wins", "[painter][raster]") {
  const uint32_t size = 128;
  vt::Rng rng(14);
  FrameConstants f = frameFor(size, size, pixelView(size, size));
  SECTION("hundreds of triangles over the same pixels at distinct depths, small and large paths") {
    // Each covers the square [32, 96]^2 entirely; depths distinct and shuffled.
    std::vector<float> depths;
    for (int i = 0; i < 400; ++i) depths.push_back(0.05f + 0.002f * float(i));
    std::vector<Triangle> tris;
    for (int i = 0; i < 400; ++i) {
      std::swap(depths[i], depths[rng.range(i, 399)]);
      const float z = depths[i];
      const glm::vec3 o(uniform(rng, 0.0f, 30.0f), uniform(rng, 0.0f, 30.0f), z);
      tris.push_back(flatTriangle(o, o + glm::vec3(200.0f, 0.0f, 0.0f), o + glm::vec3(0.0f, 200.0f, 0.0f), randomColor(rng)));
    }
    const uint32_t nearest = uint32_t(std::min_element(depths.begin(), depths.end()) - depths.begin());
    for (const uint32_t area : {30000u, 64u}) {
      f.largeTriangleArea = area;
      INFO("largeTriangleArea " << area);
      const GpuRaster gpu = runGpu(tris, f);
      size_t wrong = 0;
      for (uint32_t y = 32; y < 96; ++y)
        for (uint32_t x = 32; x < 96; ++x) wrong += gpu.image[y * size + x] != nearest;
      CHECK(wrong == 0);
      requireSameAsCpu(gpu, rasterizeReference(tris, f));
    }
  }
  SECTION("tilted triangles crossing each other, in both modes") {
    std::vector<Triangle> tris;
    for (int i = 0; i < 600; ++i) {
      auto p = [&] { return glm::vec3(uniform(rng, 10.0f, 118.0f), uniform(rng, 10.0f, 118.0f), uniform(rng, 0.0f, 1.0f)); };
      tris.push_back(makeTriangle(p(), p(), p(), randomColor(rng), randomPoint(rng, -1, 1), randomPoint(rng, -1, 1),
                                  randomPoint(rng, -1, 1)));
    }
    for (const uint32_t mode : {uint32_t(gpu::kRasterTriangleId), uint32_t(gpu::kRasterShaded)}) {
      f.rasterMode = mode;
      requireSameAsCpu(runGpu(tris, f), rasterizeReference(tris, f));
    }
  }
  SECTION("equal depths: the smaller triangle index wins, whatever order the GPU ran them in") {
    std::vector<Triangle> tris;
    for (int i = 0; i < 50; ++i)
      tris.push_back(flatTriangle({20.0f, 20.0f, 0.5f}, {110.0f, 30.0f, 0.5f}, {40.0f, 115.0f, 0.5f}, randomColor(rng)));
    const GpuRaster gpu = runGpu(tris, f);
    size_t covered = 0, notFirst = 0;
    for (uint32_t id : gpu.image) {
      covered += id != 0xFFFFFFFFu;
      notFirst += id != 0xFFFFFFFFu && id != 0;
    }
    CHECK(covered > 3000);
    CHECK(notFirst == 0);
  }
}

TEST_CASE("Large triangles go through the tile queue, and its overflow is counted", "[painter][raster]") {
  const uint32_t width = 300, height = 200;
  vt::Rng rng(15);
  std::vector<Triangle> tris;
  // A screen-filling backdrop (two triangles), a few large ones across it, small ones in front.
  tris.push_back(flatTriangle({-10, -10, 0.9f}, {310, -10, 0.9f}, {310, 210, 0.9f}, 0xFF404040u));
  tris.push_back(flatTriangle({-10, -10, 0.9f}, {310, 210, 0.9f}, {-10, 210, 0.9f}, 0xFF505050u));
  for (int i = 0; i < 12; ++i) {
    auto p = [&] { return glm::vec3(uniform(rng, -50.0f, 350.0f), uniform(rng, -50.0f, 250.0f), uniform(rng, 0.2f, 0.8f)); };
    tris.push_back(flatTriangle(p(), p(), p(), randomColor(rng)));
  }
  for (int i = 0; i < 500; ++i) {
    const glm::vec3 a(uniform(rng, 0.0f, 300.0f), uniform(rng, 0.0f, 200.0f), uniform(rng, 0.1f, 0.7f));
    tris.push_back(flatTriangle(a, a + glm::vec3(uniform(rng, -9, 9), uniform(rng, -9, 9), 0.01f),
                                a + glm::vec3(uniform(rng, -9, 9), uniform(rng, -9, 9), -0.01f), randomColor(rng)));
  }
  FrameConstants f = frameFor(width, height, glm::mat4(1.0f));
  const glm::mat4 view = glm::translate(glm::mat4(1.0f), glm::vec3(-1.0f, -1.0f, 0.0f)) *
                         glm::scale(glm::mat4(1.0f), glm::vec3(2.0f / width, 2.0f / height, 1.0f));
  std::memcpy(f.viewProj, &view[0][0], sizeof(f.viewProj));
  f.largeTriangleArea = 256;
  f.maxLargeTiles = 4096;
  const RasterResult cpu = rasterizeReference(tris, f);
  REQUIRE(cpu.largeTriangles >= 10);
  REQUIRE(cpu.largeTiles > 100);
  CHECK(std::count(cpu.image.begin(), cpu.image.end(), 0xFFFFFFFFu) == 0);  // the backdrop covers everything
  SECTION("same image as the CPU reference, whatever the grid") {
    requireSameAsCpu(runGpu(tris, f), cpu);
    requireSameAsCpu(runGpu(tris, f, RasterGroups{1, 1, 1, 1}), cpu);
    requireSameAsCpu(runGpu(tris, f, RasterGroups{3, 5, 301, 2}), cpu);
    f.rasterMode = gpu::kRasterShaded;
    requireSameAsCpu(runGpu(tris, f), rasterizeReference(tris, f));
  }
  SECTION("a queue too small drops tiles, counts them and writes nothing past its end") {
    f.maxLargeTiles = 40;
    const GpuRaster gpu = runGpu(tris, f);
    CHECK(gpu.counters[kCounterLargeTiles] == cpu.largeTiles);  // asked for: more than fit
    CHECK(gpu.counters[kCounterLargeTriangles] == cpu.largeTriangles);
    CHECK(gpu.counters[kCounterLargeTiles] > f.maxLargeTiles);
    size_t touched = 0;
    for (size_t i = size_t(f.maxLargeTiles) * 2; i < gpu.queue.size(); ++i) touched += gpu.queue[i] != kQueueSentinel;
    CHECK(touched == 0);
    // What was drawn is a part of the full image: never nearer than the reference.
    size_t nearer = 0, missing = 0;
    for (size_t i = 0; i < gpu.framebuffer.size(); ++i) {
      nearer += gpu.framebuffer[i] < cpu.framebuffer[i];
      missing += gpu.framebuffer[i] != cpu.framebuffer[i];
    }
    CHECK(nearer == 0);
    CHECK(missing > 0);
  }
}

// Not a check: GPU time per raster phase and the CPU reference's time on 200,000 small
// triangles (run it with "[raster-bench]").
TEST_CASE("Raster phase timings on a large soup", "[.][raster-bench]") {
  auto& gpu = vt::gpu();
  vt::Rng rng(99);
  std::vector<Triangle> tris;
  for (int i = 0; i < 200000; ++i) {
    const glm::vec3 a = randomPoint(rng, -1.5f, 1.5f);
    tris.push_back(flatTriangle(a, a + randomPoint(rng, -0.03f, 0.03f), a + randomPoint(rng, -0.03f, 0.03f), randomColor(rng)));
  }
  FrameConstants f = frameFor(640, 480, perspectiveView(640, 480));
  f.maxTriangles = 1u << 20;
  f.rasterMode = gpu::kRasterShaded;
  gpu.scheduler.resetProfile();
  for (int i = 0; i < 3; ++i) runGpu(tris, f, RasterGroups{1200, 1024, 512, 4800}, UINT32_MAX, false);
  std::ostringstream s;
  gpu.scheduler.profile().print(s);
  const auto start = std::chrono::steady_clock::now();
  const RasterResult cpu = rasterizeReference(tris, f);
  s << "CPU reference " << vt::msSince(start) << " ms, " << cpu.drawnTriangles << " triangles drawn, " << coveredPixels(cpu)
    << " pixels covered";
  WARN(s.str());
}

TEST_CASE("Launch sizes keep every invocation within the iteration budget", "[painter][raster]") {
  FrameConstants f = frameFor(640, 480, glm::mat4(1.0f));
  f.maxTriangles = 1u << 20;
  f.maxLargeTiles = 1u << 16;
  const RasterGroups g = minimumRasterGroups(f);
  // Small: 32768 / 257 = 127 triangles per invocation.
  CHECK(g.small == (f.maxTriangles + 64 * 127 - 1) / (64 * 127));
  CHECK(g.large >= 1);
  CHECK(uint64_t(g.clear) * 64 * 32768 >= uint64_t(f.tilesX) * f.tilesY * 64);
  f.largeTriangleArea = 40000;
  CHECK_THROWS_AS(minimumRasterGroups(f), voxen::Error);
}
