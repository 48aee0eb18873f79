// A planner's questions, in batches on the GPU: is a point free, how far is the nearest
// obstacle (and which way is away from it), where does a ray first meet an obstacle, what is
// occupied in a box.
#include <cstdio>
#include <vector>

#include <voxen/voxen.hpp>

int main() {
  voxen::Context ctx;
  voxen::Mapper mapper = voxen::Mapper::load(ctx, "room-clearance.vxm");

  // A straight path from the sensor towards the wall at y = 2, every 10 cm.
  std::vector<glm::dvec3> path;
  for (int i = 0; i <= 15; ++i) path.push_back({0.0, 0.1 * i, 1.5});
  const std::vector<voxen::OccupancyAnswer> occupancy = mapper.occupancy(path);
  const std::vector<voxen::ClearanceSample> clearance = mapper.clearance(path);  // trilinear, with gradient
  for (size_t i = 0; i < path.size(); i += 5)
    std::printf("y %.1f: %s, clearance %.2f m, away from obstacles (%.2f, %.2f, %.2f)\n", path[i].y,
                occupancy[i].voxelClass == voxen::VoxelClass::Free ? "free" : "not free", clearance[i].clearance,
                clearance[i].gradient.x, clearance[i].gradient.y, clearance[i].gradient.z);

  // Where rays from the sensor first meet an occupied voxel (OctoMap's castRay, batched).
  const std::vector<voxen::QueryRay> rays = {
      {.origin = {0.0, 0.0, 1.5}, .direction = {0.0, 1.0, 0.0}, .maxRange = 5.0},
      {.origin = {0.0, 0.0, 1.5}, .direction = {1.0, 0.0, 0.0}, .maxRange = 1.0}};
  const std::vector<voxen::RayHit> hits = mapper.raycast(rays);
  std::printf("towards +y: %s at %.2f m; towards +x within 1 m: %s\n", hits[0].hit ? "a hit" : "no hit",
              hits[0].distance, hits[1].hit ? "a hit" : "no hit");

  // The occupied voxels in a box around a corner of the room.
  const voxen::BoxVoxels corner =
      mapper.voxelsInBox({.min = {2.5, 1.5, 0.0}, .max = {3.5, 2.5, 3.0}}, voxen::VoxelClass::Occupied);
  std::printf("%llu occupied voxels in the corner box\n", (unsigned long long)corner.count);
  const bool pathFree = occupancy[10].voxelClass == voxen::VoxelClass::Free && clearance[10].clearance > 0.0f;
  return pathFree && hits[0].hit && !hits[1].hit && hits[0].distance > 1.8 && hits[0].distance < 2.1 &&
                 corner.count > 0
             ? 0
             : 1;
}
