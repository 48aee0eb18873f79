#pragma once
// What both integrators say about rays they cannot take: the skipped ones are counted (the
// first kept with its index), and one crossing more regions than fit is an error naming it.
#include <cstdint>
#include <string>

#include "voxen/map/ray.hpp"
#include "voxen/occupancy/integration_stats.hpp"
#include "voxen/occupancy/ray_walk.hpp"

namespace voxen {

void noteRejectedRay(IntegrationStats& stats, uint64_t index, const Ray& ray, RayFault fault);

// "ray 12 (origin (...), sample (...), 3000 m long) crosses 9000 regions but <what> 512: <hint>"
std::string rayTooLongMessage(uint64_t index, const Ray& ray, uint64_t regions, uint64_t capacity,
                              const std::string& what, const std::string& hint);

// "(x, y, z)" with each coordinate in the shortest round-tripping form.
std::string pointText(const glm::dvec3& p);

}  // namespace voxen
