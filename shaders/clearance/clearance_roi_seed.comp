#version 460
// ROI propagation, after the key seed: every voxel of a block's padding (the block outside
// its region) that is an obstacle within the range of the region offers
// itself to the nearest voxel of the region's border and that voxel's neighbours on the
// border, by a 64-bit atomicMin of its key as each of them sees it (the contended step).
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"
#include "clearance_keys.glsl"
#include "clearance_grid.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

// Offers padding obstacle c (block coordinates) to the region's border.
void offer(uint block, ivec3 c) {
  ivec3 pad = padding();
  int n = pc.p.regionSize;
  ivec3 nearest = clamp(c, pad, pad + ivec3(n - 1));  // the nearest region voxel (block coordinates)
  Uint64Array keys = Uint64Array(pc.p.field);
  // The border neighbours: the 3 x 3 patch of the face it projects onto (steps along the
  // axes on which it was not clamped), fewer at an edge or a corner of the region.
  ivec3 free = ivec3(equal(nearest, c));  // 1 on the axes inside the region's span
  for (int j = -1; j <= 1; ++j)
    for (int k = -1; k <= 1; ++k) {
      ivec3 step = ivec3(0);
      int used = 0;
      for (int a = 0; a < 3; ++a) {
        if (free[a] == 0) continue;
        step[a] = used == 0 ? j : k;
        used += 1;
      }
      if ((used < 2 && k != 0) || (used < 1 && j != 0)) continue;  // each offset once
      ivec3 r = nearest + step;
      ivec3 g = r - pad;
      if (!inGrid(g)) continue;
      ivec3 d = c - r;
      if (offsetSquared(d) > pc.p.rangeSquared) continue;
      atomicMin(keys.v[gridIndex(block, g)], keyOf(d));
    }
}

ivec3 gCachedKey = ivec3(0x7fffffff);
int gCachedSlot = -1;

// Whether block voxel c of the block whose map origin is `origin` is an obstacle (one region
// lookup per region the line enters).
bool lineObstacle(i64vec3 origin, ivec3 c) { return obstacleAt(origin + i64vec3(c), gCachedKey, gCachedSlot); }

// One invocation per line along x of a block (every y and z). Before and after the region's
// x span only the obstacle nearest to the region can matter: every region voxel sees the
// others on the line farther along x at the same y and z, and they project onto the same
// border patch. So those two stretches offer one obstacle each (searched from the region
// outwards, within range); the stretch beside the region (a line outside its y-z span)
// offers all of its obstacles.
void main() {
  uint i = voxenThreadIndex();
  ivec3 size = blockSize();
  uint lines = uint(size.y * size.z);
  if (i >= lines * pc.p.blocks) return;
  uint block = i / lines;
  uint line = i - block * lines;
  int y = int(line % uint(size.y)), z = int(line / uint(size.y));
  ivec3 pad = padding();
  int n = pc.p.regionSize;
  i64vec3 origin = blockOrigin(block);
  // The line's offset from the region's y-z span alone must be within range.
  ivec3 beside = ivec3(pad.x, y, z) - clamp(ivec3(pad.x, y, z), pad, pad + ivec3(n - 1));
  if (offsetSquared(beside) > pc.p.rangeSquared) return;
  bool throughRegion = beside == ivec3(0);
  for (int x = pad.x - 1; x >= 0; --x) {  // before the region, outwards
    ivec3 c = ivec3(x, y, z);
    if (offsetSquared(c - clamp(c, pad, pad + ivec3(n - 1))) > pc.p.rangeSquared) break;
    if (lineObstacle(origin, c)) {
      offer(block, c);
      break;
    }
  }
  for (int x = pad.x + n; x < size.x; ++x) {  // after the region, outwards
    ivec3 c = ivec3(x, y, z);
    if (offsetSquared(c - clamp(c, pad, pad + ivec3(n - 1))) > pc.p.rangeSquared) break;
    if (lineObstacle(origin, c)) {
      offer(block, c);
      break;
    }
  }
  if (throughRegion) return;  // the region itself was seeded by the key seed
  for (int x = pad.x; x < pad.x + n; ++x) {  // beside the region: every obstacle
    ivec3 c = ivec3(x, y, z);
    if (lineObstacle(origin, c)) offer(block, c);
  }
}
