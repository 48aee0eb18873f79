// The CPU twins of the collision and distance queries (collision_types.hpp): the GPU passes'
// loops (shaders/query/query_collision_*.comp, query_nearest.comp) on one thread, over the
// whole map at once, with the same per-voxel geometry (collision_geometry.hpp) and the
// same prepared inputs (collision_prep.hpp), so the answers are the GPU's bit for bit.
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "voxen/query/collision_geometry.hpp"
#include "voxen/query/collision_prep.hpp"
#include "voxen/query/cpu_queries.hpp"

namespace voxen {

namespace {

using collision::V3;

enum class Cls { Free, Occupied, Unobserved };

// A voxel's class, remembering the last region looked up (the items' voxels cluster).
class ClassReader {
 public:
  explicit ClassReader(const OccupancyMap& map) : map_(map), threshold_(map.model().thresholdValue()) {}
  Cls read(const VoxelCoord& v, bool& inMap) {
    const RegionKey key = map_.regionOf(v);
    if (!valid_ || !(key == key_)) {
      key_ = key;
      region_ = map_.findRegion(key);
      valid_ = true;
    }
    inMap = region_ != nullptr;
    if (!region_) return Cls::Unobserved;
    const float value = region_->occupancy()[map_.localIndex(v)];
    if (!isObserved(value)) return Cls::Unobserved;
    return value >= threshold_ ? Cls::Occupied : Cls::Free;
  }

 private:
  const OccupancyMap& map_;
  float threshold_;
  RegionKey key_;
  const Region* region_ = nullptr;
  bool valid_ = false;
};

uint32_t flagsOf(Cls cls, bool inMap) {
  return (inMap ? gpu::kCollisionInMap : 0u) | (cls == Cls::Occupied ? gpu::kCollisionOccupied : 0u) |
         (cls == Cls::Unobserved ? gpu::kCollisionUnobserved : 0u);
}

constexpr uint32_t kAllFlags = gpu::kCollisionOccupied | gpu::kCollisionUnobserved | gpu::kCollisionInMap;

// query_collision_probe.comp's loop for one item.
uint32_t probeFlags(ClassReader& reader, const gpu::CollisionProbe& probe, bool box, const SphereParams& sphere) {
  int lo[3], hi[3];
  const float local[3] = {probe.local.x, probe.local.y, probe.local.z};
  const float bound[3] = {probe.bounds.y, probe.bounds.z, probe.axes.z};
  for (int a = 0; a < 3; ++a) {
    lo[a] = box ? int(std::floor(local[a] - bound[a])) - 1 : -sphere.reach;
    hi[a] = box ? int(std::floor(local[a] + bound[a])) + 1 : sphere.reach;
  }
  const V3 f{probe.local.x, probe.local.y, probe.local.z};
  uint32_t flags = 0;
  for (int z = lo[2]; z <= hi[2] && flags != kAllFlags; ++z)
    for (int y = lo[1]; y <= hi[1] && flags != kAllFlags; ++y)
      for (int x = lo[0]; x <= hi[0] && flags != kAllFlags; ++x) {
        const V3 o{float(x), float(y), float(z)};
        const bool touches =
            box ? collision::orientedBoxTouches(probe, o) : collision::pointBoxDistance2(f, o) <= sphere.radius2;
        if (!touches) continue;
        bool inMap;
        const Cls cls = reader.read({probe.anchor.x + x, probe.anchor.y + y, probe.anchor.z + z}, inMap);
        flags |= flagsOf(cls, inMap);
      }
  return flags;
}

}  // namespace

std::vector<CollisionAnswer> cpuSphereCollisions(const OccupancyMap& map, std::span<const glm::dvec3> points,
                                                 double radius, UnknownSpace unknown) {
  const SphereParams sphere = sphereParams(map.model(), radius);
  ClassReader reader(map);
  std::vector<CollisionAnswer> answers(points.size());
  for (size_t i = 0; i < points.size(); ++i)
    answers[i] = finishCollision(probeFlags(reader, sphereProbe(map.model(), points[i], i), false, sphere), unknown);
  return answers;
}

std::vector<CollisionAnswer> cpuBoxCollisions(const OccupancyMap& map, std::span<const BoxPose> poses,
                                              const glm::dvec3& size, UnknownSpace unknown) {
  checkBoxSize(map.model(), size);
  ClassReader reader(map);
  std::vector<CollisionAnswer> answers(poses.size());
  for (size_t i = 0; i < poses.size(); ++i)
    answers[i] = finishCollision(probeFlags(reader, boxProbe(map.model(), poses[i], size, i), true, {}), unknown);
  return answers;
}

namespace {

// The flags one piece adds (query_collision_path.comp, phase kCollisionPathFlags); `found`
// says whether it touches a colliding voxel, looked for only when `wanted`.
uint32_t pieceFlags(ClassReader& reader, const gpu::CollisionPiece& piece, const gpu::CollisionSegment& seg,
                    const PreparedPaths& prepared, bool unknownCollides, bool wanted, bool& found) {
  const V3 a{seg.start.x, seg.start.y, seg.start.z}, d{seg.delta.x, seg.delta.y, seg.delta.z};
  uint32_t flags = 0;
  found = false;
  for (int z = piece.lo.z; z <= piece.hi.z; ++z)
    for (int y = piece.lo.y; y <= piece.hi.y; ++y) {
      for (int x = piece.lo.x; x <= piece.hi.x; ++x) {
        bool inMap;
        const Cls cls = reader.read({seg.anchor.x + x, seg.anchor.y + y, seg.anchor.z + z}, inMap);
        const bool collides = cls == Cls::Occupied || (cls == Cls::Unobserved && unknownCollides);
        const uint32_t adds = flagsOf(cls, inMap);
        if (!(collides && wanted && !found) && (adds & ~flags) == 0u) continue;
        if (!collision::segmentTouches(a, d, seg.start.w, prepared.radius2, prepared.reject2,
                                       {float(x), float(y), float(z)}))
          continue;
        flags |= adds;
        found = found || collides;
      }
      if (flags == kAllFlags && (found || !wanted)) return flags;
    }
  return flags;
}

// The smallest touch start (its bits) of a colliding voxel of one piece (phase
// kCollisionPathStarts), every colliding voxel's computed: the reference the GPU's skips
// (lower bounds) must match.
uint32_t pieceStart(ClassReader& reader, const gpu::CollisionPiece& piece, const gpu::CollisionSegment& seg,
                    const PreparedPaths& prepared, bool unknownCollides) {
  const V3 a{seg.start.x, seg.start.y, seg.start.z}, d{seg.delta.x, seg.delta.y, seg.delta.z};
  uint32_t best = gpu::kCollisionNoTouch;
  for (int z = piece.lo.z; z <= piece.hi.z; ++z)
    for (int y = piece.lo.y; y <= piece.hi.y; ++y)
      for (int x = piece.lo.x; x <= piece.hi.x; ++x) {
        bool inMap;
        const Cls cls = reader.read({seg.anchor.x + x, seg.anchor.y + y, seg.anchor.z + z}, inMap);
        if (!(cls == Cls::Occupied || (cls == Cls::Unobserved && unknownCollides))) continue;
        const float t = collision::segmentTouchStart(a, d, seg.start.w, prepared.radius2, prepared.reject2,
                                                     {float(x), float(y), float(z)});
        if (t >= 0.0f) best = std::min(best, std::bit_cast<uint32_t>(t));
      }
  return best;
}

}  // namespace

std::vector<PathAnswer> cpuPathCollisions(const OccupancyMap& map, std::span<const glm::dvec3> points,
                                          std::span<const uint64_t> offsets, double radius, UnknownSpace unknown) {
  checkPathOffsets(points, offsets);
  const size_t paths = offsets.size() - 1;
  const PreparedPaths prepared = preparePaths(map.model(), points, offsets, 0, paths, radius);
  ClassReader reader(map);
  std::vector<uint32_t> starts(prepared.segments.size(), gpu::kCollisionNoTouch), flags(paths, 0u);
  const bool unknownCollides = unknown == UnknownSpace::Occupied;
  // The GPU's two phases, path by path in segment order (the pieces are in that order): the
  // flags of every segment and the first colliding one, then that segment's touch start.
  size_t pieceIndex = 0;
  for (size_t p = 0; p < paths; ++p) {
    uint32_t first = gpu::kCollisionNoTouch;
    size_t firstPieces = 0, firstPiecesEnd = 0;
    for (; pieceIndex < prepared.pieces.size() && prepared.pieces[pieceIndex].lo.w < int32_t(prepared.firstSegment[p + 1]);
         ++pieceIndex) {
      const gpu::CollisionPiece& piece = prepared.pieces[pieceIndex];
      const uint32_t s = uint32_t(piece.lo.w);
      if (s == first) firstPiecesEnd = pieceIndex + 1;
      bool found;
      flags[p] |= pieceFlags(reader, piece, prepared.segments[s], prepared, unknownCollides, s < first, found);
      if (found && s < first) {
        first = s;
        firstPieces = pieceIndex;
        while (firstPieces > 0 && prepared.pieces[firstPieces - 1].lo.w == piece.lo.w) --firstPieces;
        firstPiecesEnd = pieceIndex + 1;
      }
    }
    for (size_t k = firstPieces; k < firstPiecesEnd; ++k)
      starts[first] = std::min(starts[first], pieceStart(reader, prepared.pieces[k], prepared.segments[first], prepared,
                                                         unknownCollides));
  }
  std::vector<PathAnswer> answers(paths);
  for (size_t p = 0; p < paths; ++p)
    answers[p] = finishPath(flags[p], std::span<const uint32_t>(starts).subspan(
                                          prepared.firstSegment[p], prepared.firstSegment[p + 1] - prepared.firstSegment[p]));
  return answers;
}

namespace {

// query_nearest.comp's search for one point over the whole map.
gpu::NearestBest nearestSearch(ClassReader& reader, const gpu::CollisionProbe& probe, const NearestParams& params,
                               bool targetOccupied) {
  gpu::NearestBest best = nearestStart();
  const V3 f{probe.local.x, probe.local.y, probe.local.z};
  for (int k = 0; k < int(params.shells); ++k) {
    const float bound = k == 0 ? 0.0f : float(k) - 0.5f;
    const float bound2 = bound * bound;
    if (bound2 > params.range2) break;
    if ((best.flags & gpu::kNearestFound) && bound2 > std::bit_cast<float>(best.distance2Bits)) break;
    for (int z = -k; z <= k; ++z)
      for (int y = -k; y <= k; ++y) {
        const bool face = z == -k || z == k || y == -k || y == k;
        const int step = face ? 1 : std::max(2 * k, 1);
        for (int x = -k; x <= k; x += step) {
          const V3 d{(float(x) + 0.5f) - f.x, (float(y) + 0.5f) - f.y, (float(z) + 0.5f) - f.z};
          const float d2 = collision::dot3(d, d);
          if (d2 > params.range2) continue;
          bool inMap;
          const Cls cls = reader.read({probe.anchor.x + x, probe.anchor.y + y, probe.anchor.z + z}, inMap);
          if (inMap) best.flags |= gpu::kNearestInMap;
          if (k == 0 && cls == Cls::Occupied) best.flags |= gpu::kNearestOwnOccupied;
          const uint32_t bits = std::bit_cast<uint32_t>(d2);
          if (cls == Cls::Unobserved) best.unobservedBits = std::min(best.unobservedBits, bits);
          const bool target = targetOccupied ? cls == Cls::Occupied : cls != Cls::Occupied;
          if (!target) continue;
          const uint32_t code = uint32_t(((z + 64) * gpu::kNearestCodeSpan + (y + 64)) * gpu::kNearestCodeSpan + (x + 64));
          if (!(best.flags & gpu::kNearestFound) || bits < best.distance2Bits ||
              (bits == best.distance2Bits && code < best.code)) {
            best.distance2Bits = bits;
            best.code = code;
            best.flags |= gpu::kNearestFound;
          }
        }
      }
  }
  return best;
}

}  // namespace

std::vector<NearestAnswer> cpuNearestObstacles(const OccupancyMap& map, std::span<const glm::dvec3> points,
                                               double maxRange) {
  const NearestParams params = nearestParams(map.model(), maxRange);
  ClassReader reader(map);
  std::vector<NearestAnswer> answers(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const gpu::CollisionProbe probe = nearestProbe(map.model(), points[i], i);
    const gpu::NearestBest best = nearestSearch(reader, probe, params, true);
    gpu::NearestBest inside{};
    const bool own = best.flags & gpu::kNearestOwnOccupied;
    if (own) inside = nearestSearch(reader, probe, params, false);
    answers[i] = finishNearest(map.model(), points[i], probe, best, own ? &inside : nullptr, maxRange);
  }
  return answers;
}

}  // namespace voxen
