#version 460
// Swept-sphere (capsule) checks along paths, one piece of a segment per invocation
// (collision_types.hpp): the smallest touch start t of a colliding voxel per segment
// (atomicMin on its bits: t >= 0, so the bits order as the floats) and the path's flags
// (atomicOr). Pieces overlap at their edges; a voxel tested twice gives the same t, so the
// minimum and the flags do not depend on which pieces or chunks test it.
#extension GL_GOOGLE_include_directive : require
#include "../common/dispatch.glsl"
#include "collision_geometry.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer SegmentArray { CollisionSegment v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer PieceArray { CollisionPiece v[]; };
layout(push_constant) uniform Push { CollisionPathPush pc; };

void main() {
  uint i = voxenThreadIndex();
  CollisionPathPush p = pc;
  if (i >= p.count) return;
  queryMapBegin(p.map);
  CollisionPiece piece = PieceArray(p.pieces).v[i];
  uint s = uint(piece.lo.w);
  CollisionSegment seg = SegmentArray(p.segments).v[s];
  vec3 a = seg.start.xyz, d = seg.delta.xyz;
  float inverse = seg.start.w;
  uint flags = 0u;
  uint best = kCollisionNoTouch;
  for (int z = piece.lo.z; z <= piece.hi.z; ++z)
    for (int y = piece.lo.y; y <= piece.hi.y; ++y)
      for (int x = piece.lo.x; x <= piece.hi.x; ++x) {
        bool inMap;
        uint cls = collisionVoxel(seg.anchor.xyz + ivec3(x, y, z), p.threshold, inMap);
        if (cls == kVoxelElsewhere) continue;
        bool collides = cls == kVoxelOccupied || (cls == kVoxelUnobserved && p.unknownCollides != 0u);
        // A voxel that adds nothing (no collision, its flags already set) skips the geometry.
        uint adds = (inMap ? kCollisionInMap : 0u) | (cls == kVoxelOccupied ? kCollisionOccupied : 0u) |
                    (cls == kVoxelUnobserved ? kCollisionUnobserved : 0u);
        if (!collides && (adds & ~flags) == 0u) continue;
        float t = segmentTouchStart(a, d, inverse, p.radius2, p.rejectRadius2, vec3(x, y, z));
        if (t < 0.0) continue;
        flags |= adds;
        if (collides) best = min(best, floatBitsToUint(t));
      }
  if (flags != 0u) atomicOr(UintArray(p.flags).v[uint(seg.anchor.w)], flags);
  if (best != kCollisionNoTouch) atomicMin(UintArray(p.starts).v[s], best);
}
