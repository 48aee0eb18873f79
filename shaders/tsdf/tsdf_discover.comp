#version 460
// TSDF discovery: one thread per pixel. A pixel with a depth marks the blocks of its band
// along its ray, the box of the blocks of its two ends (at depth - truncation, at least one
// fine unit, and depth + truncation), in a hash set of packed block keys; a key new to the set
// is listed once. The host reads the list back and makes the blocks' regions resident.
// Integers only, from tsdf_shared.h: the CPU reference (engine/tsdf/src/tsdf_camera.cpp
// tsdfFrameBlocks) finds the same blocks.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "tsdf_shared.h"
#include "tsdf_camera.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { TsdfDiscoverPush pc; };

uint64_t packBlock(int x, int y, int z) {
  return (uint64_t(x + (1 << 20)) << 42) | (uint64_t(y + (1 << 20)) << 21) | uint64_t(z + (1 << 20));
}

void insertBlock(uint64_t key) {
  Uint64Array table = Uint64Array(pc.table);
  UintArray counters = UintArray(pc.counters);
  // Every bit of the key reaches the slot (murmur3's 64-bit finaliser): the low bits of a
  // plain multiply hash saw only z and x's low bits, so a column of blocks at one (x, z) but
  // many y probed one long chain, ran past maxProbe and grew the set each frame.
  uint64_t k = key;
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdul;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ul;
  k ^= k >> 33;
  uint h = uint(k);
  for (uint probe = 0u; probe < pc.maxProbe; ++probe) {
    uint slot = (h + probe) & pc.tableMask;
    uint64_t previous = atomicCompSwap(table.v[slot], uint64_t(0), key);
    if (previous == uint64_t(0)) {
      uint index = atomicAdd(counters.v[0], 1u);
      if (index < pc.listCapacity) Uint64Array(pc.list).v[index] = key;
      return;
    }
    if (previous == key) return;
  }
  atomicOr(counters.v[1], 1u);  // no free slot within maxProbe: the host retries with a larger set
}

void main() {
  uint pixel = voxenThreadIndex();
  TsdfCamera cam = TsdfCameraRef(pc.camera).c;
  if (pixel >= uint(cam.width) * uint(cam.height)) return;
  int64_t d = tsdfPixelDepth(cam, pc.depth, pixel);
  if (d == 0) return;
  int u = int(pixel % uint(cam.width)), v = int(pixel / uint(cam.width));
  int64_t ends[2] = int64_t[2](max(d - cam.truncation, int64_t(1)), d + cam.truncation);
  ivec3 lo = ivec3(0), hi = ivec3(0);
  for (int e = 0; e < 2; ++e) {
    int64_t z = ends[e];
    int64_t x = tsdfBackProject(u, z, cam.fx, cam.cx), y = tsdfBackProject(v, z, cam.fy, cam.cy);
    ivec3 block;
    for (int a = 0; a < 3; ++a) {
      int64_t world = tsdfRotateRow(cam.rotationWc[a * 3], cam.rotationWc[a * 3 + 1], cam.rotationWc[a * 3 + 2], x, y, z) + cam.centre[a];
      block[a] = int(world >> (kTsdfFineBits + 3));
    }
    lo = e == 0 ? block : min(lo, block);
    hi = e == 0 ? block : max(hi, block);
  }
  for (int bz = lo.z; bz <= hi.z; ++bz)
    for (int by = lo.y; by <= hi.y; ++by)
      for (int bx = lo.x; bx <= hi.x; ++bx) insertBlock(packBlock(bx, by, bz));
}
