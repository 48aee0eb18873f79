#pragma once
// The CPU references of the batched queries (voxen/query/gpu_queries.hpp): single-threaded,
// straight from the host map, the answers the GPU must equal bit for bit. Inputs are
// checked as the GPU queries check them (QueryInputError naming the item).
#include <span>
#include <vector>

#include "voxen/query/collision_types.hpp"
#include "voxen/query/query_types.hpp"

namespace voxen {

std::vector<OccupancyAnswer> cpuOccupancy(const OccupancyMap& map, std::span<const glm::dvec3> points);
std::vector<RayHit> cpuRaycast(const OccupancyMap& map, std::span<const QueryRay> rays, const RaycastOptions& options = {});
// Throws Error when the map has no clearance layer.
std::vector<ClearanceSample> cpuClearance(const OccupancyMap& map, std::span<const glm::dvec3> points);
BoxVoxels cpuVoxelsInBox(const OccupancyMap& map, const QueryBox& box, VoxelClass voxelClass,
                         uint64_t maxBoxVoxels = QueryOptions{}.maxBoxVoxels);

// The collision queries' CPU twins (GpuQueries::sphereCollisions and the others).
std::vector<CollisionAnswer> cpuSphereCollisions(const OccupancyMap& map, std::span<const glm::dvec3> points,
                                                 double radius, UnknownSpace unknown = UnknownSpace::Occupied);
std::vector<PathAnswer> cpuPathCollisions(const OccupancyMap& map, std::span<const glm::dvec3> points,
                                          std::span<const uint64_t> offsets, double radius,
                                          UnknownSpace unknown = UnknownSpace::Occupied);
std::vector<CollisionAnswer> cpuBoxCollisions(const OccupancyMap& map, std::span<const BoxPose> poses,
                                              const glm::dvec3& size, UnknownSpace unknown = UnknownSpace::Occupied);
std::vector<NearestAnswer> cpuNearestObstacles(const OccupancyMap& map, std::span<const glm::dvec3> points,
                                               double maxRange);

}  // namespace voxen
