#version 460
// Swept-sphere (capsule) checks along paths, one piece of a segment per invocation
// (collision_types.hpp), in two phases over all chunks (collision_shared.h):
// - kCollisionPathFlags: the path's flags (atomicOr) and its first colliding segment
//   (atomicMin of the segment's index). A voxel is touch-tested only when it could add a
//   flag or the piece's first collision; a piece of a segment after one already known to
//   collide looks only for flags, and stops once it can add nothing.
// - kCollisionPathStarts: only the pieces of each path's first colliding segment: the
//   smallest touch start t of a colliding voxel (atomicMin on its bits: t >= 0, so the bits
//   order as the floats), skipping voxels whose lower bound t_c - slack cannot beat the
//   best so far (the piece's, or another piece's already in `starts`). The minimum and the flags do not depend on which pieces, chunks or
//   order test a voxel, so the answer is the CPU twin's.
#extension GL_GOOGLE_include_directive : require
#include "../common/dispatch.glsl"
#include "collision_geometry.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer SegmentArray { CollisionSegment v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer PieceArray { CollisionPiece v[]; };
layout(push_constant) uniform Push { CollisionPathPush pc; };

layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer FirstArray { uint v[]; };

// A region's summary word (collision_shared.h), 0 outside the grid (not in the map).
uint regionSummary(uint64_t address, ivec3 region) {
  UintArray words = UintArray(address);
  ivec3 r = region - ivec3(words.v[0], words.v[1], words.v[2]);
  uvec3 dims = uvec3(words.v[3], words.v[4], words.v[5]);
  if (any(lessThan(r, ivec3(0))) || any(greaterThanEqual(uvec3(r), dims))) return 0u;
  return words.v[kSummaryHeaderWords + uint(r.x) + dims.x * (uint(r.y) + dims.y * uint(r.z))];
}

const uint kAllPathFlags = kCollisionOccupied | kCollisionUnobserved | kCollisionInMap;

void findFlags(CollisionPathPush p, CollisionPiece piece, CollisionSegment seg, uint s) {
  vec3 a = seg.start.xyz, d = seg.delta.xyz;
  uint path = uint(seg.anchor.w);
  // The first colliding segment only falls: a piece after (or at) a known one cannot be it.
  bool wanted = s < atomicOr(FirstArray(p.first).v[path], 0u);
  bool found = false;
  uint flags = 0u;
  // One loop over the piece's voxels (x fastest), not three nested ones: the lanes of a
  // subgroup, whose pieces differ in shape, stay in step and leave together.
  ivec3 size = piece.hi.xyz - piece.lo.xyz + 1;
  int count = size.x * size.y * size.z;
  ivec3 o = piece.lo.xyz;
  ivec3 summaryRegion = ivec3(0);
  uint summary = 0u;
  bool haveSummary = false;
  for (int n = 0; n < count;) {
    ivec3 v = o;
    // A run of voxels along x: one, or the rest of the row inside a region whose summary
    // says it can add nothing (no new flag, no wanted collision).
    int run = 1;
    bool skip = false;
    if (p.summary != 0ul) {
      ivec3 region = regionOfVoxel(seg.anchor.xyz + v, gMap.regionSize);
      if (!haveSummary || region != summaryRegion) {
        summary = regionSummary(p.summary, region);
        summaryRegion = region;
        haveSummary = true;
      }
      bool present = (summary & kSummaryInMap) != 0u;
      uint possible = present ? kCollisionInMap | ((summary & kSummaryOccupied) != 0u ? kCollisionOccupied : 0u) |
                                    ((summary & kSummaryUnobserved) != 0u ? kCollisionUnobserved : 0u)
                              : kCollisionUnobserved;
      bool mayCollide = (summary & kSummaryOccupied) != 0u ||
                        ((!present || (summary & kSummaryUnobserved) != 0u) && p.unknownCollides != 0u);
      skip = (possible & ~flags) == 0u && !(mayCollide && wanted && !found);
      if (skip) run = min(piece.hi.x, (region.x + 1) * gMap.regionSize - 1 - seg.anchor.x) - v.x + 1;
    }
    n += run;
    o.x += run;
    if (o.x > piece.hi.x) {
      o.x = piece.lo.x;
      if (++o.y > piece.hi.y) {
        o.y = piece.lo.y;
        ++o.z;
      }
    }
    if (skip) continue;
    bool inMap;
    uint cls = collisionVoxel(seg.anchor.xyz + v, p.threshold, inMap);
    if (cls == kVoxelElsewhere) continue;
    bool collides = cls == kVoxelOccupied || (cls == kVoxelUnobserved && p.unknownCollides != 0u);
    uint adds = (inMap ? kCollisionInMap : 0u) | (cls == kVoxelOccupied ? kCollisionOccupied : 0u) |
                (cls == kVoxelUnobserved ? kCollisionUnobserved : 0u);
    if (!(collides && wanted && !found) && (adds & ~flags) == 0u) continue;
    if (!segmentTouches(a, d, seg.start.w, p.radius2, p.rejectRadius2, vec3(v))) continue;
    flags |= adds;
    found = found || collides;
    if (flags == kAllPathFlags && (found || !wanted)) break;
  }
  if (flags != 0u) atomicOr(UintArray(p.flags).v[path], flags);
  if (found && wanted) atomicMin(FirstArray(p.first).v[path], s);
}

void findStart(CollisionPathPush p, CollisionPiece piece, CollisionSegment seg, uint s) {
  if (FirstArray(p.first).v[uint(seg.anchor.w)] != s) return;
  vec3 a = seg.start.xyz, d = seg.delta.xyz;
  float slack = seg.delta.w;
  // The best so far: another piece's touch start, when one has been found (it only falls,
  // and is a touch start of this segment, so skipping what cannot beat it is exact).
  uint known = atomicMin(UintArray(p.starts).v[s], kCollisionNoTouch);
  float best = known == kCollisionNoTouch ? 2.0 : uintBitsToFloat(known);
  // Layers across the segment's longest axis m, in the direction it runs: the touch starts
  // found first are small, so the bound skips most voxels after them.
  vec3 ad = abs(d);
  int m = ad.y > ad.x ? (ad.z > ad.y ? 2 : 1) : (ad.z > ad.x ? 2 : 0);
  int u = m == 0 ? 1 : 0, w2 = m == 2 ? 1 : 2;
  int step = d[m] < 0.0 ? -1 : 1;
  ivec3 lo = piece.lo.xyz, hi = piece.hi.xyz;
  ivec3 size = hi - lo + 1;
  int count = size.x * size.y * size.z;
  ivec3 o = lo;
  o[m] = step > 0 ? lo[m] : hi[m];
  for (int n = 0; n < count && best > 0.0; ++n) {
    ivec3 v = o;
    if (++o[u] > hi[u]) {
      o[u] = lo[u];
      if (++o[w2] > hi[w2]) {
        o[w2] = lo[w2];
        o[m] += step;
      }
    }
    precise vec3 w = vec3(v) + 0.5 - a;
    precise float bound = dot3(w, d) * seg.start.w - slack;
    if (bound >= best) continue;
    bool inMap;
    uint cls = collisionVoxel(seg.anchor.xyz + v, p.threshold, inMap);
    bool collides = cls == kVoxelOccupied || (cls == kVoxelUnobserved && p.unknownCollides != 0u);
    if (!collides) continue;
    float t = segmentTouchStart(a, d, seg.start.w, p.radius2, p.rejectRadius2, vec3(v));
    if (t >= 0.0) best = min(best, t);
  }
  if (best <= 1.0) atomicMin(UintArray(p.starts).v[s], floatBitsToUint(best));
}

void main() {
  uint i = voxenThreadIndex();
  CollisionPathPush p = pc;
  if (i >= p.count) return;
  queryMapBegin(p.map);
  CollisionPiece piece = PieceArray(p.pieces).v[i];
  uint s = uint(piece.lo.w);
  CollisionSegment seg = SegmentArray(p.segments).v[s];
  if (p.phase == kCollisionPathFlags)
    findFlags(p, piece, seg, s);
  else
    findStart(p, piece, seg, s);
}
