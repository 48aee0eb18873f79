// The CPU twin of shaders/painter/raster.glsl. Each float expression is the GLSL one in the
// same order; the GLSL marks them `precise`, and this file forbids FMA contraction, so both
// round alike. Integer edge functions are exact on both sides.
#include "strict_float.hpp"  // first: no FMA contraction below

#include "voxen/painter/cpu_rasterizer.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "voxen/painter/work_limits.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

using detail::kMaxIterationsPerInvocation;
using gpu::FrameConstants;
using gpu::kCounterLargeTiles;
using gpu::kCounterLargeTriangles;
using gpu::kRasterAmbient;
using gpu::kRasterChunkBits;
using gpu::kRasterDiffuse;
using gpu::kRasterEmpty;
using gpu::kRasterGuard;
using gpu::kRasterHalfPixel;
using gpu::kRasterMinClipW;
using gpu::kRasterSubpixelBits;
using gpu::kRasterSubpixels;
using gpu::Triangle;

constexpr float kInvSnorm = std::bit_cast<float>(gpu::kRasterInvSnormBits);
static_assert(kInvSnorm == 1.0f / 32767.0f, "raster_constants.h spells 1 / 32767 as these bits");
// RasterSmall reserves a queue entry and its tiles with one 64-bit atomicAdd on this pair.
static_assert(kCounterLargeTriangles % 2 == 0 && kCounterLargeTiles == kCounterLargeTriangles + 1,
              "raster.glsl adds to the large-queue counters as one little-endian uint64");

struct I2 {
  int32_t x, y;
};
struct V3 {
  float x, y, z;
};

struct Tri {
  I2 v0, v1, v2;
  float z0, z1, z2;
  float l0, l1, l2;  // lambert terms (unit normal . light), raster.glsl's RasterTri
  int bias0, bias1, bias2;
  float invArea;
  int32_t box[4];  // x0, y0, x1, y1
  uint32_t color, id;
};

bool project(const float* m, const float* p, float width, float height, I2& s, float& z) {
  const float cx = ((m[0] * p[0] + m[4] * p[1]) + m[8] * p[2]) + m[12];
  const float cy = ((m[1] * p[0] + m[5] * p[1]) + m[9] * p[2]) + m[13];
  const float cz = ((m[2] * p[0] + m[6] * p[1]) + m[10] * p[2]) + m[14];
  const float cw = ((m[3] * p[0] + m[7] * p[1]) + m[11] * p[2]) + m[15];
  s = {0, 0};
  z = 0.0f;
  if (!(cw > kRasterMinClipW)) return false;
  const float iw = 1.0f / cw;
  const float fx = ((cx * iw) * 0.5f + 0.5f) * width * kRasterSubpixels;
  const float fy = ((cy * iw) * 0.5f + 0.5f) * height * kRasterSubpixels;
  if (!(std::fabs(fx) <= kRasterGuard && std::fabs(fy) <= kRasterGuard)) return false;
  s = {int32_t(std::floor(fx + 0.5f)), int32_t(std::floor(fy + 0.5f))};
  z = cz * iw;
  return true;
}

V3 unitNormal(uint32_t bits) {
  float x = std::max(float(int16_t(uint16_t(bits))) * kInvSnorm, -1.0f);
  float y = std::max(float(int16_t(uint16_t(bits >> 16))) * kInvSnorm, -1.0f);
  const float z = (1.0f - std::fabs(x)) - std::fabs(y);
  if (z < 0.0f) {
    const float ox = (1.0f - std::fabs(y)) * (x >= 0.0f ? 1.0f : -1.0f);
    const float oy = (1.0f - std::fabs(x)) * (y >= 0.0f ? 1.0f : -1.0f);
    x = ox;
    y = oy;
  }
  const float len2 = (x * x + y * y) + z * z;
  const float inv = 1.0f / std::sqrt(len2);
  return {x * inv, y * inv, z * inv};
}

float lambert(V3 n, const gpu::vec4& l) { return (n.x * l.x + n.y * l.y) + n.z * l.z; }

int64_t edge(I2 a, I2 b, I2 p) {
  return int64_t(b.x - a.x) * int64_t(p.y - a.y) - int64_t(b.y - a.y) * int64_t(p.x - a.x);
}

int bias(I2 a, I2 b) {
  const int dx = b.x - a.x, dy = b.y - a.y;
  return ((dy == 0 && dx > 0) || dy < 0) ? 0 : 1;
}

bool setup(const FrameConstants& f, const Triangle& tri, uint32_t id, Tri& r) {
  const float width = float(f.width), height = float(f.height);
  r.id = id;
  r.color = tri.color;
  I2 s0, s1, s2;
  float z0, z1, z2;
  float m[16];  // viewProj's columns one after another, as project() indexes them
  std::memcpy(m, f.viewProj, sizeof(m));
  bool ok = project(m, tri.p0, width, height, s0, z0);
  ok = project(m, tri.p1, width, height, s1, z1) && ok;
  ok = project(m, tri.p2, width, height, s2, z2) && ok;
  if (!ok) return false;
  if ((z0 < 0.0f && z1 < 0.0f && z2 < 0.0f) || (z0 > 1.0f && z1 > 1.0f && z2 > 1.0f)) return false;
  int64_t area = edge(s0, s1, s2);
  if (area == 0 || (f.cullBackFaces != 0 && area > 0)) return false;
  uint32_t n0 = tri.n0, n1 = tri.n1, n2 = tri.n2;
  if (area < 0) {
    std::swap(s1, s2);
    std::swap(z1, z2);
    std::swap(n1, n2);
    area = -area;
  }
  const int32_t loX = std::min({s0.x, s1.x, s2.x}), loY = std::min({s0.y, s1.y, s2.y});
  const int32_t hiX = std::max({s0.x, s1.x, s2.x}), hiY = std::max({s0.y, s1.y, s2.y});
  r.box[0] = std::max((loX - kRasterHalfPixel + 255) >> kRasterSubpixelBits, 0);
  r.box[1] = std::max((loY - kRasterHalfPixel + 255) >> kRasterSubpixelBits, 0);
  r.box[2] = std::min((hiX - kRasterHalfPixel) >> kRasterSubpixelBits, int32_t(f.width) - 1);
  r.box[3] = std::min((hiY - kRasterHalfPixel) >> kRasterSubpixelBits, int32_t(f.height) - 1);
  if (r.box[0] > r.box[2] || r.box[1] > r.box[3]) return false;
  r.v0 = s0, r.v1 = s1, r.v2 = s2;
  r.z0 = z0, r.z1 = z1, r.z2 = z2;
  // Only shading reads the terms (raster.glsl skips the normals in the id mode too).
  const bool shaded = f.rasterMode != gpu::kRasterTriangleId;
  r.l0 = shaded ? lambert(unitNormal(n0), f.lightDir) : 0.0f;
  r.l1 = shaded ? lambert(unitNormal(n1), f.lightDir) : 0.0f;
  r.l2 = shaded ? lambert(unitNormal(n2), f.lightDir) : 0.0f;
  r.bias0 = bias(s1, s2);
  r.bias1 = bias(s2, s0);
  r.bias2 = bias(s0, s1);
  r.invArea = 1.0f / float(area);
  return true;
}

// Gouraud: the vertices' lambert terms interpolated, multiplies and adds only per pixel.
uint32_t shade(const Tri& r, float b0, float b1, float b2) {
  const float interpolated = (r.l0 * b0 + r.l1 * b1) + r.l2 * b2;
  const float shadeFactor = kRasterAmbient + kRasterDiffuse * std::max(interpolated, 0.0f);
  const uint32_t c = r.color;
  const float cr = float(c & 255u) * shadeFactor + 0.5f;
  const float cg = float((c >> 8) & 255u) * shadeFactor + 0.5f;
  const float cb = float((c >> 16) & 255u) * shadeFactor + 0.5f;
  return std::min(uint32_t(cr), 255u) | std::min(uint32_t(cg), 255u) << 8 | std::min(uint32_t(cb), 255u) << 16 |
         (c & 0xFF000000u);
}

void pixel(const FrameConstants& f, const Tri& r, int32_t x, int32_t y, RasterResult& out) {
  const I2 p{(x << kRasterSubpixelBits) + kRasterHalfPixel, (y << kRasterSubpixelBits) + kRasterHalfPixel};
  const int64_t e0 = edge(r.v1, r.v2, p), e1 = edge(r.v2, r.v0, p), e2 = edge(r.v0, r.v1, p);
  if (e0 < r.bias0 || e1 < r.bias1 || e2 < r.bias2) return;
  const float b0 = float(e0) * r.invArea, b1 = float(e1) * r.invArea, b2 = float(e2) * r.invArea;
  const float z = (r.z0 * b0 + r.z1 * b1) + r.z2 * b2;
  if (!(z >= 0.0f && z <= 1.0f)) return;
  const uint32_t depthBits = std::bit_cast<uint32_t>(z) & 0x7FFFFFFFu;
  const uint32_t index = rasterTiledIndex(f.tilesX, uint32_t(x), uint32_t(y));
  ++out.fragmentCounts[index];
  const uint32_t low = f.rasterMode == gpu::kRasterTriangleId ? r.id : shade(r, b0, b1, b2);
  out.framebuffer[index] = std::min(out.framebuffer[index], uint64_t(depthBits) << 32 | low);
}

}  // namespace

RasterResult rasterizeReference(std::span<const Triangle> triangles, const FrameConstants& f) {
  RasterResult out;
  const size_t entries = size_t(f.tilesX) * f.tilesY * 64;
  out.framebuffer.assign(entries, kRasterEmpty);
  out.fragmentCounts.assign(entries, 0);
  const uint32_t count = uint32_t(std::min<size_t>(triangles.size(), f.maxTriangles));
  for (uint32_t t = 0; t < count; ++t) {
    Tri r;
    if (!setup(f, triangles[t], t, r)) continue;
    ++out.drawnTriangles;
    const uint64_t w = uint64_t(r.box[2] - r.box[0] + 1), h = uint64_t(r.box[3] - r.box[1] + 1);
    if (w * h > f.largeTriangleArea) {  // the GPU queues it in 32 x 32 tiles of its box
      const int32_t chunk = int32_t(kRasterChunkBits);
      ++out.largeTriangles;
      out.largeTiles += uint32_t(((r.box[2] >> chunk) - (r.box[0] >> chunk) + 1) * ((r.box[3] >> chunk) - (r.box[1] >> chunk) + 1));
    }
    for (int32_t y = r.box[1]; y <= r.box[3]; ++y)
      for (int32_t x = r.box[0]; x <= r.box[2]; ++x) pixel(f, r, x, y, out);
  }
  const uint32_t empty = f.rasterMode == gpu::kRasterTriangleId ? 0xFFFFFFFFu : f.backgroundColor;
  out.image.resize(size_t(f.width) * f.height);
  for (uint32_t y = 0; y < f.height; ++y)
    for (uint32_t x = 0; x < f.width; ++x) {
      const uint64_t v = out.framebuffer[rasterTiledIndex(f.tilesX, x, y)];
      out.image[size_t(y) * f.width + x] = v == kRasterEmpty ? empty : uint32_t(v);
    }
  return out;
}

RasterGroups minimumRasterGroups(const FrameConstants& f) {
  const uint64_t budget = kMaxIterationsPerInvocation;
  auto groupsFor = [](uint64_t items, uint64_t perInvocation) {
    const uint64_t perGroup = gpu::kFrameGroupSize * perInvocation;
    return uint32_t(std::max<uint64_t>(1, (items + perGroup - 1) / perGroup));
  };
  // Small: a triangle costs one iteration plus at most largeTriangleArea pixel iterations.
  const uint64_t triangleCost = uint64_t(f.largeTriangleArea) + 1;
  if (triangleCost > budget)
    throw Error("painter rasterizer: largeTriangleArea " + std::to_string(f.largeTriangleArea) + " exceeds the " +
                std::to_string(budget) + " loop iterations one invocation may run");
  // Large: a workgroup's invocations all walk each of its tiles: the binary search over the
  // queue (at most 33 steps) and 16 pixels.
  const uint64_t tileCost = 1 + 33 + (uint64_t(1) << (2 * kRasterChunkBits)) / gpu::kFrameGroupSize;
  RasterGroups g;
  g.clear = groupsFor(uint64_t(f.tilesX) * f.tilesY * 64, budget);
  g.small = groupsFor(f.maxTriangles, budget / triangleCost);
  g.large = uint32_t(std::max<uint64_t>(1, (uint64_t(f.maxLargeTiles) + budget / tileCost - 1) / (budget / tileCost)));
  g.resolve = groupsFor(uint64_t(f.width) * f.height, budget);
  return g;
}

}  // namespace voxen
