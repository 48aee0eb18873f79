#version 460
// Exact clearance, first pass: one invocation per line along x of a padded block (every y
// and z) reads the line's obstacles from the region cache (0 on an obstacle, far elsewhere;
// a region the cache does not hold is unobserved) and writes the line's squared distances
// along x (the lower envelope with weight w_x).
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

void main() {
  uint i = voxenThreadIndex();
  ivec3 size = blockSize();
  uint lines = uint(size.y * size.z);
  if (i >= lines * pc.p.blocks) return;
  uint block = i / lines;
  uint line = i - block * lines;
  int y = int(line % uint(size.y)), z = int(line / uint(size.y));
  int n = pc.p.regionSize;
  ivec4 target = ivec4(Uvec4Array(pc.p.targets).v[block]);  // the region key and its slot
  ivec3 origin = target.xyz * n - ivec3(pc.p.padX, pc.p.padY, pc.p.padZ);
  UintArray occupancy = UintArray(Uint64Array(pc.p.layers).v[kLayerIdOccupancy]);
  float threshold = uintBitsToFloat(pc.p.threshold);
  float unknown = pc.p.unknownFree != 0u ? kFarSquared : 0.0;
  uint regionVoxels = uint(n * n * n);
  // The line crosses a few regions: look each up once.
  ivec3 cachedKey = ivec3(0x7fffffff);
  int cachedSlot = -1;
  for (int x = 0; x < size.x; ++x) {
    ivec3 v = origin + ivec3(x, y, z);
    ivec3 key = regionOfVoxel(v, n);
    if (key != cachedKey) {
      cachedKey = key;
      cachedSlot = findRegionSlot(pc.p.regionTable, pc.p.tableMask, pc.p.maxProbe, key);
    }
    float f = unknown;
    if (cachedSlot >= 0) {
      ivec3 local = v - key * n;
      float value = uintBitsToFloat(occupancy.v[uint(cachedSlot) * regionVoxels + uint(local.x + n * (local.y + n * local.z))]);
      bool observed = !isinf(value);
      f = observed ? (value >= threshold ? 0.0 : kFarSquared) : unknown;
    }
    gLine[x] = f;
  }
  distanceEnvelope(size.x, pc.p.weightX);
  FloatArray field = FloatArray(pc.p.field);
  for (int x = 0; x < size.x; ++x) field.v[fieldIndex(block, ivec3(x, y, z), size)] = gOut[x];
}
