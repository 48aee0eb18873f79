#include "voxen/testdata/grazing_wall.hpp"

#include <cmath>
#include <random>
#include <set>
#include <tuple>

namespace voxen {

std::vector<Ray> grazingWallRays(const GrazingWallConfig& c) {
  std::mt19937_64 rng(c.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, c.noise);
  std::vector<Ray> rays;
  rays.reserve(size_t(c.positions) * size_t(c.beamsPerPosition));
  for (int p = 0; p < c.positions; ++p) {
    const glm::dvec3 sensor(c.sensorX, p * c.step, c.sensorZ);
    for (int b = 0; b < c.beamsPerPosition; ++b) {
      Ray ray;
      ray.origin = sensor;
      ray.sample = {c.wallX + noise(rng), sensor.y + c.reachMin + (c.reachMax - c.reachMin) * unit(rng),
                    c.wallHeight * unit(rng)};
      ray.time = double(p);
      ray.intensity = 1.0f;
      rays.push_back(ray);
    }
  }
  return rays;
}

double wallVoxelsKept(const OccupancyMap& map, std::span<const Ray> rays) {
  std::set<std::tuple<int32_t, int32_t, int32_t>> wall;
  for (const Ray& r : rays) {
    const VoxelCoord v = map.voxelAt(r.sample);
    wall.insert({v.x, v.y, v.z});
  }
  uint64_t kept = 0;
  for (const auto& [x, y, z] : wall) kept += map.classify(VoxelCoord{x, y, z}) == VoxelClass::Occupied;
  return wall.empty() ? 0.0 : double(kept) / double(wall.size());
}

}  // namespace voxen
