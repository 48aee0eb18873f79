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
  Uint64Array outWords = Uint64Array(p.values);
  // Records read 64 bits at a time: lavapipe runs each component of a load through an
  // address as a loop over the lanes, whatever its width.
  Uint64Array voxels = Uint64Array(p.voxels);
  int n = p.map.regionSize;
  uint first = voxenThreadIndex() * kQueryItemsPerInvocation;
  uint last = min(first + kQueryItemsPerInvocation, p.count);
  for (uint i = first; i < last; ++i) {
    ivec3 base = ivec3(ivec2(unpackUint2x32(voxels.v[2u * i])), int(unpackUint2x32(voxels.v[2u * i + 1u]).x));
    if (p.corners == 8u) {
      // The whole cell inside one region (most cells): one region lookup, neighbouring
      // words of one slot, written two at a time.
      ivec3 region = regionOfVoxel(base, n);
      ivec3 local = base - region * n;
      if (all(lessThan(local, ivec3(n - 1)))) {
        int slot;
        if (regionState(region, slot) == kRegionResident) {
          uint w = voxelWord(base, region, slot), dy = uint(n), dz = uint(n * n);
          for (uint k = 0u; k < 4u; ++k) {
            uint row = w + ((k & 1u) != 0u ? dy : 0u) + ((k & 2u) != 0u ? dz : 0u);
            outWords.v[4u * i + k] = packUint2x32(uvec2(gPool.v[row], gPool.v[row + 1u]));
          }
        }
        continue;
      }
    }
    for (uint c = 0u; c < p.corners; ++c) {
      ivec3 voxel = base + ivec3(int(c & 1u), int((c >> 1u) & 1u), int(c >> 2u));
      ivec3 region = regionOfVoxel(voxel, n);
      int slot;
      if (regionState(region, slot) == kRegionResident) out_.v[i * p.corners + c] = gPool.v[voxelWord(voxel, region, slot)];
    }
  }
}
