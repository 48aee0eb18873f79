#pragma once
// A planar wall scanned at shallow angles, the case NDT exists for: a sensor moves along a
// wall a short distance in front of it and sweeps a fan of beams that hit the wall far ahead,
// so almost every beam passes just in front of wall voxels that other beams hit. Plain
// occupancy erodes such a wall; NDT-OM keeps it. Deterministic from the seed.
#include <cstdint>
#include <span>
#include <vector>

#include "voxen/map/map.hpp"
#include "voxen/map/ray.hpp"

namespace voxen {

struct GrazingWallConfig {
  double wallX = 5.05;          // the wall is the plane x = wallX (metres, mid-voxel at 0.1 m), facing -x
  double sensorX = 4.4;         // the sensor moves along y at this x, z = sensorZ
  double sensorZ = 1.0;
  double wallHeight = 2.0;      // the wall spans z in [0, wallHeight]
  double reachMin = 2.0;        // beams hit the wall this far ahead of the sensor (along y) ...
  double reachMax = 12.0;       // ... up to this far: incidence angles of 3 to 17 degrees
  double noise = 0.005;         // metres of Gaussian range noise on the wall (x)
  int positions = 20;           // sensor positions, 0.25 m apart along y
  double step = 0.25;
  int beamsPerPosition = 4000;  // beams per position, spread over the reach and the height
  uint64_t seed = 1;
};

// Rays position after position (all beams of position 0, then position 1, ...); each
// position's rays share one time stamp. intensity is 1.
std::vector<Ray> grazingWallRays(const GrazingWallConfig& config = {});

// The fraction of the wall's voxels (those the rays' samples fall in) that `map` holds
// occupied: what an integrator kept of the wall.
double wallVoxelsKept(const OccupancyMap& map, std::span<const Ray> rays);

}  // namespace voxen
