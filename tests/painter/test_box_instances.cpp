// Instanced boxes (BoxInstances, shaders/painter/box_instances.comp) against their CPU
// reference bit for bit, including mirroring matrices, an instance list sized only on the
// device (indirect dispatch), an empty list and a triangle list too small; and the
// TriangleRasterizer (the frame megakernel's raster phases over a caller's triangle buffer
// and device-side count) against rasterizeReference bit for bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include "support/gpu_fixture.hpp"
#include "voxen/painter/box_instances.hpp"
#include "voxen/painter/cpu_box_instances.hpp"
#include "voxen/painter/cpu_rasterizer.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"

namespace {

using namespace voxen;
using gpu::Triangle;

float uniform(vt::Rng& rng, float lo, float hi) { return lo + (hi - lo) * float(double(rng.u32()) / 4294967296.0); }

glm::mat4 randomWorld(vt::Rng& rng) {
  glm::mat4 m = glm::translate(glm::mat4(1.0f), {uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5)});
  m = glm::rotate(m, uniform(rng, 0, 6.3f), glm::normalize(glm::vec3(uniform(rng, -1, 1), uniform(rng, -1, 1), 1.0f)));
  glm::vec3 scale(uniform(rng, 0.2f, 2.0f), uniform(rng, 0.2f, 2.0f), uniform(rng, 0.2f, 2.0f));
  if (rng.chance(25)) scale.x = -scale.x;  // a mirror: the winding must flip to stay front-facing
  return glm::scale(m, scale);
}

struct Instances {
  std::vector<glm::mat4> worlds;
  std::vector<BoxInstanceLocal> boxes;
  std::vector<uint32_t> colors;
};

Instances randomInstances(vt::Rng& rng, uint32_t n) {
  Instances in;
  for (uint32_t i = 0; i < n; ++i) {
    in.worlds.push_back(randomWorld(rng));
    const glm::vec3 lo(uniform(rng, -1, 0), uniform(rng, -1, 0), uniform(rng, -1, 0));
    in.boxes.push_back({lo, lo + glm::vec3(uniform(rng, 0.1f, 2), uniform(rng, 0.1f, 2), uniform(rng, 0.1f, 2))});
    in.colors.push_back(0xFF000000u | (rng.u32() & 0xFFFFFFu));
  }
  return in;
}

struct GpuBoxes {
  std::vector<Triangle> triangles;
  uint32_t written = 0, dropped = 0;
};

// Uploads the instances, the list and its count and dispatch command (as a culling pass would
// leave them on the device), runs BoxInstances and reads back.
GpuBoxes runBoxes(const Instances& in, const std::vector<uint32_t>& list, uint32_t maxTriangles) {
  auto& gpu = vt::gpu();
  Scheduler& s = gpu.scheduler;
  Device& d = gpu.device;
  const uint64_t n = in.worlds.size();
  Buffer worlds(d, "box test worlds", n * 64), boxes(d, "box test boxes", n * 32), colors(d, "box test colours", n * 4);
  Buffer listBuffer(d, "box test list", std::max<size_t>(list.size(), 1) * 4), small(d, "box test count and command", 16);
  Buffer triangles(d, "box test triangles", uint64_t(maxTriangles) * sizeof(Triangle)), count(d, "box test triangle count", 8);
  std::vector<float> boxWords;
  for (const BoxInstanceLocal& b : in.boxes) boxWords.insert(boxWords.end(), {b.lo.x, b.lo.y, b.lo.z, 0, b.hi.x, b.hi.y, b.hi.z, 0});
  s.upload(worlds.range(), in.worlds.data(), n * 64);
  s.upload(boxes.range(), boxWords.data(), n * 32);
  s.upload(colors.range(), in.colors.data(), n * 4);
  if (!list.empty()) s.upload(listBuffer.range(0, list.size() * 4), list.data(), list.size() * 4);
  const uint32_t header[4] = {uint32_t(list.size()), uint32_t((list.size() + 63) / 64), 1, 1};
  s.upload(small.range(), header, sizeof header);
  s.fill(triangles.range(), 0xDEADBEEFu);
  s.fill(count.range(), 0xDEADBEEFu);
  BoxInstances pass(s);
  pass.record({worlds.range(), boxes.range(), colors.range(), listBuffer.range(), small.range(0, 4), small.range(4, 12)},
              triangles.range(), count.range());
  GpuBoxes out;
  const std::vector<uint32_t> c = vt::readBack<uint32_t>(s, count.range());
  out.written = c[0];
  out.dropped = c[1];
  out.triangles = vt::readBack<Triangle>(s, triangles.range());
  out.triangles.resize(std::min<size_t>(out.written, out.triangles.size()));
  return out;
}

void requireSameTriangles(const std::vector<Triangle>& gpu, const std::vector<Triangle>& cpu) {
  REQUIRE(gpu.size() == cpu.size());
  for (size_t t = 0; t < cpu.size(); ++t) {
    INFO("triangle " << t << " (instance " << cpu[t].cell << ")");
    REQUIRE(std::memcmp(&gpu[t], &cpu[t], sizeof(Triangle)) == 0);  // every bit: positions, normals, colour, id
  }
}

}  // namespace

TEST_CASE("Box instances: the GPU's triangles equal the CPU reference bit for bit, list sized on the device",
          "[painter][boxes][gpu]") {
  vt::Rng rng(0xB0C5);
  const Instances in = randomInstances(rng, 300);
  std::vector<uint32_t> list;  // a culled-looking subset in no particular order
  for (uint32_t i = 0; i < 300; ++i)
    if (rng.chance(60)) list.push_back((i * 7919u) % 300u);

  SECTION("every listed instance fits") {
    const uint32_t capacity = uint32_t(list.size()) * 12 + 5;
    const GpuBoxes gpu = runBoxes(in, list, capacity);
    CHECK(gpu.written == list.size() * 12);
    CHECK(gpu.dropped == 0);
    requireSameTriangles(gpu.triangles, boxInstanceTrianglesReference(list, in.worlds, in.boxes, in.colors, capacity));
  }
  SECTION("a triangle list too small keeps whole boxes and counts the dropped ones") {
    const uint32_t capacity = 12 * 40 + 11;
    const GpuBoxes gpu = runBoxes(in, list, capacity);
    CHECK(gpu.written == 12 * 40);
    CHECK(gpu.dropped == list.size() - 40);
    requireSameTriangles(gpu.triangles, boxInstanceTrianglesReference(list, in.worlds, in.boxes, in.colors, capacity));
  }
  SECTION("an empty list (an indirect command of zero workgroups) still writes the count") {
    const GpuBoxes gpu = runBoxes(in, {}, 120);
    CHECK(gpu.written == 0);
    CHECK(gpu.dropped == 0);
  }
}

TEST_CASE("Box instances: every face is front-facing from outside, mirrored or not", "[painter][boxes]") {
  // For each face, the written normal (the winding's) points away from the box's centre.
  vt::Rng rng(7);
  const Instances in = randomInstances(rng, 64);
  std::vector<uint32_t> list(64);
  for (uint32_t i = 0; i < 64; ++i) list[i] = i;
  const std::vector<Triangle> triangles = boxInstanceTrianglesReference(list, in.worlds, in.boxes, in.colors, 1u << 20);
  for (size_t t = 0; t < triangles.size(); ++t) {
    const Triangle& tri = triangles[t];
    const uint32_t id = tri.cell;
    const glm::vec3 centre = glm::vec3(in.worlds[id] * glm::vec4(0.5f * (in.boxes[id].lo + in.boxes[id].hi), 1.0f));
    const glm::vec3 a(tri.p0[0], tri.p0[1], tri.p0[2]), b(tri.p1[0], tri.p1[1], tri.p1[2]), c(tri.p2[0], tri.p2[1], tri.p2[2]);
    INFO("triangle " << t << ", instance " << id);
    CHECK(glm::dot(glm::cross(b - a, c - a), (a + b + c) / 3.0f - centre) > 0.0f);
  }
}

TEST_CASE("TriangleRasterizer draws a caller's triangle buffer, counted on the device, as the CPU reference does",
          "[painter][raster][gpu]") {
  auto& gpu = vt::gpu();
  Scheduler& s = gpu.scheduler;
  vt::Rng rng(0x7A57);
  // Boxes as the scene draws them: the rasterizer's input is any gpu::Triangle list.
  const Instances in = randomInstances(rng, 80);
  std::vector<uint32_t> list(80);
  for (uint32_t i = 0; i < 80; ++i) list[i] = i;
  const std::vector<Triangle> triangles = boxInstanceTrianglesReference(list, in.worlds, in.boxes, in.colors, 1u << 20);
  const auto mode = GENERATE(RasterMode::Shaded, RasterMode::TriangleId);
  // Only the first `count` triangles are drawn, and the buffer's capacity bounds the count.
  const uint32_t count = GENERATE(uint32_t(500), uint32_t(0xFFFFFFF0u));
  const uint32_t drawn = std::min<uint32_t>(count, uint32_t(triangles.size()));
  INFO("mode " << uint32_t(mode) << ", device count " << count);

  RasterizerOptions options;
  options.width = 96, options.height = 72;
  options.rasterMode = mode;
  options.largeTriangleArea = 64;  // some triangles go through the large queue
  Camera camera;
  camera.eye = {2.0f, -14.0f, 6.0f};
  camera.target = {0.0f, 0.0f, 0.0f};
  Buffer triangleBuffer(gpu.device, "raster test triangles", triangles.size() * sizeof(Triangle));
  Buffer countBuffer(gpu.device, "raster test count", 4);
  s.upload(triangleBuffer.range(), triangles.data(), triangles.size() * sizeof(Triangle));
  s.upload(countBuffer.range(), &count, 4);
  TriangleRasterizer raster(s, options);
  raster.draw(camera, triangleBuffer.range(), countBuffer.range());
  const std::vector<uint32_t> image = raster.readImage().get();
  const RasterCounters counters = raster.readCounters();

  const RasterResult cpu = rasterizeReference(std::span(triangles).first(drawn), rasterConstants(options, camera, drawn));
  CHECK(counters.drawnTriangles == cpu.drawnTriangles);
  CHECK(counters.largeTriangles == cpu.largeTriangles);
  CHECK(cpu.drawnTriangles > 50);
  REQUIRE(image.size() == cpu.image.size());
  size_t differing = 0;
  for (size_t i = 0; i < image.size(); ++i) differing += image[i] != cpu.image[i];
  CHECK(differing == 0);
}
