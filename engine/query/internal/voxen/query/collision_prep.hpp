#pragma once
// The collision queries' inputs as both twins take them (the CPU twins in cpu_collision.cpp,
// the GPU passes in gpu_collision.cpp), prepared once on the host from the caller's doubles,
// and their answers finished from the flags and floats both twins compute alike.
#include <glm/vec3.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "voxen/gpu/query/collision_shared.h"
#include "voxen/query/collision_types.hpp"

namespace voxen {

// A sphere batch: squared radius (voxel units) and the offsets tested per axis. Throws
// QueryInputError (index 0) for a radius not finite, negative or over the limit.
struct SphereParams {
  float radius2 = 0.0f;
  int reach = 0;
};
SphereParams sphereParams(const OccupancyModel& model, double radius);
gpu::CollisionProbe sphereProbe(const OccupancyModel& model, const glm::dvec3& point, size_t index);

// An oriented box: QueryInputError naming the pose (index) for a bad centre or yaw, index 0
// for a bad size (checked by checkBoxSize first).
void checkBoxSize(const OccupancyModel& model, const glm::dvec3& size);
gpu::CollisionProbe boxProbe(const OccupancyModel& model, const BoxPose& pose, const glm::dvec3& size, size_t index);

// Paths as segments and the pieces of them one invocation tests. offsets holds paths + 1
// ascending entries from 0 to points.size(); path i is points[offsets[i] .. offsets[i+1]),
// at least two points (QueryInputError naming the path otherwise).
struct PreparedPaths {
  std::vector<gpu::CollisionSegment> segments;
  std::vector<gpu::CollisionPiece> pieces;
  std::vector<uint32_t> firstSegment;  // per path, and one past the last
  float radius2 = 0.0f;
  float reject2 = 0.0f;
};
void checkPathOffsets(std::span<const glm::dvec3> points, std::span<const uint64_t> offsets);
// Prepares paths [first, last) (segments and pieces numbered from 0 for them).
PreparedPaths preparePaths(const OccupancyModel& model, std::span<const glm::dvec3> points,
                           std::span<const uint64_t> offsets, size_t first, size_t last, double radius);

// Nearest: the point's probe (anchor, local) and the search's bounds.
struct NearestParams {
  float range2 = 0.0f;
  uint32_t shells = 0;
};
NearestParams nearestParams(const OccupancyModel& model, double maxRange);
gpu::CollisionProbe nearestProbe(const OccupancyModel& model, const glm::dvec3& point, size_t index);
gpu::NearestBest nearestStart();

CollisionAnswer finishCollision(uint32_t flags, UnknownSpace unknown);
PathAnswer finishPath(uint32_t flags, std::span<const uint32_t> segmentStarts);
// From the occupied search's best and, where the point's own voxel is occupied, the
// non-occupied search's best (`inside`).
NearestAnswer finishNearest(const OccupancyModel& model, const glm::dvec3& point, const gpu::CollisionProbe& probe,
                            const gpu::NearestBest& best, const gpu::NearestBest* inside, double maxRange);

}  // namespace voxen
