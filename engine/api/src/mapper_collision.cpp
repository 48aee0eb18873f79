// The Mapper's collision and distance queries (issue 38, item 2): as occupancy() and
// raycast() in mapper.cpp, small batches (run.hostQueryVoxels) and the CPU reference backend
// on the CPU twins, the rest on the GPU queries; the answers are the same bit for bit.
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "mapper_impl.hpp"
#include "query_reads.hpp"
#include "voxen/mapper.hpp"
#include "voxen/query/cpu_queries.hpp"

namespace voxen {

namespace {

// Voxels an item within `reach` metres of its point reads at most: a cube of that reach.
uint64_t cubeReads(double resolution, double reach) {
  if (!std::isfinite(reach) || reach < 0.0) return UINT64_MAX;  // refused by the query itself
  const double side = std::min(2.0 * reach / resolution + 3.0, 1.0e6);
  return uint64_t(side * side * side);
}

}  // namespace

std::vector<CollisionAnswer> Mapper::sphereCollisions(std::span<const glm::dvec3> points, double radius,
                                                      UnknownSpace unknown) {
  const uint64_t limit = impl_->run.hostQueryVoxels;
  if (impl_->queryOnHost(pointReads(points.size(), cubeReads(impl_->map.model().resolution, radius), limit)))
    return cpuSphereCollisions(map(), points, radius, unknown);
  return impl_->queries().sphereCollisions(points, radius, unknown);
}

std::vector<CollisionAnswer> Mapper::boxCollisions(std::span<const BoxPose> poses, const glm::dvec3& size,
                                                   UnknownSpace unknown) {
  const uint64_t limit = impl_->run.hostQueryVoxels;
  const double reach = 0.5 * std::max({std::hypot(size.x, size.y), size.z});
  if (impl_->queryOnHost(pointReads(poses.size(), cubeReads(impl_->map.model().resolution, reach), limit)))
    return cpuBoxCollisions(map(), poses, size, unknown);
  return impl_->queries().boxCollisions(poses, size, unknown);
}

std::vector<PathAnswer> Mapper::pathCollisions(std::span<const glm::dvec3> points, std::span<const uint64_t> offsets,
                                               double radius, UnknownSpace unknown) {
  const uint64_t limit = impl_->run.hostQueryVoxels;
  const double resolution = impl_->map.model().resolution;
  // A segment reads about its length times the sphere's cross-section, in voxels.
  uint64_t reads = 0;
  const double across = cubeReads(resolution, radius) == UINT64_MAX ? 1.0e18 : std::pow(2.0 * radius / resolution + 3.0, 2.0);
  for (size_t i = 1; i < points.size() && reads <= limit; ++i) {
    const double length = glm::length(points[i] - points[i - 1]) / resolution + 1.0;
    reads += std::isfinite(length) ? uint64_t(std::min(length * across, 1.0e18)) : limit + 1;
  }
  if (impl_->queryOnHost(reads)) return cpuPathCollisions(map(), points, offsets, radius, unknown);
  return impl_->queries().pathCollisions(points, offsets, radius, unknown);
}

std::vector<NearestAnswer> Mapper::nearestObstacles(std::span<const glm::dvec3> points, double maxRange) {
  const uint64_t limit = impl_->run.hostQueryVoxels;
  if (impl_->queryOnHost(pointReads(points.size(), cubeReads(impl_->map.model().resolution, maxRange), limit)))
    return cpuNearestObstacles(map(), points, maxRange);
  return impl_->queries().nearestObstacles(points, maxRange);
}

}  // namespace voxen
