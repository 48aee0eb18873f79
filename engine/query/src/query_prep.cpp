#include "voxen/query/query_prep.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <glm/geometric.hpp>

#include "voxen/map/decimal_voxel.hpp"

namespace voxen {

namespace {

bool finite(const glm::dvec3& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); }

std::string text(const glm::dvec3& p) {
  return "(" + std::to_string(p.x) + ", " + std::to_string(p.y) + ", " + std::to_string(p.z) + ")";
}

// The voxel coordinates of a point, checked to be walkable.
glm::dvec3 voxelUnits(const OccupancyModel& model, const glm::dvec3& point, size_t index, const char* what) {
  if (!finite(point)) throw QueryInputError(index, std::string(what) + " has a non-finite coordinate");
  const glm::dvec3 u = point / model.resolution;
  for (int a = 0; a < 3; ++a)
    if (!(std::abs(u[a]) < kMaxVoxelCoordinate - 2.0))
      throw QueryInputError(index, std::string(what) + " " + text(point) +
                                       " is beyond the map's voxel range (2^29 voxels from its origin)");
  return u;
}

}  // namespace

VoxelCoord queryPointVoxel(const OccupancyModel& model, const glm::dvec3& point, size_t index) {
  voxelUnits(model, point, index, "point");  // checked to be finite and within the voxel range
  // On the decimals as written: a point at z = 1.2 m lies in voxel 12 at 0.1 m, not 11.
  auto voxel = [&](double metres) { return int32_t(voxelIndexOfDecimal(metres, model.resolution)); };
  return {voxel(point.x), voxel(point.y), voxel(point.z)};
}

ClearanceCell clearanceCell(const OccupancyModel& model, const glm::dvec3& point, size_t index) {
  // Voxel centres sit at (v + 0.5) * resolution: the cell below a point starts at the
  // centre at or below it.
  const glm::dvec3 u = voxelUnits(model, point, index, "point") - 0.5;
  ClearanceCell cell;
  const glm::dvec3 lower = glm::floor(u);
  cell.lower = {int32_t(lower.x), int32_t(lower.y), int32_t(lower.z)};
  cell.fraction = glm::vec3(u - lower);
  return cell;
}

PreparedQueryRay prepareQueryRay(const OccupancyModel& model, const QueryRay& ray, size_t index) {
  if (!finite(ray.origin)) throw QueryInputError(index, "ray origin has a non-finite coordinate");
  if (!finite(ray.direction)) throw QueryInputError(index, "ray direction has a non-finite coordinate");
  if (!(ray.maxRange >= 0.0) || !std::isfinite(ray.maxRange))
    throw QueryInputError(index, "ray range " + std::to_string(ray.maxRange) + " is not a finite number >= 0");
  // Scaled by its largest component first, so that neither tiny nor huge directions
  // underflow or overflow on the way to unit length.
  const double largest = std::max({std::abs(ray.direction.x), std::abs(ray.direction.y), std::abs(ray.direction.z)});
  if (largest == 0.0) throw QueryInputError(index, "ray direction is zero (a ray needs a direction)");
  const glm::dvec3 unit = glm::normalize(ray.direction / largest);
  PreparedQueryRay r;
  r.metres.origin = ray.origin;
  r.metres.range = ray.maxRange;
  const glm::dvec3 end = ray.origin + unit * ray.maxRange;
  voxelUnits(model, ray.origin, index, "ray origin");
  voxelUnits(model, end, index, "ray end (origin + range along the direction)");
  r.metres.delta = end - ray.origin;
  Ray walked;
  walked.origin = ray.origin;
  walked.sample = end;
  r.walk = prepareRay(walked, model, IntegrationOptions{});
  return r;
}

RayHit finishRayHit(const OccupancyMap& map, const QueryRayMetres& ray, const VoxelCoord& voxel, float tEnter,
                    float value) {
  RayHit hit;
  hit.hit = true;
  hit.distance = double(tEnter) * ray.range;
  hit.point = ray.origin + ray.delta * double(tEnter);
  hit.voxel = voxel;
  hit.value = value;
  hit.voxelClass = map.classify(value);
  hit.status = hit.voxelClass == VoxelClass::Unobserved ? QueryStatus::Unobserved : QueryStatus::Observed;
  return hit;
}

RayHit missedRay(const OccupancyMap& map, const QueryRay& ray, size_t index) {
  RayHit missed;
  const VoxelCoord origin = queryPointVoxel(map.model(), ray.origin, index);
  missed.status = map.findRegion(map.regionOf(origin)) ? QueryStatus::OutOfRange : QueryStatus::OutsideMap;
  return missed;
}

BoxRange boxRange(const OccupancyModel& model, const QueryBox& box, uint64_t maxVoxels) {
  const VoxelCoord lo = queryPointVoxel(model, box.min, 0), hi = queryPointVoxel(model, box.max, 0);
  BoxRange range;
  range.lower = lo;
  const int32_t l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
  for (int a = 0; a < 3; ++a) {
    if (box.min[a] > box.max[a])
      throw QueryInputError(0, std::string("box min ") + "xyz"[a] + " " + std::to_string(box.min[a]) + " is above its max " +
                                   std::to_string(box.max[a]));
    range.dims[a] = uint64_t(int64_t(h[a]) - l[a] + 1);
  }
  if (range.dims[0] * range.dims[1] > (1ull << 32) || range.voxels() > maxVoxels)
    throw QueryInputError(0, "box of " + std::to_string(range.dims[0]) + " x " + std::to_string(range.dims[1]) + " x " +
                                 std::to_string(range.dims[2]) + " voxels is larger than the limit of " +
                                 std::to_string(maxVoxels) + " voxels (QueryOptions::maxBoxVoxels)");
  return range;
}

}  // namespace voxen
