#version 460
// Box queries' flags: 1 for each voxel of the slab that is of the class. A voxel of a
// region the map does not hold is unobserved; one of a region resident in another chunk
// is left for that chunk (the flags start at 0 and are only ever set).
#extension GL_GOOGLE_include_directive : require
#include "../common/dispatch.glsl"
#include "query_map.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { QueryBoxPush pc; };

void main() {
  uint i = voxenThreadIndex();
  QueryBoxPush p = pc;
  if (i >= p.count) return;
  queryMapBegin(p.map);
  uint linear = p.first + i;
  uint plane = p.dimX * p.dimY;
  uint z = linear / plane;
  uint rest = linear - z * plane;
  uint y = rest / p.dimX;
  uint x = rest - y * p.dimX;
  ivec3 voxel = ivec3(p.lowerX, p.lowerY, p.lowerZ) + ivec3(int(x), int(y), int(z));
  ivec3 region = regionOfVoxel(voxel, p.map.regionSize);
  int slot;
  int state = regionState(region, slot);
  if (state == kRegionElsewhere) return;
  uint bits = state == kRegionResident ? gPool.v[voxelWord(voxel, region, slot)] : 0x7f800000u;
  uint cls = bits == 0x7f800000u ? 0u : (uintBitsToFloat(bits) >= p.threshold ? 2u : 1u);
  if (cls == p.voxelClass) UintArray(p.flags).v[i] = 1u;
}
