#version 460
// Exact clearance, the y and z passes (push axis 1 or 2) over the compact field (x inside the
// region): one invocation per line the output needs (along y: every line at an x inside the
// region; along z: at x and y inside it) takes the lower envelope of the field along the
// axis with weight w_axis, in place. The z pass writes the region's clearance (metres, 0 on
// obstacles, kNoObstacleInRange past the range) into the cache's clearance pool of the
// target's slot instead. With CLEARANCE_VOXEL_SQUARES=1 the field holds squared voxel
// distances and the envelope runs in integers (clearance_common.glsl).
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
  // Lines along y: (x inside, z any); along z: (x inside, y inside).
  uint other = alongZ ? uint(n) : uint(size.z);
  uint lines = uint(n) * other;
  if (i >= lines * pc.p.blocks) return;
  uint block = i / lines;
  uint line = i - block * lines;
  int x = int(line % uint(n));
  int c = int(line / uint(n));
#if CLEARANCE_VOXEL_SQUARES
  UintArray field = UintArray(pc.p.field);
  uint maxSquared = uint(pc.p.rangeSquared);
#else
  FloatArray field = FloatArray(pc.p.field);
#endif
  if (!alongZ) {
    uint first = fieldIndex(block, x, 0, c, size);
    uint step = uint(n);
#if CLEARANCE_VOXEL_SQUARES
    squaredDistanceEnvelope(field, first, step, size.y, maxSquared, field, first, step, 0, size.y, false);
#else
    distanceEnvelope(field, first, step, size.y, pc.p.weightY, field, first, step, 0, size.y, false);
#endif
    return;
  }
  // The region's clearance: z inside the region.
  ivec4 target = ivec4(Uvec4Array(pc.p.targets).v[block]);
  uint64_t clearance = Uint64Array(pc.p.layers).v[pc.p.clearanceLayer];
  uint base = uint(target.w) * uint(n * n * n) + uint(x + n * c);
  uint first = fieldIndex(block, x, pad.y + c, 0, size);
#if CLEARANCE_VOXEL_SQUARES
  squaredDistanceEnvelope(field, first, uint(n * size.y), size.z, maxSquared, UintArray(clearance), base, uint(n * n), pad.z,
                          pad.z + n, true);
#else
  distanceEnvelope(field, first, uint(n * size.y), size.z, pc.p.weightZ, FloatArray(clearance), base, uint(n * n), pad.z,
                   pad.z + n, true);
#endif
}
