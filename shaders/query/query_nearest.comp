#version 460
// The nearest target voxel centre (occupied voxels, or for the signed distance inside an
// obstacle those not occupied) to each point within a range (collision_types.hpp), by
// shells of Chebyshev distance k from the point's voxel, stopping once a shell cannot hold
// a nearer centre ((k - 1/2)^2 > the best squared distance). Each chunk of regions reads and
// improves the point's NearestBest: the best is the smallest (squared distance bits, offset
// code), a total order, so chunks and the CPU twin agree whatever order finds it.
#extension GL_GOOGLE_include_directive : require
#include "../common/dispatch.glsl"
#include "collision_geometry.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ProbeArray { CollisionProbe v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer BestArray { NearestBest v[]; };
layout(push_constant) uniform Push { NearestPush pc; };

void main() {
  uint i = voxenThreadIndex();
  NearestPush p = pc;
  if (i >= p.count) return;
  queryMapBegin(p.map);
  CollisionProbe probe = ProbeArray(p.probes).v[i];
  NearestBest best = BestArray(p.best).v[i];
  vec3 f = probe.local.xyz;
  for (int k = 0; k < int(p.shells); ++k) {
    precise float bound = k == 0 ? 0.0 : float(k) - 0.5;
    precise float bound2 = bound * bound;
    if (bound2 > p.range2) break;
    if ((best.flags & kNearestFound) != 0u && bound2 > uintBitsToFloat(best.distance2Bits)) break;
    for (int z = -k; z <= k; ++z)
      for (int y = -k; y <= k; ++y) {
        bool face = z == -k || z == k || y == -k || y == k;
        int step = face ? 1 : max(2 * k, 1);
        for (int x = -k; x <= k; x += step) {
          precise vec3 d = vec3(x, y, z) + 0.5 - f;
          float d2 = dot3(d, d);
          if (d2 > p.range2) continue;
          bool inMap;
          uint cls = collisionVoxel(probe.anchor.xyz + ivec3(x, y, z), p.threshold, inMap);
          if (inMap) best.flags |= kNearestInMap;
          if (cls == kVoxelElsewhere) continue;
          if (k == 0 && cls == kVoxelOccupied) best.flags |= kNearestOwnOccupied;
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
      }
  }
  BestArray(p.best).v[i] = best;
}
