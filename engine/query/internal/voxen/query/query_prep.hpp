#pragma once
// Query inputs as the walk and the passes take them: the one preparation the CPU references
// and the GPU queries share, so both start from the same integers and floats (the GPU
// then repeats the CPU's float operations; nothing else is computed twice).
#include <glm/vec3.hpp>

#include <cstddef>
#include <cstdint>

#include "voxen/occupancy/ray_walk.hpp"
#include "voxen/query/query_types.hpp"

namespace voxen {

// The voxel holding a point; throws QueryInputError for a non-finite point or one beyond the
// walk's voxel range (kMaxVoxelCoordinate).
VoxelCoord queryPointVoxel(const OccupancyModel& model, const glm::dvec3& point, size_t index);

// The 8 voxel centres around a point: the lowest one and the point's fraction of the cell
// between them (each component in [0, 1]).
struct ClearanceCell {
  VoxelCoord lower;
  glm::vec3 fraction{0.0f};
};
ClearanceCell clearanceCell(const OccupancyModel& model, const glm::dvec3& point, size_t index);

// What a hit's metres come from: the ray's origin, its end - origin and its range (kept
// apart from the walk so that the GPU queries hold 56 bytes a ray for the hits, not the
// whole prepared ray).
struct QueryRayMetres {
  glm::dvec3 origin{0.0};
  glm::dvec3 delta{0.0};  // end - origin, metres
  double range = 0.0;
};
// A ray as the walk takes it: from its origin to origin + unit(direction) * maxRange.
struct PreparedQueryRay {
  PreparedRay walk;
  QueryRayMetres metres;
};
PreparedQueryRay prepareQueryRay(const OccupancyModel& model, const QueryRay& ray, size_t index);

// The answer for a hit on `voxel`, entered at walk parameter tEnter (the CPU and the GPU
// walks give the same tEnter; the metres come from it here, in double, for both).
// The answer of a ray without a hit: OutsideMap where it starts in a region the map does
// not hold, OutOfRange otherwise (both paths call this, so the status is the same).
RayHit missedRay(const OccupancyMap& map, const QueryRay& ray, size_t index);
RayHit finishRayHit(const OccupancyMap& map, const QueryRayMetres& ray, const VoxelCoord& voxel, float tEnter,
                    float value);

// A box's voxel range: its lowest voxel and voxels per axis; throws QueryInputError (index 0)
// for non-finite or inverted bounds, or more than maxVoxels voxels.
struct BoxRange {
  VoxelCoord lower;
  uint64_t dims[3] = {0, 0, 0};
  uint64_t voxels() const { return dims[0] * dims[1] * dims[2]; }
};
BoxRange boxRange(const OccupancyModel& model, const QueryBox& box, uint64_t maxVoxels);

}  // namespace voxen
