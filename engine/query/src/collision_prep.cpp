#include "voxen/query/collision_prep.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include <glm/geometric.hpp>

#include "voxen/occupancy/ray_walk.hpp"
#include "voxen/query/collision_geometry.hpp"

namespace voxen {

namespace {

// Voxels between an item and the edge of the walkable range: room for its loops' reach.
constexpr double kEdgeRoom = 2.0 + 2.0 * kMaxCollisionReachVoxels;
// A path segment longer than this (in voxels) is refused: its pieces would be millions.
constexpr double kMaxSegmentVoxels = 1.0e5;

// The shortest text that reads back as the same number ("100", not "100.000000").
std::string num(double v) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
}

std::string text(const glm::dvec3& p) { return "(" + num(p.x) + ", " + num(p.y) + ", " + num(p.z) + ")"; }

// The point in voxel units, checked: finite and inside the map's voxel range.
glm::dvec3 units(const OccupancyModel& model, const glm::dvec3& p, size_t index, const std::string& what) {
  if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
    throw QueryInputError(index, what + " has a non-finite coordinate");
  const glm::dvec3 u = p / model.resolution;
  for (int a = 0; a < 3; ++a)
    if (!(std::abs(u[a]) < kMaxVoxelCoordinate - kEdgeRoom))
      throw QueryInputError(index, what + " " + text(p) + " is beyond the map's voxel range (2^29 voxels from its origin)");
  return u;
}

// Anchor voxel (floor) and the position relative to it, in float.
void anchorOf(const glm::dvec3& u, gpu::CollisionProbe& probe) {
  const glm::dvec3 lo = glm::floor(u);
  probe.anchor = {int32_t(lo.x), int32_t(lo.y), int32_t(lo.z), 0};
  probe.local.x = float(u.x - lo.x);
  probe.local.y = float(u.y - lo.y);
  probe.local.z = float(u.z - lo.z);
}

double checkedReach(const OccupancyModel& model, double metres, const char* what) {
  if (!std::isfinite(metres) || metres < 0.0)
    throw QueryInputError(0, std::string(what) + " " + num(metres) + " m is not a finite number >= 0");
  const double voxels = metres / model.resolution;
  if (voxels > kMaxCollisionReachVoxels)
    throw QueryInputError(0, std::string(what) + " " + num(metres) + " m is more than " + num(kMaxCollisionReachVoxels) +
                                 " voxels (" + num(kMaxCollisionReachVoxels * model.resolution) +
                                 " m at this resolution): the queries bound each item's work");
  return voxels;
}

QueryStatus collisionStatus(uint32_t flags) {
  if (!(flags & gpu::kCollisionInMap)) return QueryStatus::OutsideMap;
  if (!(flags & gpu::kCollisionOccupied) && (flags & gpu::kCollisionUnobserved)) return QueryStatus::Unobserved;
  return QueryStatus::Observed;
}

// A voxel whose centre c projects to t_c = (c - a).d / |d|^2 on a segment of length L touches
// the swept sphere of radius r only at t >= t_c - (r + sqrt(3)/2) / L: the point p(t) must
// come within r + sqrt(3)/2 of c, and (p(t) - c).d/L = (t - t_c) L. The slack adds 0.01
// voxel + 1e-5 L (the float segment's rounding is below 1e-6 L) and 1e-5 in t, far beyond
// float error, so skipping a voxel with t_c - slack >= a touch start already found never
// skips a smaller one. Zero length: 1e30 (never skips).
float touchStartSlack(double radiusVoxels, double length) {
  if (!(length > 0.0)) return 1.0e30f;
  return float((radiusVoxels + 0.8661 + 0.01 + 1.0e-5 * length) / length + 1.0e-5);
}

// A segment's pieces: slabs of kCollisionPieceVoxels voxels across its longest axis m, each
// with the box (other axes) of the part of the segment that can touch a voxel of the slab,
// widened by the radius. Disjoint, so every voxel is tested once per segment; together they
// hold every voxel the swept sphere touches: such a voxel v has a point p(t) with
// p_i(t) in [v_i - r, v_i + 1 + r] on every axis (the margins add 0.05 voxel for the
// float segment's rounding).
int32_t& axis(gpu::ivec4& v, int i) { return i == 0 ? v.x : (i == 1 ? v.y : v.z); }

void addSlabPieces(const glm::dvec3& a, const glm::dvec3& delta, double r, uint32_t segment,
                   std::vector<gpu::CollisionPiece>& pieces) {
  const double below = r + 1.05, above = r + 0.05;
  int m = 0;
  for (int i = 1; i < 3; ++i)
    if (std::abs(delta[i]) > std::abs(delta[m])) m = i;
  const glm::dvec3 b = a + delta;
  const int first = int(std::floor(std::min(a[m], b[m]) - below)), last = int(std::floor(std::max(a[m], b[m]) + above));
  const int width = int(gpu::kCollisionPieceVoxels);
  for (int s0 = first; s0 <= last; s0 += width) {
    const int s1 = std::min(s0 + width - 1, last);
    double t0 = 0.0, t1 = 1.0;
    if (delta[m] != 0.0) {
      // Where p_m(t) lies in [s0 - r - margin, s1 + 1 + r + margin].
      const double u0 = (double(s0) - r - 0.05 - a[m]) / delta[m], u1 = (double(s1) + 1.0 + r + 0.05 - a[m]) / delta[m];
      t0 = std::max(0.0, std::min(u0, u1));
      t1 = std::min(1.0, std::max(u0, u1));
      if (t0 > t1) continue;  // no point of the segment comes near the slab
    }
    const glm::dvec3 p0 = a + delta * t0, p1 = a + delta * t1;
    const glm::dvec3 lo = glm::floor(glm::min(p0, p1) - below), hi = glm::floor(glm::max(p0, p1) + above);
    gpu::CollisionPiece piece{{int32_t(lo.x), int32_t(lo.y), int32_t(lo.z), int32_t(segment)},
                              {int32_t(hi.x), int32_t(hi.y), int32_t(hi.z), 0}};
    axis(piece.lo, m) = s0;
    axis(piece.hi, m) = s1;
    pieces.push_back(piece);
  }
}

bool sameBits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

}  // namespace

bool NearestAnswer::operator==(const NearestAnswer& o) const {
  for (int a = 0; a < 3; ++a)
    if (!sameBits(obstacle[a], o.obstacle[a]) || !sameBits(direction[a], o.direction[a])) return false;
  return sameBits(distance, o.distance) && sameBits(signedDistance, o.signedDistance) && status == o.status;
}

SphereParams sphereParams(const OccupancyModel& model, double radius) {
  const double voxels = checkedReach(model, radius, "radius");
  const float r = float(voxels);
  return {r * r, int(std::ceil(voxels)) + 1};
}

gpu::CollisionProbe sphereProbe(const OccupancyModel& model, const glm::dvec3& point, size_t index) {
  gpu::CollisionProbe probe{};
  anchorOf(units(model, point, index, "point " + std::to_string(index)), probe);
  return probe;
}

void checkBoxSize(const OccupancyModel& model, const glm::dvec3& size) {
  for (int a = 0; a < 3; ++a)
    if (!std::isfinite(size[a]) || size[a] < 0.0)
      throw QueryInputError(0, std::string("box size ") + "xyz"[a] + " " + num(size[a]) + " m is not a finite number >= 0");
  const glm::dvec3 half = size * 0.5 / model.resolution;
  if (half.x + half.y > kMaxCollisionReachVoxels || half.z > kMaxCollisionReachVoxels)
    throw QueryInputError(0, "box size " + text(size) + " m reaches more than " + num(kMaxCollisionReachVoxels) +
                                 " voxels from its centre: the queries bound each item's work");
}

gpu::CollisionProbe boxProbe(const OccupancyModel& model, const BoxPose& pose, const glm::dvec3& size, size_t index) {
  gpu::CollisionProbe probe{};
  anchorOf(units(model, pose.centre, index, "pose " + std::to_string(index) + " centre"), probe);
  if (!std::isfinite(pose.yaw)) throw QueryInputError(index, "pose " + std::to_string(index) + " yaw is not finite");
  const glm::dvec3 half = size * 0.5 / model.resolution;
  const double c = std::cos(pose.yaw), s = std::sin(pose.yaw);
  const double ac = std::abs(c), as = std::abs(s);
  // The box's x-y extents along the world axes, and a voxel's half width along the box's axes.
  const double ex = ac * half.x + as * half.y, ey = as * half.x + ac * half.y, k = 0.5 * (ac + as);
  probe.local.w = float(c);
  probe.bounds = {float(s), float(ex + 0.5), float(ey + 0.5), 0.0f};
  probe.axes = {float(half.x + k), float(half.y + k), float(half.z + 0.5), 0.0f};
  return probe;
}

void checkPathOffsets(std::span<const glm::dvec3> points, std::span<const uint64_t> offsets) {
  if (offsets.empty() || offsets.front() != 0 || offsets.back() != points.size())
    throw QueryInputError(0, "path offsets must start at 0 and end at the number of points (" +
                                 std::to_string(points.size()) + "), one more entry than paths");
  for (size_t i = 0; i + 1 < offsets.size(); ++i)
    if (offsets[i + 1] < offsets[i] || offsets[i + 1] - offsets[i] < 2)
      throw QueryInputError(i, "path " + std::to_string(i) + " has " +
                                   std::to_string(offsets[i + 1] < offsets[i] ? 0 : offsets[i + 1] - offsets[i]) +
                                   " point(s): a path needs at least two");
}

PreparedPaths preparePaths(const OccupancyModel& model, std::span<const glm::dvec3> points,
                           std::span<const uint64_t> offsets, size_t first, size_t last, double radius) {
  const double rv = checkedReach(model, radius, "radius");
  PreparedPaths out;
  const float r = float(rv);
  out.radius2 = r * r;
  const double reject = rv + 0.8661 + 0.01;  // radius + half a voxel's diagonal + margin
  out.reject2 = float(reject * reject);
  for (size_t path = first; path < last; ++path) {
    out.firstSegment.push_back(uint32_t(out.segments.size()));
    for (uint64_t j = offsets[path]; j + 1 < offsets[path + 1]; ++j) {
      const std::string name = "path " + std::to_string(path) + " point ";
      const glm::dvec3 ua = units(model, points[j], path, name + std::to_string(j - offsets[path]));
      const glm::dvec3 ub = units(model, points[j + 1], path, name + std::to_string(j + 1 - offsets[path]));
      const glm::dvec3 delta = ub - ua;
      const double length = glm::length(delta);
      if (length > kMaxSegmentVoxels)
        throw QueryInputError(path, "path " + std::to_string(path) + " segment " + std::to_string(j - offsets[path]) +
                                        " is longer than " + num(kMaxSegmentVoxels) + " voxels");
      gpu::CollisionProbe anchored{};
      anchorOf(ua, anchored);
      const uint32_t segment = uint32_t(out.segments.size());
      gpu::CollisionSegment seg{};
      seg.anchor = anchored.anchor;
      seg.anchor.w = int32_t(path - first);
      seg.start = anchored.local;
      const glm::dvec3 lo = glm::floor(ua);
      const glm::dvec3 bLocal = ub - lo, aLocal = ua - lo;
      const collision::V3 d{float(bLocal.x - aLocal.x), float(bLocal.y - aLocal.y), float(bLocal.z - aLocal.z)};
      const float length2 = collision::dot3(d, d);
      seg.start.w = length2 > 0.0f ? 1.0f / length2 : 0.0f;
      seg.delta = {d.x, d.y, d.z, touchStartSlack(rv, length)};
      out.segments.push_back(seg);
      addSlabPieces(aLocal, delta, rv, segment, out.pieces);
    }
  }
  out.firstSegment.push_back(uint32_t(out.segments.size()));
  return out;
}

NearestParams nearestParams(const OccupancyModel& model, double maxRange) {
  const double voxels = checkedReach(model, maxRange, "nearest max range");
  const float r = float(voxels);
  return {r * r, uint32_t(std::ceil(voxels + 0.5)) + 2};
}

gpu::CollisionProbe nearestProbe(const OccupancyModel& model, const glm::dvec3& point, size_t index) {
  return sphereProbe(model, point, index);
}

gpu::NearestBest nearestStart() { return {0x7f800000u, 0xFFFFFFFFu, 0x7f800000u, 0u}; }

CollisionAnswer finishCollision(uint32_t flags, UnknownSpace unknown) {
  CollisionAnswer a;
  a.collides = (flags & gpu::kCollisionOccupied) ||
               (unknown == UnknownSpace::Occupied && (flags & gpu::kCollisionUnobserved));
  a.status = collisionStatus(flags);
  return a;
}

PathAnswer finishPath(uint32_t flags, std::span<const uint32_t> segmentStarts) {
  PathAnswer a;
  a.status = collisionStatus(flags);
  for (size_t j = 0; j < segmentStarts.size(); ++j)
    if (segmentStarts[j] != gpu::kCollisionNoTouch) {
      a.collides = true;
      a.segment = int32_t(j);
      a.t = std::bit_cast<float>(segmentStarts[j]);
      break;
    }
  return a;
}

namespace {

glm::dvec3 centreOf(const OccupancyModel& model, const gpu::CollisionProbe& probe, uint32_t code) {
  const int span = gpu::kNearestCodeSpan;
  const int x = int(code % span) - 64, y = int(code / span % span) - 64, z = int(code / span / span) - 64;
  return (glm::dvec3(probe.anchor.x + x, probe.anchor.y + y, probe.anchor.z + z) + 0.5) * model.resolution;
}

}  // namespace

NearestAnswer finishNearest(const OccupancyModel& model, const glm::dvec3& point, const gpu::CollisionProbe& probe,
                            const gpu::NearestBest& best, const gpu::NearestBest* inside, double maxRange) {
  NearestAnswer a;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (!(best.flags & gpu::kNearestFound)) {
    a.distance = -1.0;
    a.signedDistance = std::numeric_limits<double>::infinity();
    a.obstacle = glm::dvec3(nan);
    a.direction = glm::dvec3(nan);
    a.status = (best.flags & gpu::kNearestInMap) ? QueryStatus::OutOfRange : QueryStatus::OutsideMap;
    return a;
  }
  a.obstacle = centreOf(model, probe, best.code);
  const glm::dvec3 towards = a.obstacle - point;
  a.distance = glm::length(towards);
  a.direction = a.distance > 0.0 ? towards / a.distance : glm::dvec3(0.0);
  a.signedDistance = a.distance;
  if (best.flags & gpu::kNearestOwnOccupied)
    a.signedDistance = inside && (inside->flags & gpu::kNearestFound)
                           ? -glm::length(centreOf(model, probe, inside->code) - point)
                           : -maxRange;
  a.status = best.unobservedBits < best.distance2Bits ? QueryStatus::Unobserved : QueryStatus::Observed;
  return a;
}

}  // namespace voxen
