// The software rasterizer phases of the frame megakernel. The CPU reference is
// engine/painter/src/cpu_rasterizer.cpp: every float expression here has a twin there, in the
// same order, and is `precise` so no compiler fuses or reorders it; the two framebuffers
// agree bit for bit (division and roots, set-up only, go through exact_math.glsl: exact on
// every device with shaderFloat64, and on lavapipe in either flavour).
//
// Arithmetic, as Vulkan's graphics pipeline with a full viewport and minDepth 0, maxDepth 1:
//  - clip = viewProj * (p, 1); a triangle with a vertex at w <= kRasterMinClipW is dropped
//    (there is no near-plane clipping), so is one with a vertex outside the guard band
//    (|x|, |y| > 2^19 pixels) or one with all its vertices in front of z = 0 or past z = 1.
//  - framebuffer position (ndc * 0.5 + 0.5) * size, snapped to 1/256 pixel (as hardware
//    does); the edge functions are then exact 64-bit integers: two triangles that share an
//    edge see exactly opposite values on it, and the top-left rule (pixel centres on an
//    edge belong to the triangle the edge is a top or left edge of) gives every pixel of
//    their union to exactly one of them: no crack, no double write.
//  - front-facing as VK_FRONT_FACE_COUNTER_CLOCKWISE: Vulkan's signed area
//    a = -1/2 sum(x_i y_i+1 - x_i+1 y_i) in framebuffer coordinates (y down) is positive.
//    With a Vulkan projection (y flipped) a triangle wound counter-clockwise seen from
//    outside is front-facing. Back faces are dropped when cullBackFaces != 0.
//  - depth: ndc z interpolated linearly in screen space (barycentrics from the edge
//    functions), fragments outside [0, 1] dropped (what clipping against z = 0 and z = w
//    would give), packed as float bits in the high word of a uint64 whose low word is the
//    colour or the triangle id; atomicMin keeps the nearest (ties: the smaller low word), so
//    the result does not depend on the order invocations run in.
//  - shading (Gouraud): each vertex's lambert term, its unit normal dotted with the light,
//    is computed in set-up; a pixel interpolates the three terms with its barycentrics, so
//    the per-pixel arithmetic is float multiplies and adds only (correctly rounded on every
//    Vulkan device). Division and square roots (exactDiv, exactSqrt: float64 in that
//    flavour) stay in per-triangle set-up; tests/painter/test_painter_raster_float64.cpp
//    checks that nothing rasterPixel calls touches a double.
//
// Work split (every phase spreads its items over all the workgroups the host launched, so
// any grid is correct; `param` is unused; the host sizes the grid so that no invocation
// passes the iteration budget, see minimumRasterGroups in cpu_rasterizer.hpp):
//   RasterClear  framebuffer entries (and fragment counts) to empty, strided.
//   RasterSmall  triangles [0, min(blockTotal, maxTriangles)), strided: one invocation sets a
//                triangle up, draws it when its clipped bounding box has at most
//                largeTriangleArea pixels, else queues it: one 64-bit atomicAdd on
//                counters[kCounterLargeTriangles, kCounterLargeTiles] reserves an entry
//                (triangle, first tile) and as many tiles as the bounding box has
//                kRasterChunk^2 pixel chunks. O(1) per large triangle, whatever its size.
//                (So `counters` must be 8-byte aligned; the entry is written only when it
//                fits maxLargeTiles, and entries past it start past it too.)
//   RasterLarge  tiles [0, min(tiles, maxLargeTiles)), one per workgroup at a time: the tile's
//                triangle is found by binary search over the queue (entries are in tile
//                order, because one atomic hands out both counts) and set up once for the
//                workgroup (shared memory); 64 invocations share the chunk's pixels (16 each). Tiles past maxLargeTiles are dropped, and visible:
//                counters[kCounterLargeTiles] keeps the number asked for.
//   Resolve      row-major image pixels, strided: colour, or background / 0xFFFFFFFF.

#include "raster_constants.h"
#include "../common/exact_math.glsl"

// A triangle ready to draw: vertices in subpixels, ordered so that the integer area is > 0.
struct RasterTri {
  ivec2 v0, v1, v2;
  float z0, z1, z2;
  float l0, l1, l2;  // lambert terms (unit normal . light) in the same order
  int bias0, bias1, bias2;  // edge i (opposite vertex i) covers a pixel when E_i >= bias_i
  float invArea;
  ivec4 box;         // pixels [box.x, box.z] x [box.y, box.w], inside the screen, non-empty
  uint color;
  uint id;
};

// Strided spread: invocation i of `launched` takes items i, i + launched, ...: this many.
uint rasterSpreadCount(uint invocation, uint launched, uint total) {
  return invocation < total ? (total - invocation + launched - 1u) / launched : 0u;
}

uint rasterLaunchedGroups() { return gl_NumWorkGroups.x * gl_NumWorkGroups.y; }

uint rasterTiledIndex(FrameConstants f, int x, int y) {
  return ((uint(y) >> 3) * f.tilesX + (uint(x) >> 3)) * 64u + (uint(y) & 7u) * 8u + (uint(x) & 7u);
}

// Projects a vertex; false when it is unusable (w too small, outside the guard band, NaN).
bool rasterProject(mat4 m, vec3 p, float width, float height, out ivec2 s, out float z) {
  precise float cx = ((m[0].x * p.x + m[1].x * p.y) + m[2].x * p.z) + m[3].x;
  precise float cy = ((m[0].y * p.x + m[1].y * p.y) + m[2].y * p.z) + m[3].y;
  precise float cz = ((m[0].z * p.x + m[1].z * p.y) + m[2].z * p.z) + m[3].z;
  precise float cw = ((m[0].w * p.x + m[1].w * p.y) + m[2].w * p.z) + m[3].w;
  s = ivec2(0);
  z = 0.0;
  if (!(cw > kRasterMinClipW)) return false;
  precise float iw = exactDiv(1.0, cw);
  precise float fx = ((cx * iw) * 0.5 + 0.5) * width * kRasterSubpixels;
  precise float fy = ((cy * iw) * 0.5 + 0.5) * height * kRasterSubpixels;
  if (!(abs(fx) <= kRasterGuard && abs(fy) <= kRasterGuard)) return false;
  precise float rx = floor(fx + 0.5);
  precise float ry = floor(fy + 0.5);
  s = ivec2(int(rx), int(ry));
  precise float depth = cz * iw;
  z = depth;
  return true;
}

// The octahedral normal, unit length, with explicit IEEE operations (painter_common's
// decodeNormal uses normalize, which is not the same bits on every driver).
vec3 rasterNormal(uint bits) {
  float scale = uintBitsToFloat(kRasterInvSnormBits);
  precise float x = max(float(bitfieldExtract(int(bits), 0, 16)) * scale, -1.0);
  precise float y = max(float(bitfieldExtract(int(bits), 16, 16)) * scale, -1.0);
  precise float z = (1.0 - abs(x)) - abs(y);
  if (z < 0.0) {
    precise float ox = (1.0 - abs(y)) * (x >= 0.0 ? 1.0 : -1.0);
    precise float oy = (1.0 - abs(x)) * (y >= 0.0 ? 1.0 : -1.0);
    x = ox;
    y = oy;
  }
  precise float len2 = (x * x + y * y) + z * z;
  precise float inv = exactDiv(1.0, exactSqrt(len2));
  precise vec3 n = vec3(x * inv, y * inv, z * inv);
  return n;
}

// A vertex's lambert term: its unit normal dotted with the light (unclamped: the pixel
// clamps the interpolated term, so a light grazing the surface fades smoothly).
float rasterLambert(vec3 n, vec3 l) {
  precise float d = (n.x * l.x + n.y * l.y) + n.z * l.z;
  return d;
}

// Edge function of a -> b at p: exact (|coordinates| < 2^28, products < 2^57).
int64_t rasterEdge(ivec2 a, ivec2 b, ivec2 p) {
  return int64_t(b.x - a.x) * int64_t(p.y - a.y) - int64_t(b.y - a.y) * int64_t(p.x - a.x);
}

// Top-left rule for a -> b in a triangle of positive area (y down, interior on the left of
// the walk as seen on the screen): a top edge is horizontal with the interior below it (b to
// the right of a), a left edge goes up. Pixel centres on those edges are covered.
int rasterBias(ivec2 a, ivec2 b) {
  int dx = b.x - a.x, dy = b.y - a.y;
  return ((dy == 0 && dx > 0) || dy < 0) ? 0 : 1;
}

vec3 rasterPoint(float p[3]) { return vec3(p[0], p[1], p[2]); }

// Sets up triangle t; false when it is not drawn (culled, degenerate, off screen).
bool rasterSetup(FrameConstants f, uint t, out RasterTri r) {
  Triangle tri = f.triangles.v[t];
  mat4 m = mat4(f.viewProj[0], f.viewProj[1], f.viewProj[2], f.viewProj[3]);
  float width = float(f.width), height = float(f.height);
  r.id = t;
  r.color = tri.color;
  ivec2 s0, s1, s2;
  float z0, z1, z2;
  bool ok = rasterProject(m, rasterPoint(tri.p0), width, height, s0, z0);
  ok = rasterProject(m, rasterPoint(tri.p1), width, height, s1, z1) && ok;
  ok = rasterProject(m, rasterPoint(tri.p2), width, height, s2, z2) && ok;
  if (!ok) return false;
  if ((z0 < 0.0 && z1 < 0.0 && z2 < 0.0) || (z0 > 1.0 && z1 > 1.0 && z2 > 1.0)) return false;
  int64_t area = rasterEdge(s0, s1, s2);
  // Vulkan's a is -area / 2 here: front-facing (counter-clockwise) when area < 0.
  if (area == 0l || (f.cullBackFaces != 0u && area > 0l)) return false;
  uint n0 = tri.n0, n1 = tri.n1, n2 = tri.n2;
  if (area < 0l) {  // make the area positive: swap vertices 1 and 2
    ivec2 ts = s1; s1 = s2; s2 = ts;
    float tz = z1; z1 = z2; z2 = tz;
    uint tn = n1; n1 = n2; n2 = tn;
    area = -area;
  }
  // Pixels whose centre (x * 256 + 128) lies in the vertices' box, clipped to the screen.
  ivec2 lo = min(min(s0, s1), s2), hi = max(max(s0, s1), s2);
  ivec4 box = ivec4((lo - kRasterHalfPixel + 255) >> kRasterSubpixelBits, (hi - kRasterHalfPixel) >> kRasterSubpixelBits);
  box = ivec4(max(box.xy, ivec2(0)), min(box.zw, ivec2(int(f.width) - 1, int(f.height) - 1)));
  if (box.x > box.z || box.y > box.w) return false;
  r.v0 = s0; r.v1 = s1; r.v2 = s2;
  r.z0 = z0; r.z1 = z1; r.z2 = z2;
  bool shaded = f.rasterMode != kRasterTriangleId;  // only shading reads the normals
  vec3 light = f.lightDir.xyz;
  r.l0 = shaded ? rasterLambert(rasterNormal(n0), light) : 0.0;
  r.l1 = shaded ? rasterLambert(rasterNormal(n1), light) : 0.0;
  r.l2 = shaded ? rasterLambert(rasterNormal(n2), light) : 0.0;
  r.bias0 = rasterBias(s1, s2);
  r.bias1 = rasterBias(s2, s0);
  r.bias2 = rasterBias(s0, s1);
  precise float inv = exactDiv(1.0, float(area));
  r.invArea = inv;
  r.box = box;
  return true;
}

// Per pixel: multiplies and adds only (no exactDiv or exactSqrt, see the header comment).
uint rasterShade(RasterTri r, float b0, float b1, float b2) {
  precise float lambert = (r.l0 * b0 + r.l1 * b1) + r.l2 * b2;
  precise float shade = kRasterAmbient + kRasterDiffuse * max(lambert, 0.0);
  uint c = r.color;
  precise float cr = float(c & 255u) * shade + 0.5;
  precise float cg = float((c >> 8) & 255u) * shade + 0.5;
  precise float cb = float((c >> 16) & 255u) * shade + 0.5;
  return min(uint(cr), 255u) | min(uint(cg), 255u) << 8 | min(uint(cb), 255u) << 16 | (c & 0xFF000000u);
}

// Edge functions at pixel (x, y)'s centre, and their steps per pixel in x and y: walks add
// the steps (exact in 64 bits) instead of multiplying at every pixel.
i64vec3 rasterEdgesAt(RasterTri r, int x, int y) {
  ivec2 p = ivec2(x << kRasterSubpixelBits, y << kRasterSubpixelBits) + kRasterHalfPixel;
  return i64vec3(rasterEdge(r.v1, r.v2, p), rasterEdge(r.v2, r.v0, p), rasterEdge(r.v0, r.v1, p));
}

i64vec3 rasterStepX(RasterTri r) {  // E(x + 1) - E(x) = -(b.y - a.y) pixels
  return -i64vec3(r.v2.y - r.v1.y, r.v0.y - r.v2.y, r.v1.y - r.v0.y) << kRasterSubpixelBits;
}

i64vec3 rasterStepY(RasterTri r) {  // E(y + 1) - E(y) = (b.x - a.x) pixels
  return i64vec3(r.v2.x - r.v1.x, r.v0.x - r.v2.x, r.v1.x - r.v0.x) << kRasterSubpixelBits;
}

// Covers pixel (x, y), whose edge functions are e, with r when its centre is inside and its
// depth in [0, 1].
void rasterPixel(FrameConstants f, RasterTri r, int x, int y, i64vec3 e) {
  if (e.x < int64_t(r.bias0) || e.y < int64_t(r.bias1) || e.z < int64_t(r.bias2)) return;
  precise float b0 = float(e.x) * r.invArea;
  precise float b1 = float(e.y) * r.invArea;
  precise float b2 = float(e.z) * r.invArea;
  precise float z = (r.z0 * b0 + r.z1 * b1) + r.z2 * b2;
  if (!(z >= 0.0 && z <= 1.0)) return;
  uint depthBits = floatBitsToUint(z) & 0x7FFFFFFFu;  // -0 as +0: bits order like depths
  uint index = rasterTiledIndex(f, x, y);
  if (uint64_t(f.fragmentCounts) != 0ul) atomicAdd(f.fragmentCounts.v[index], 1u);
  // Depth words only decrease, so a nearer one already there settles it without an atomic.
  UintArray words = UintArray(uint64_t(f.framebuffer));
  if (words.v[index * 2u + 1u] < depthBits) return;
  uint low = f.rasterMode == kRasterTriangleId ? r.id : rasterShade(r, b0, b1, b2);
  atomicMin(f.framebuffer.v[index], (uint64_t(depthBits) << 32) | uint64_t(low));
}

// The conservative test of a large tile: false when some edge leaves no pixel centre of
// [x0, x1] x [y0, y1] covered (exact: each edge is linear, its maximum lies at a corner).
bool rasterEdgeReaches(ivec2 a, ivec2 b, int bias, ivec4 px) {
  int dx = b.x - a.x, dy = b.y - a.y;
  ivec2 p = ivec2(dy > 0 ? px.x : px.z, dx > 0 ? px.w : px.y);
  p = (p << kRasterSubpixelBits) + kRasterHalfPixel;
  return rasterEdge(a, b, p) >= int64_t(bias);
}

ivec4 rasterChunkGrid(ivec4 box) {  // first chunk (x, y) and chunk columns, rows
  ivec2 c0 = box.xy >> int(kRasterChunkBits), c1 = box.zw >> int(kRasterChunkBits);
  return ivec4(c0, c1 - c0 + 1);
}

void phaseRasterClear() {
  FrameConstants f = frameConstants();
  uint launched = rasterLaunchedGroups() * 64u;
  uint invocation = painterGroupIndex() * 64u + gl_LocalInvocationIndex;
  uint total = f.tilesX * f.tilesY * 64u;
  uint count = rasterSpreadCount(invocation, launched, total);
  bool counts = uint64_t(f.fragmentCounts) != 0ul;
  for (uint k = 0u; k < count; ++k) {
    uint i = invocation + k * launched;
    f.framebuffer.v[i] = kRasterEmpty;
    if (counts) f.fragmentCounts.v[i] = 0u;
  }
}

shared uint rasterDrawn;

void phaseRasterSmall() {
  FrameConstants f = frameConstants();
  if (gl_LocalInvocationIndex == 0u) rasterDrawn = 0u;
  barrier();
  uint launched = rasterLaunchedGroups() * 64u;
  uint invocation = painterGroupIndex() * 64u + gl_LocalInvocationIndex;
  uint total = min(f.blockTotal.v[0], f.maxTriangles);
  uint count = rasterSpreadCount(invocation, launched, total);
  uint drawn = 0u;
  for (uint k = 0u; k < count; ++k) {
    uint t = invocation + k * launched;
    RasterTri r;
    if (!rasterSetup(f, t, r)) continue;
    ++drawn;
    uint w = uint(r.box.z - r.box.x + 1), h = uint(r.box.w - r.box.y + 1);
    if (uint64_t(w) * uint64_t(h) <= uint64_t(f.largeTriangleArea)) {
      // One loop over the box (lavapipe counts every iteration of every loop).
      int x = r.box.x, y = r.box.y;
      i64vec3 row = rasterEdgesAt(r, x, y), e = row;
      i64vec3 stepX = rasterStepX(r), stepY = rasterStepY(r);
      for (uint i = 0u; i < w * h; ++i) {
        rasterPixel(f, r, x, y, e);
        e += stepX;
        if (++x > r.box.z) {
          x = r.box.x;
          ++y;
          row += stepY;
          e = row;
        }
      }
    } else {
      ivec4 grid = rasterChunkGrid(r.box);
      uint tiles = uint(grid.z * grid.w);
      Uint64Array pair = Uint64Array(uint64_t(f.counters));  // counters 0 (low) and 1 (high)
      uint64_t old = atomicAdd(pair.v[0], (uint64_t(tiles) << 32) | 1ul);
      uint entry = uint(old), first = uint(old >> 32);
      if (entry < f.maxLargeTiles) f.largeQueue.v[entry] = uvec2(t, first);
    }
  }
  // One global atomic per workgroup (subgroup arithmetic is not among Voxen's requirements).
  if (drawn > 0u) atomicAdd(rasterDrawn, drawn);
  barrier();
  if (gl_LocalInvocationIndex == 0u && rasterDrawn > 0u) atomicAdd(f.counters.v[kCounterDrawnTriangles], rasterDrawn);
}

shared RasterTri rasterLargeTri;  // the current tile's triangle (phaseRasterLarge)
shared uint rasterLargeDrawn;

void phaseRasterLarge() {
  FrameConstants f = frameConstants();
  uint groups = rasterLaunchedGroups();
  uint group = painterGroupIndex();
  uint tiles = min(f.counters.v[kCounterLargeTiles], f.maxLargeTiles);
  // Entries past maxLargeTiles start past it too (an entry has at least one tile).
  uint entries = min(f.counters.v[kCounterLargeTriangles], f.maxLargeTiles);
  uint count = rasterSpreadCount(group, groups, tiles);
  for (uint k = 0u; k < count; ++k) {
    uint tile = group + k * groups;
    // The last entry whose first tile is <= tile (entry 0 starts at 0).
    uint lo = 0u, hi = entries;
    while (hi - lo > 1u) {
      uint mid = (lo + hi) >> 1;
      if (f.largeQueue.v[mid].y <= tile) lo = mid; else hi = mid;
    }
    uvec2 entry = f.largeQueue.v[lo];
    // One invocation sets the tile's triangle up for the workgroup: the set-up divides and
    // takes roots (double in the float64 flavour), and a tile has only 16 pixels per
    // invocation. The loop is uniform over the workgroup (count depends on the group only).
    if (gl_LocalInvocationIndex == 0u) {
      RasterTri t;
      rasterLargeDrawn = rasterSetup(f, entry.x, t) ? 1u : 0u;
      rasterLargeTri = t;
    }
    barrier();
    RasterTri r = rasterLargeTri;
    bool drawn = rasterLargeDrawn != 0u;
    barrier();  // everyone has read them before the next tile's set-up writes them
    if (!drawn) continue;  // cannot happen: the small phase's setup, bit for bit
    ivec4 grid = rasterChunkGrid(r.box);
    int j = int(tile - entry.y);
    ivec2 c = grid.xy + ivec2(j % grid.z, j / grid.z);
    ivec4 px = ivec4(max(r.box.xy, c << int(kRasterChunkBits)), min(r.box.zw, (c << int(kRasterChunkBits)) + int(kRasterChunk) - 1));
    if (!rasterEdgeReaches(r.v1, r.v2, r.bias0, px) || !rasterEdgeReaches(r.v2, r.v0, r.bias1, px) ||
        !rasterEdgeReaches(r.v0, r.v1, r.bias2, px))
      continue;
    // Invocation i walks column i % 32 of the chunk, every other row from row i / 32.
    int x = (c.x << int(kRasterChunkBits)) + int(gl_LocalInvocationIndex & (kRasterChunk - 1u));
    int y = (c.y << int(kRasterChunkBits)) + int(gl_LocalInvocationIndex >> kRasterChunkBits);
    i64vec3 e = rasterEdgesAt(r, x, y), step = rasterStepY(r) * 2l;
    for (uint i = 0u; i < kRasterChunk * kRasterChunk / 64u; ++i) {
      if (x >= px.x && x <= px.z && y >= px.y && y <= px.w) rasterPixel(f, r, x, y, e);
      y += 2;
      e += step;
    }
  }
}

void phaseResolve() {
  FrameConstants f = frameConstants();
  uint launched = rasterLaunchedGroups() * 64u;
  uint invocation = painterGroupIndex() * 64u + gl_LocalInvocationIndex;
  uint total = f.width * f.height;
  uint count = rasterSpreadCount(invocation, launched, total);
  uint empty = f.rasterMode == kRasterTriangleId ? 0xFFFFFFFFu : f.backgroundColor;
  for (uint k = 0u; k < count; ++k) {
    uint i = invocation + k * launched;
    int x = int(i % f.width), y = int(i / f.width);
    uint64_t v = f.framebuffer.v[rasterTiledIndex(f, x, y)];
    f.image.v[i] = v == kRasterEmpty ? empty : uint(v);
  }
}
