#include "voxen/occupancy/rejected_rays.hpp"

#include <charconv>

#include <glm/geometric.hpp>

namespace voxen {

namespace {

std::string numberText(double v) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return std::string(buffer, result.ptr);
}

}  // namespace

std::string pointText(const glm::dvec3& p) {
  return "(" + numberText(p.x) + ", " + numberText(p.y) + ", " + numberText(p.z) + ")";
}

void noteRejectedRay(IntegrationStats& stats, uint64_t index, const Ray& ray, RayFault fault) {
  ++stats.rejectedRays;
  if (!stats.firstRejected) stats.firstRejected = RejectedRay{index, ray, fault == RayFault::NonFinite};
}

std::string rayTooLongMessage(uint64_t index, const Ray& ray, uint64_t regions, uint64_t capacity,
                              const std::string& what, const std::string& hint) {
  return "ray " + std::to_string(index) + " (origin " + pointText(ray.origin) + ", sample " + pointText(ray.sample) +
         ", " + numberText(glm::length(ray.sample - ray.origin)) + " m long) crosses " + std::to_string(regions) +
         " regions but " + what + " " + std::to_string(capacity) + ": " + hint;
}

}  // namespace voxen
