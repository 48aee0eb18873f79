#version 460
// Sphere and oriented-box collision checks (collision_types.hpp): for each item the flags
// of the voxels it touches (occupied, unobserved, in the map), ORed into its word, so
// the chunks of a map larger than the cache add up to the answer of the whole map. A voxel
// of a region resident in another chunk is left to that chunk.
#extension GL_GOOGLE_include_directive : require
#include "../common/dispatch.glsl"
#include "collision_geometry.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ProbeArray { CollisionProbe v[]; };
layout(push_constant) uniform Push { CollisionProbePush pc; };

void main() {
  uint i = voxenThreadIndex();
  CollisionProbePush p = pc;
  if (i >= p.count) return;
  queryMapBegin(p.map);
  CollisionProbe probe = ProbeArray(p.probes).v[i];
  ivec3 lo, hi;
  if (p.box == 0u) {
    lo = ivec3(-p.reach);
    hi = ivec3(p.reach);
  } else {
    vec3 bound = vec3(probe.bounds.y, probe.bounds.z, probe.axes.z);
    lo = ivec3(floor(probe.local.xyz - bound)) - 1;
    hi = ivec3(floor(probe.local.xyz + bound)) + 1;
  }
  const uint all_ = kCollisionOccupied | kCollisionUnobserved | kCollisionInMap;
  uint flags = 0u;
  for (int z = lo.z; z <= hi.z && flags != all_; ++z)
    for (int y = lo.y; y <= hi.y && flags != all_; ++y)
      for (int x = lo.x; x <= hi.x && flags != all_; ++x) {
        vec3 o = vec3(x, y, z);
        bool touches = p.box == 0u ? pointBoxDistance2(probe.local.xyz, o) <= p.radius2 : orientedBoxTouches(probe, o);
        if (!touches) continue;
        bool inMap;
        uint cls = collisionVoxel(probe.anchor.xyz + ivec3(x, y, z), p.threshold, inMap);
        if (cls == kVoxelElsewhere) continue;
        if (inMap) flags |= kCollisionInMap;
        if (cls == kVoxelOccupied) flags |= kCollisionOccupied;
        if (cls == kVoxelUnobserved) flags |= kCollisionUnobserved;
      }
  if (flags != 0u) atomicOr(UintArray(p.flags).v[i], flags);
}
