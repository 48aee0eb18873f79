#version 460
// Exact clearance, the y and z passes (push axis 1 or 2) over the compact field (x inside the
// region): one invocation per line the output needs (along y: every line at an x inside the
// region; along z: at x and y inside it) takes the lower envelope of the field along the
// axis with weight w_axis, in place. The z pass writes the region's clearance (metres, 0 on
// obstacles, kNoObstacleInRange past the range) into the cache's clearance pool of the
// target's slot instead. With CLEARANCE_VOXEL_SQUARES=1 the field holds squared voxel
// distances and the envelope runs in integers (clearance_common.glsl). A target computed in
// part ([lo, hi) of the region, voxel squares only: the envelope of a shorter line is the same
// exact minimum) needs along y the lines at its x within the padding of it in z, over its y
// within the padding, and along z the lines at its x and y, over its z within the padding;
// the whole region: every line the output needs, over the whole block.
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

void main() {
  uint i = voxenThreadIndex();
  ivec3 size = blockSize();
  int n = pc.p.regionSize;
  ivec3 pad = padding();
  bool alongZ = pc.p.axis == 2u;
  uint perBlock = pc.p.iteration;
  if (i >= perBlock * pc.p.blocks) return;
  uint block = i / perBlock;
  uint line = i - block * perBlock;
  ivec3 lo = targetLo(block), hi = targetHi(block);
  ivec3 part = hi - lo, reach = part + 2 * pad;
  // Lines along y: (x in the part, z within the padding of it: block z from lo.z); along z:
  // (x in the part, y in the part).
  uint other = alongZ ? uint(part.y) : uint(reach.z);
  if (line >= uint(part.x) * other) return;
  int x = lo.x + int(line % uint(part.x));
  int c = (alongZ ? lo.y : lo.z) + int(line / uint(part.x));
#if CLEARANCE_VOXEL_SQUARES
  UintArray field = UintArray(pc.p.field);
  uint maxSquared = uint(pc.p.rangeSquared);
#else
  FloatArray field = FloatArray(pc.p.field);
#endif
  if (!alongZ) {
    uint first = fieldIndex(block, x, lo.y, c, size);
    uint step = uint(n);
#if CLEARANCE_VOXEL_SQUARES
    squaredDistanceEnvelope(field, first, step, reach.y, maxSquared, field, first, step, 0, reach.y, false);
#else
    distanceEnvelope(field, first, step, reach.y, pc.p.weightY, field, first, step, 0, reach.y, false);
#endif
    return;
  }
  // The region's clearance: z of the part.
  ivec4 target = targetOf(block);
  uint64_t clearance = Uint64Array(pc.p.layers).v[pc.p.clearanceLayer];
  uint base = uint(target.w) * uint(n * n * n) + uint(x + n * c + n * n * lo.z);
  uint first = fieldIndex(block, x, pad.y + c, lo.z, size);
#if CLEARANCE_VOXEL_SQUARES
  squaredDistanceEnvelope(field, first, uint(n * size.y), reach.z, maxSquared, UintArray(clearance), base, uint(n * n), pad.z,
                          pad.z + part.z, true);
#else
  distanceEnvelope(field, first, uint(n * size.y), reach.z, pc.p.weightZ, FloatArray(clearance), base, uint(n * n), pad.z,
                   pad.z + part.z, true);
#endif
}
