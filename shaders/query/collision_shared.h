// The collision and distance queries (engine/query/src/gpu_collision.cpp, the CPU twins in
// cpu_collision.cpp): the records the host prepares once for both twins and the passes'
// push constants, one definition for C++ ("voxen/gpu/query/collision_shared.h") and GLSL.
// Geometry is in voxel units relative to each item's anchor voxel (collision_types.hpp).
#ifndef VOXEN_QUERY_COLLISION_SHARED_H
#define VOXEN_QUERY_COLLISION_SHARED_H

#include "../common/shared.h"
#include "query_shared.h"

VOXEN_SHARED_BEGIN

// Per item flags, ORed over the voxels it touches (and over a path's segments and the
// chunks of regions).
VOXEN_CONST(uint, kCollisionOccupied, 1u)    // an occupied voxel is touched
VOXEN_CONST(uint, kCollisionUnobserved, 2u)  // an unobserved voxel is touched
VOXEN_CONST(uint, kCollisionInMap, 4u)       // a touched voxel lies in a region of the map
// Per nearest item.
VOXEN_CONST(uint, kNearestOwnOccupied, 1u)   // the point's own voxel is occupied
VOXEN_CONST(uint, kNearestInMap, 2u)         // a voxel within the range lies in the map
VOXEN_CONST(uint, kNearestFound, 4u)         // a target voxel lies within the range
// A path segment's start t before any touch (any float t in [0, 1] has smaller bits).
VOXEN_CONST(uint, kCollisionNoTouch, 0xFFFFFFFFu)
// Bisection steps for a segment's closest t and for a touch's start.
VOXEN_CONST(int, kCollisionBisections, 24)
// A path piece (one invocation) covers about this many voxels of its segment.
VOXEN_CONST(float, kCollisionPieceVoxels, 8.0f)

// A sphere's point or a box's pose. Sphere: anchor, local (w unused). Box: local.w cos yaw,
// bounds = (sin yaw, |dx| bound, |dy| bound, unused), axes = (bound along the box's x, along
// its y, |dz| bound, unused) where d is a voxel centre minus the box centre.
struct CollisionProbe {
  ivec4 anchor;   // the voxel holding the item (w unused)
  vec4 local;     // the item's position - anchor, voxel units
  vec4 bounds;
  vec4 axes;
};
VOXEN_SHARED_ASSERT(sizeof(CollisionProbe) == 64)

// One path segment p(t) = start + t delta, relative to its anchor voxel.
struct CollisionSegment {
  ivec4 anchor;   // the voxel holding the segment's start; w: its path
  vec4 start;     // w: 1 / |delta|^2 (0 for a zero-length segment)
  vec4 delta;     // w: the touch-start slack (collision_prep.cpp): no voxel whose centre
                  // projects to t_c touches before t_c - slack (1e30 for a zero-length segment)
};
VOXEN_SHARED_ASSERT(sizeof(CollisionSegment) == 48)

// One invocation's part of a segment: the voxel offsets (from the anchor) it tests. A
// segment's pieces are disjoint slabs across its longest axis, so each voxel is tested once.
struct CollisionPiece {
  ivec4 lo;       // w: the segment
  ivec4 hi;       // inclusive; w unused
};
VOXEN_SHARED_ASSERT(sizeof(CollisionPiece) == 32)

struct CollisionProbePush {
  QueryMapPush map;
  VOXEN_ADDRESS probes;   // CollisionProbe per item
  VOXEN_ADDRESS flags;    // uint per item (ORed)
  uint count;
  uint box;               // 0 sphere, 1 oriented box
  float radius2;          // sphere: radius^2, voxel units
  int reach;              // sphere: offsets -reach .. reach tested per axis
  float threshold;
  uint pad0;
};
VOXEN_SHARED_ASSERT(sizeof(CollisionProbePush) == 96)

// The path pass runs twice over all chunks: phase 0 ORs each path's flags and finds its
// first colliding segment (atomicMin of the segment's index; a touch test, no touch start),
// phase 1 finds the smallest touch start of that one segment per path.
VOXEN_CONST(uint, kCollisionPathFlags, 0u)
VOXEN_CONST(uint, kCollisionPathStarts, 1u)

struct CollisionPathPush {
  QueryMapPush map;
  VOXEN_ADDRESS segments; // CollisionSegment per segment
  VOXEN_ADDRESS pieces;   // CollisionPiece per invocation
  VOXEN_ADDRESS starts;   // uint per segment: the smallest touch start's bits (atomicMin)
  VOXEN_ADDRESS flags;    // uint per path (atomicOr)
  VOXEN_ADDRESS first;    // uint per path: its first colliding segment's index (atomicMin)
  uint count;             // pieces
  uint unknownCollides;   // 1: unobserved voxels collide
  float radius2;
  float rejectRadius2;    // (radius + half a voxel diagonal + margin)^2: farther centres cannot touch
  float threshold;
  uint phase;             // kCollisionPathFlags or kCollisionPathStarts
  VOXEN_ADDRESS summary;  // region summaries (below), or 0: none
};
VOXEN_SHARED_ASSERT(sizeof(CollisionPathPush) == 128)

// Region summaries for the path pass's first phase, which skips the voxels of a region that
// can add no flag and no wanted collision: words 0-2 the grid's lowest region, 3-5 regions
// per axis, then a word per region (x fastest): 0 not in the map, else kSummaryInMap with
// kSummaryOccupied / kSummaryUnobserved where the region has such a voxel.
VOXEN_CONST(uint, kSummaryInMap, 1u)
VOXEN_CONST(uint, kSummaryOccupied, 2u)
VOXEN_CONST(uint, kSummaryUnobserved, 4u)
VOXEN_CONST(uint, kSummaryHeaderWords, 8u)

// The nearest target voxel so far of a point: its squared distance's bits, its offset code
// (z, y, x order), the squared distance of the nearest unobserved voxel centre, flags.
struct NearestBest {
  uint distance2Bits;
  uint code;
  uint unobservedBits;
  uint flags;
};
VOXEN_SHARED_ASSERT(sizeof(NearestBest) == 16)
VOXEN_CONST(int, kNearestCodeSpan, 129)  // offsets -64 .. 64 per axis

// The GPU's nearest search visits voxel offsets in the order of a table (NearestPush.offsets)
// sorted by a lower bound on their centre's squared distance from any point of the anchor
// voxel, sum over axes of max(0, |o| - 1/2)^2 (exact in float, and no float distance the
// pass computes is below it), and stops at the first bound beyond the best found or the
// range: every voxel the CPU twin's Chebyshev shells could find nearer is visited, with far
// fewer than the shells' cube. Entry: x (offset x + 64) | (y + 64) << 8 | (z + 64) << 16,
// y the bound's float bits.
struct NearestPush {
  QueryMapPush map;
  VOXEN_ADDRESS probes;   // CollisionProbe per point (anchor, local)
  VOXEN_ADDRESS best;     // NearestBest per point, read and improved per chunk
  uint count;
  uint targetOccupied;    // 1: occupied voxels; 0: voxels not occupied
  float range2;           // max range^2, voxel units
  uint shells;            // Chebyshev shells searched at most (the CPU twin's walk)
  float threshold;
  uint offsetCount;       // entries in offsets
  VOXEN_ADDRESS offsets;  // uvec2 per offset, sorted by bound (then offset code)
};
VOXEN_SHARED_ASSERT(sizeof(NearestPush) == 104)

VOXEN_SHARED_END

#endif
