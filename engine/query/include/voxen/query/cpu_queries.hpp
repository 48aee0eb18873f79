#pragma once
// The CPU references of the batched queries (voxen/query/gpu_queries.hpp): single-threaded,
// straight from the host map, the answers the GPU must equal bit for bit. Inputs are
// checked as the GPU queries check them (QueryInputError naming the item).
#include <span>
#include <vector>

#include "voxen/query/query_types.hpp"

namespace voxen {

std::vector<OccupancyAnswer> cpuOccupancy(const OccupancyMap& map, std::span<const glm::dvec3> points);
std::vector<RayHit> cpuRaycast(const OccupancyMap& map, std::span<const QueryRay> rays, const RaycastOptions& options = {});
// Throws Error when the map has no clearance layer.
std::vector<ClearanceSample> cpuClearance(const OccupancyMap& map, std::span<const glm::dvec3> points);
BoxVoxels cpuVoxelsInBox(const OccupancyMap& map, const QueryBox& box, VoxelClass voxelClass,
                         uint64_t maxBoxVoxels = QueryOptions{}.maxBoxVoxels);

}  // namespace voxen
