#version 460
// Exact clearance, the y and z passes (push axis 1 or 2): one invocation per line the
// output needs (along y: every line at an x inside the region; along z: at x and y inside
// it) takes the lower envelope of the field along the axis with weight w_axis. The z pass
// writes the region's clearance (metres, 0 on obstacles, kNoObstacleInRange past the range)
// into the cache's clearance pool of the target's slot.
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

void main() {
  uint i = voxenThreadIndex();
  ivec3 size = blockSize();
  int n = pc.p.regionSize;
  ivec3 pad = ivec3(pc.p.padX, pc.p.padY, pc.p.padZ);
  bool alongZ = pc.p.axis == 2u;
  // Lines along y: (x interior, z any); along z: (x interior, y interior).
  uint other = alongZ ? uint(n) : uint(size.z);
  uint lines = uint(n) * other;
  if (i >= lines * pc.p.blocks) return;
  uint block = i / lines;
  uint line = i - block * lines;
  int x = pad.x + int(line % uint(n));
  int c = int(line / uint(n));
  ivec3 start = alongZ ? ivec3(x, pad.y + c, 0) : ivec3(x, 0, c);
  ivec3 step = alongZ ? ivec3(0, 0, 1) : ivec3(0, 1, 0);
  int length = alongZ ? size.z : size.y;
  FloatArray field = FloatArray(pc.p.field);
  for (int q = 0; q < length; ++q) gLine[q] = field.v[fieldIndex(block, start + step * q, size)];
  distanceEnvelope(length, alongZ ? pc.p.weightZ : pc.p.weightY);
  if (!alongZ) {
    for (int q = 0; q < length; ++q) field.v[fieldIndex(block, start + step * q, size)] = gOut[q];
    return;
  }
  // The region's clearance: z inside the region.
  ivec4 target = ivec4(Uvec4Array(pc.p.targets).v[block]);
  FloatArray clearance = FloatArray(Uint64Array(pc.p.layers).v[pc.p.clearanceLayer]);
  uint base = uint(target.w) * uint(n * n * n) + uint((x - pad.x) + n * (start.y - pad.y));
  for (int z = 0; z < n; ++z) clearance.v[base + uint(n * n * z)] = clearanceOf(gOut[pad.z + z], pc.p.rangeSquared);
}
