// Rays from a sensor at the centre of a 6 m x 4 m x 3 m room to its walls, mapped on the
// GPU and saved.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <voxen/voxen.hpp>

int main() {
  std::vector<glm::dvec3> origins, ends;
  const glm::dvec3 sensor(0.0, 0.0, 1.5);
  for (int i = 0; i < 360; ++i)
    for (int j = -30; j <= 30; ++j) {
      const double a = i * M_PI / 180.0, e = j * M_PI / 180.0;
      const glm::dvec3 d(std::cos(a) * std::cos(e), std::sin(a) * std::cos(e), std::sin(e));
      // The first wall, floor or ceiling the direction meets.
      const double t = std::min({3.0 / std::abs(d.x), 2.0 / std::abs(d.y), 1.5 / std::abs(d.z)});
      origins.push_back(sensor);
      ends.push_back(sensor + t * d);
    }

  voxen::Context ctx;
  voxen::Mapper mapper(ctx, {.model = {.resolution = 0.1}});
  mapper.integrateRays(origins, ends);
  mapper.save("room.vxm");

  const voxen::MapperStats stats = mapper.stats();
  std::printf("%llu rays: %llu occupied and %llu free voxels in %llu regions on %s\n",
              (unsigned long long)stats.integration.rays, (unsigned long long)stats.counts.occupied,
              (unsigned long long)stats.counts.free, (unsigned long long)stats.counts.regions,
              ctx.deviceInfo().name.c_str());
  return stats.counts.occupied > 0 ? 0 : 1;
}
