#pragma once
// What the collision and distance queries for planners take and answer (issue 38, item 2):
// spheres at points, spheres swept along polyline paths, yawed boxes at poses, and the
// nearest occupied voxel to a point. voxen/query/gpu_queries.hpp runs them on the GPU,
// voxen/query/cpu_queries.hpp holds their CPU twins; both answer bit for bit the same.
//
// Exact semantics (the map's voxels are boxes: voxel v spans [v, v + 1) * resolution):
// - A voxel is *touched* by a sphere when its box is within the radius of the centre (the
//   distance from the centre to the closest point of the box <= r; the box's faces count).
// - A path is the polyline p0, p1, ... swept by the sphere: segment k is the capsule from
//   p_k to p_k+1, a voxel touched by it when min over t in [0,1] of the distance from
//   p_k + t (p_k+1 - p_k) to its box is <= r. The answer names the first segment (in order)
//   that touches a colliding voxel and the smallest t at which it touches one. The distance
//   to a box is convex in t, so each voxel's touching set is an interval; its start is
//   found by 24 steps of bisection (after a 24-step bisection on the derivative for the
//   closest t where the segment's point nearest the voxel centre is not within r), the
//   same float operations on the CPU and the GPU.
// - An oriented box (centre, yaw about +z, full size sx, sy, sz) touches the voxels whose
//   boxes it intersects (faces included): a separating-axis test on the x, y axes and the
//   box's own two horizontal axes, plus the z interval.
// - A voxel *collides* when it is occupied (observed, log-odds at or above the model's
//   threshold), or unobserved under UnknownSpace::Occupied. A voxel of a region the map
//   does not hold is unobserved.
// - The geometry runs in float, in voxel units relative to a voxel next to the item (so a
//   map 2^29 voxels wide loses nothing); the host turns the doubles into those floats once,
//   for both twins.
//
// Status (QueryStatus, query_types.hpp) of a collision answer:
// - OutsideMap: none of the touched voxels lies in a region the map holds (the answer is
//   the unknown policy's);
// - Unobserved: a touched voxel is unobserved and no occupied voxel is touched, so the
//   answer is what the policy decided (UnknownSpace::Report: such voxels do not collide,
//   and this status says so);
// - Observed: otherwise (every touched voxel observed, or an occupied one touched).
// A path's status is over the whole path (every segment), not only up to its first
// collision.
#include <glm/vec3.hpp>

#include <cstdint>

#include "voxen/query/query_types.hpp"

namespace voxen {

// What unobserved voxels are to a collision check.
enum class UnknownSpace : uint8_t {
  Occupied,  // they collide (a careful planner's default)
  Free,      // they do not collide
  Report,    // they do not collide, and the status says Unobserved where one was touched
};

// A sphere or an oriented box at one point or pose.
struct CollisionAnswer {
  bool collides = false;
  QueryStatus status = QueryStatus::Observed;
  bool operator==(const CollisionAnswer&) const = default;
};

// A swept sphere along one path: the first colliding segment and the smallest parameter t
// in [0, 1] along it (p = p_k + t (p_k+1 - p_k)) at which the sphere touches a colliding
// voxel; segment -1 and t -1 where the path is free.
struct PathAnswer {
  bool collides = false;
  int32_t segment = -1;
  float t = -1.0f;
  QueryStatus status = QueryStatus::Observed;
  bool operator==(const PathAnswer&) const = default;
};

// An oriented box's pose: its centre (metres) and its yaw about +z (radians, from +x
// towards +y). Its size (full extents along its own x, y and world z) is given per batch.
struct BoxPose {
  glm::dvec3 centre{0.0};
  double yaw = 0.0;
};

// The nearest occupied voxel to a point within a range: the distance (metres) from the point
// to that voxel's centre, the centre itself (`obstacle`) and the unit direction from the
// point to it. Ties (equal float distances) go to the voxel first in z, then y, then x order
// of its offset from the point's voxel.
// - signedDistance is `distance` outside obstacles and, where the point's own voxel is
//   occupied, minus the distance to the nearest voxel centre that is not occupied (free or
//   unobserved), or -maxRange when none is within the range.
// - No occupied voxel within the range: distance -1, signedDistance +infinity, obstacle and
//   direction NaN, status OutOfRange (OutsideMap when no voxel within the range lies in a
//   region of the map).
// - status Unobserved: an obstacle was found but an unobserved voxel's centre is strictly
//   nearer than it (the distance is an upper bound of the true one); Observed otherwise.
// - direction is (0, 0, 0) when the point is the obstacle's centre.
struct NearestAnswer {
  double distance = -1.0;
  double signedDistance = 0.0;
  glm::dvec3 obstacle{0.0};
  glm::dvec3 direction{0.0};
  QueryStatus status = QueryStatus::OutOfRange;
  // Bit for bit, NaN fields included (both twins give the same NaN bits).
  bool operator==(const NearestAnswer& o) const;
};

// Limits on the sizes the GPU accepts (each item's loops stay bounded; lavapipe ends loops
// after 65,535 iterations): radius, nearest range and a box's half diagonal in voxels.
inline constexpr double kMaxCollisionReachVoxels = 60.0;

}  // namespace voxen
