// A scan's points with their times, and the trajectory the sensor drove along: each ray
// starts where the sensor was when its point was measured. Mapped on top of room.vxm.
#include <cmath>
#include <cstdio>
#include <vector>

#include <voxen/voxen.hpp>

int main() {
  // The sensor drives 2 m along x in one second, 1.5 m above the floor.
  const voxen::Trajectory trajectory({{0.0, {-1.0, 0.0, 1.5}}, {1.0, {1.0, 0.0, 1.5}}});
  std::vector<glm::dvec3> points;
  std::vector<double> times;
  for (int i = 0; i < 20000; ++i) {
    // Returns from the side walls (y = +-1.95 m), around the sensor's position.
    const double t = i / 20000.0;
    const glm::dvec3 from = trajectory.positionAt(t);
    points.push_back({from.x + 0.5 * std::cos(i * 0.37), i % 2 ? 1.95 : -1.95, 0.2 + std::fmod(i * 0.013, 2.6)});
    times.push_back(t);
  }

  voxen::Context ctx;
  voxen::Mapper mapper = voxen::Mapper::load(ctx, "room.vxm");
  const voxen::CloudStats cloud = mapper.integrateCloud(points, times, trajectory);
  mapper.save("room.vxm");
  std::printf("%llu points, %llu rays, %llu outside the trajectory's time span\n", (unsigned long long)cloud.points,
              (unsigned long long)cloud.rays, (unsigned long long)cloud.skippedOutsideTrajectory);
  return cloud.rays == points.size() ? 0 : 1;
}
