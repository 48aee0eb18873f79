// Each voxel's distance to the nearest obstacle within 1 m, and the map read at a point.
#include <cstdio>

#include <voxen/voxen.hpp>

int main() {
  voxen::Context ctx;
  voxen::Mapper mapper = voxen::Mapper::load(ctx, "room.vxm");
  const voxen::ClearanceStats stats = mapper.computeClearance({.range = 1.0});

  const glm::dvec3 point(0.0, 1.5, 1.5);  // 0.5 m from the wall at y = 2
  const voxen::OccupancySample occupancy = mapper.occupancyAt(point);
  const std::optional<float> clearance = mapper.clearanceAt(point);
  std::printf("clearance of %llu regions in %.3f s; at (0, 1.5, 1.5): %s, %.2f m from an obstacle\n",
              (unsigned long long)stats.regions, stats.seconds,
              occupancy.voxelClass == voxen::VoxelClass::Free ? "free" : "not free", clearance.value_or(-1.0f));
  mapper.save("room-clearance.vxm");  // the clearance layer is saved with the map

  // The map's extent: the box of the voxels a ray has touched (none for an empty map).
  const std::optional<voxen::MapBounds> bounds = mapper.bounds();
  if (!bounds) return 1;
  std::printf("observed from (%.1f, %.1f, %.1f) to (%.1f, %.1f, %.1f) m\n", bounds->min.x, bounds->min.y,
              bounds->min.z, bounds->max.x, bounds->max.y, bounds->max.z);
  return clearance && *clearance > 0.3f && *clearance < 0.7f ? 0 : 1;
}
