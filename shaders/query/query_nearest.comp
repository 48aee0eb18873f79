#version 460
// The nearest target voxel centre (occupied voxels, or for the signed distance inside an
// obstacle those not occupied) to each point within a range (collision_types.hpp). The CPU
// twin walks shells of Chebyshev distance k from the point's voxel, stopping once a shell
// cannot hold a nearer centre ((k - 1/2)^2 > the best squared distance); this pass visits
// the offsets of a table sorted by a tighter lower bound (collision_shared.h NearestPush),
// stopping at the first bound above the best or the range, so it visits every voxel the
// shells could find nearer and far fewer others. Every lane walks the same table, in step.
// Each chunk of regions reads and improves the point's NearestBest: the best is the
// smallest (squared distance bits, offset code), a total order, so chunks and the CPU twin
// agree whatever order finds it; the nearest unobserved centre is kept only as far as it
// decides the status (an unobserved centre strictly nearer than the best: both visit all).
#extension GL_GOOGLE_include_directive : require
#include "../common/dispatch.glsl"
#include "collision_geometry.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ProbeArray { CollisionProbe v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer BestArray { NearestBest v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer OffsetArray { uvec2 v[]; };
layout(push_constant) uniform Push { NearestPush pc; };

void main() {
  uint i = voxenThreadIndex();
  NearestPush p = pc;
  if (i >= p.count) return;
  queryMapBegin(p.map);
  CollisionProbe probe = ProbeArray(p.probes).v[i];
  NearestBest best = BestArray(p.best).v[i];
  vec3 f = probe.local.xyz;
  OffsetArray table = OffsetArray(p.offsets);
  for (uint j = 0u; j < p.offsetCount; ++j) {
    uvec2 entry = table.v[j];
    float bound = uintBitsToFloat(entry.y);
    if (bound > p.range2) break;
    if ((best.flags & kNearestFound) != 0u && bound > uintBitsToFloat(best.distance2Bits)) break;
    int x = int(entry.x & 0xFFu) - 64, y = int((entry.x >> 8u) & 0xFFu) - 64, z = int(entry.x >> 16u) - 64;
    precise vec3 d = vec3(x, y, z) + 0.5 - f;
    float d2 = dot3(d, d);
    if (d2 > p.range2) continue;
    bool inMap;
    uint cls = collisionVoxel(probe.anchor.xyz + ivec3(x, y, z), p.threshold, inMap);
    if (inMap) best.flags |= kNearestInMap;
    if (cls == kVoxelElsewhere) continue;
    if (x == 0 && y == 0 && z == 0 && cls == kVoxelOccupied) best.flags |= kNearestOwnOccupied;
    uint bits = floatBitsToUint(d2);
    if (cls == kVoxelUnobserved) best.unobservedBits = min(best.unobservedBits, bits);
    bool target = p.targetOccupied != 0u ? cls == kVoxelOccupied : cls != kVoxelOccupied;
    if (!target) continue;
    uint code = uint(((z + 64) * kNearestCodeSpan + (y + 64)) * kNearestCodeSpan + (x + 64));
    if ((best.flags & kNearestFound) == 0u || bits < best.distance2Bits ||
        (bits == best.distance2Bits && code < best.code)) {
      best.distance2Bits = bits;
      best.code = code;
      best.flags |= kNearestFound;
    }
  }
  BestArray(p.best).v[i] = best;
}
