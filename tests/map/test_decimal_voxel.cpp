// Heights and coordinates a person types pick the voxel that holds them as written: 0.3 m at
// 0.1 m per voxel is the 0.3-0.4 m layer (3), not the 0.2-0.3 m one that floor(0.3 / 0.1) gives
// in doubles; in slices, clearance's ignore band, query points and export boxes alike.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "voxen/clearance/clearance.hpp"
#include "voxen/export/map_export.hpp"
#include "voxen/map/decimal_voxel.hpp"
#include "voxen/query/cpu_queries.hpp"

using namespace voxen;

TEST_CASE("A decimal height on a voxel boundary belongs to the voxel above it", "[decimalvoxel]") {
  // floor(z / resolution) in doubles gives 2, 11, 5 and 23 for the first four.
  CHECK(voxelIndexOfDecimal(0.3, 0.1) == 3);
  CHECK(voxelIndexOfDecimal(1.2, 0.1) == 12);
  CHECK(voxelIndexOfDecimal(0.3, 0.05) == 6);
  CHECK(voxelIndexOfDecimal(1.2, 0.05) == 24);
  CHECK(voxelIndexOfDecimal(2.7, 0.1) == 27);
  CHECK(voxelIndexOfDecimal(2.7, 0.05) == 54);
  // Negative heights: the boundary still belongs to the voxel above it.
  CHECK(voxelIndexOfDecimal(-0.3, 0.1) == -3);
  CHECK(voxelIndexOfDecimal(-1.2, 0.1) == -12);
  CHECK(voxelIndexOfDecimal(-2.7, 0.05) == -54);
  CHECK(voxelIndexOfDecimal(-0.31, 0.1) == -4);
  CHECK(voxelIndexOfDecimal(-0.0, 0.1) == 0);
  // Heights inside a voxel, and just off a boundary as written.
  CHECK(voxelIndexOfDecimal(0.35, 0.1) == 3);
  CHECK(voxelIndexOfDecimal(0.2999999999, 0.1) == 2);
  CHECK(voxelIndexOfDecimal(0.3000000001, 0.1) == 3);
  CHECK(voxelIndexOfDecimal(1234.5, 0.1) == 12345);
  CHECK(voxelIndexOfDecimal(0.75, 0.25) == 3);
  // Every boundary k x resolution, typed as its decimal, lands in voxel k.
  for (const char* res : {"0.1", "0.05", "0.2", "0.03", "0.07", "0.25"}) {
    const double r = std::stod(res);
    for (int k = -2000; k <= 2000; ++k) {
      char typed[40];
      // The decimal k x res, written with as many places as res has (at most 2 here).
      std::snprintf(typed, sizeof typed, "%.*f", int(std::string(res).size()) - 2, k * r);
      INFO(typed << " at " << res);
      REQUIRE(voxelIndexOfDecimal(std::stod(typed), r) == k);
    }
  }
  // Away from boundaries it is floor(z / resolution).
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> height(-100.0, 100.0);
  for (int i = 0; i < 10000; ++i) {
    const double z = height(rng);
    const double q = z / 0.1;
    if (std::abs(q - std::round(q)) < 1e-6) continue;
    REQUIRE(voxelIndexOfDecimal(z, 0.1) == int64_t(std::floor(q)));
  }
}

TEST_CASE("Voxel centres compare with decimal heights as written", "[decimalvoxel]") {
  // Voxel 1's centre is 0.15 m: at or below 0.15 (doubles say 1.5 x 0.1 > 0.15).
  CHECK(lastVoxelCentredAtOrBelow(0.15, 0.1) == 1);
  CHECK(firstVoxelCentredAtOrAbove(0.15, 0.1) == 1);
  CHECK(firstVoxelCentredAtOrAbove(-29.95, 0.1) == -300);
  CHECK(lastVoxelCentredAtOrBelow(-29.95, 0.1) == -300);
  CHECK(firstVoxelCentredAtOrAbove(0.3, 0.1) == 3);
  CHECK(lastVoxelCentredAtOrBelow(0.3, 0.1) == 2);
  CHECK(firstVoxelCentredAtOrAbove(0.16, 0.1) == 2);
  CHECK(lastVoxelCentredAtOrBelow(0.14, 0.1) == 0);
}

TEST_CASE("Slices, the clearance ignore band and query points all use the decimal rule", "[decimalvoxel]") {
  OccupancyModel model;
  model.resolution = 0.1;
  model.regionSize = 8;
  OccupancyMap map(model);
  // Voxel (0, 0, 11) free, (0, 0, 12) occupied: a point at z = 1.2 m is in the occupied one.
  map.region(map.regionOf({0, 0, 11})).occupancy()[map.localIndex({0, 0, 11})] = -1.0f;
  map.region(map.regionOf({0, 0, 12})).occupancy()[map.localIndex({0, 0, 12})] = 2.0f;
  CHECK(sliceLayerAt(map, 0.3) == 3);
  CHECK(sliceLayerAt(map, 1.2) == 12);
  CHECK(sliceLayerAt(map, -0.3) == -3);
  const std::vector<glm::dvec3> points{{0.05, 0.05, 1.2}, {0.05, 0.05, 1.15}, {0.3, 0.0, 1.2}};
  const std::vector<OccupancyAnswer> answers = cpuOccupancy(map, points);
  CHECK(answers[0].voxelClass == VoxelClass::Occupied);
  CHECK(answers[1].voxelClass == VoxelClass::Free);
  CHECK(answers[2].voxelClass == VoxelClass::Unobserved);  // x = 0.3 m is voxel 3, not 2
  ClearanceOptions options;
  options.ignoreAbove = 0.15;  // voxel 1's centre: not above, so kept
  options.ignoreBelow = -29.95;
  const ObstacleBand band = options.band(model);
  CHECK(band.high == 1);
  CHECK(band.low == -300);
}
