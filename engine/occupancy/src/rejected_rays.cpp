#include "voxen/occupancy/rejected_rays.hpp"

#include <charconv>

#include <glm/geometric.hpp>

#include "voxen/host/error.hpp"

namespace voxen {

std::string pointText(const glm::dvec3& p) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "(" + temporary.
  std::string text = "(";
  text.append(formatNumber(p.x)).append(", ").append(formatNumber(p.y)).append(", ").append(formatNumber(p.z)).append(")");
  return text;
}

void noteRejectedRay(IntegrationStats& stats, uint64_t index, const Ray& ray, RayFault fault) {
  ++stats.rejectedRays;
  ++(fault == RayFault::NonFinite ? stats.rejectedNonFinite : fault == RayFault::TooFar ? stats.rejectedTooFar : stats.rejectedIntensity);
  if (!stats.firstRejected)
    stats.firstRejected = RejectedRay{index, ray, fault == RayFault::NonFinite, fault == RayFault::NonFiniteIntensity};
}

std::string rayTooLongMessage(uint64_t index, const Ray& ray, uint64_t regions, uint64_t capacity,
                              const std::string& what, const std::string& hint) {
  std::string text = "ray ";
  text.append(std::to_string(index)).append(" (origin ").append(pointText(ray.origin));
  text.append(", sample ").append(pointText(ray.sample)).append(", ");
  text.append(formatNumber(glm::length(ray.sample - ray.origin))).append(" m long) crosses ");
  text.append(std::to_string(regions)).append(" regions but ").append(what).append(" ");
  text.append(std::to_string(capacity)).append(": ").append(hint);
  return text;
}

}  // namespace voxen
