#version 460
// Point queries' gather: for each item the value bits of its 1 (occupancy) or 8
// (clearance: the voxel centres around the point) voxels, written where the voxel's region
// is resident in this chunk. The host fills `values` first with the absent value
// (unobserved occupancy, or clearance's "none within range"), so a voxel of a region the
// map does not hold keeps it, and one in another chunk's region is written by that chunk.
#extension GL_GOOGLE_include_directive : require
#include "../common/dispatch.glsl"
#include "query_map.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { QueryPointsPush pc; };

void main() {
  QueryPointsPush p = pc;
  queryMapBegin(p.map);
  UintArray out_ = UintArray(p.values);
  Uvec4Array voxels = Uvec4Array(p.voxels);
  uint first = voxenThreadIndex() * kQueryItemsPerInvocation;
  uint last = min(first + kQueryItemsPerInvocation, p.count);
  for (uint i = first; i < last; ++i) {
    ivec4 base = ivec4(voxels.v[i]);  // read whole, once (lavapipe)
    for (uint c = 0u; c < p.corners; ++c) {
      ivec3 voxel = base.xyz + ivec3(int(c & 1u), int((c >> 1u) & 1u), int(c >> 2u));
      ivec3 region = regionOfVoxel(voxel, p.map.regionSize);
      int slot;
      if (regionState(region, slot) == kRegionResident) out_.v[i * p.corners + c] = gPool.v[voxelWord(voxel, region, slot)];
    }
  }
}
