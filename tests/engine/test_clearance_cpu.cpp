// The clearance CPU reference (an exact separable transform) against a brute-force search on
// hand-built maps with known distances: one obstacle, a plane, a corner, obstacles just
// outside the region and just outside the range, unknown space with and without
// unknown-free, per-axis scaling; and the refusals.
#include <catch2/catch.hpp>

#include "support/clearance_reference.hpp"

namespace {

using namespace voxen;
using namespace vt::clearance;

ClearanceOptions withRange(double range) {
  ClearanceOptions o;
  o.range = range;
  return o;
}

const RegionKey kCentre{0, 0, 0};

float clearanceAt(const OccupancyMap& map, const VoxelCoord& v) {
  return map.findRegion(map.regionOf(v))->values<float>(clearanceLayer())[map.localIndex(v)];
}

TEST_CASE("Clearance CPU: one obstacle gives the Euclidean distance, 0 on it and none past the range", "[clearance]") {
  OccupancyMap map = freeMap(0.25, {-1, -1, -1}, {1, 1, 1});
  setOccupied(map, {10, 12, 14});
  const ClearanceOptions options = withRange(2.0);
  computeClearanceCpu(map, options, std::vector<RegionKey>{kCentre});
  CHECK(clearanceAt(map, {10, 12, 14}) == 0.0f);
  CHECK(clearanceAt(map, {13, 16, 14}) == Approx(0.25 * 5.0).epsilon(1e-6));  // 3-4-5
  CHECK(clearanceAt(map, {10, 12, 22}) == Approx(2.0).epsilon(1e-6));          // exactly at the range
  CHECK(clearanceAt(map, {10, 12, 23}) == kNoObstacleInRange);                  // one voxel past it
  const ClearanceError e = compareWithBruteForce(map, kCentre, options);
  CHECK(e.maxError < 1e-5);
  CHECK(e.rangeMismatches == 0);
}

TEST_CASE("Clearance CPU: planes, corners and obstacles in the neighbouring regions", "[clearance]") {
  OccupancyMap map = freeMap(0.25, {-1, -1, -1}, {1, 1, 1});
  for (int x = -32; x < 64; ++x)
    for (int y = -32; y < 64; ++y) setOccupied(map, {x, y, -3});  // a floor 3 voxels below the region
  for (int z = -32; z < 64; ++z) setOccupied(map, {35, 40, z});    // a pole just outside, in region (1, 1, *)
  const ClearanceOptions options = withRange(3.0);
  computeClearanceCpu(map, options, std::vector<RegionKey>{kCentre});
  CHECK(clearanceAt(map, {5, 5, 0}) == Approx(0.75).epsilon(1e-6));  // 3 voxels above the floor
  CHECK(clearanceAt(map, {31, 31, 20}) == Approx(0.25 * std::sqrt(4.0 * 4 + 9.0 * 9)).epsilon(1e-6));
  const ClearanceError e = compareWithBruteForce(map, kCentre, options);
  INFO("max error " << e.maxError);
  CHECK(e.maxError < 1e-5);
  CHECK(e.rangeMismatches == 0);
}

TEST_CASE("Clearance CPU: unknown space is an obstacle unless declared free", "[clearance]") {
  // Only the centre region is observed: every neighbour is unknown.
  OccupancyMap map = freeMap(0.25, kCentre, kCentre);
  setOccupied(map, {16, 16, 16});
  ClearanceOptions careful = withRange(2.0);
  computeClearanceCpu(map, careful, std::vector<RegionKey>{kCentre});
  CHECK(clearanceAt(map, {0, 16, 16}) == Approx(0.25).epsilon(1e-6));  // the unknown voxel at x = -1
  CHECK(compareWithBruteForce(map, kCentre, careful).maxError < 1e-5);
  ClearanceOptions relaxed = careful;
  relaxed.unknownFree = true;
  computeClearanceCpu(map, relaxed, std::vector<RegionKey>{kCentre});
  CHECK(clearanceAt(map, {0, 16, 16}) == kNoObstacleInRange);  // 4 m from the obstacle, nothing else
  CHECK(clearanceAt(map, {16, 16, 10}) == Approx(1.5).epsilon(1e-6));
  CHECK(compareWithBruteForce(map, kCentre, relaxed).maxError < 1e-5);
}

TEST_CASE("Clearance CPU: per-axis scaling weighs the offsets", "[clearance]") {
  OccupancyMap map = freeMap(0.25, {-1, -1, -1}, {1, 1, 1});
  setOccupied(map, {16, 16, 16});
  ClearanceOptions options = withRange(3.0);
  options.axisScale = {1.0, 1.0, 0.25};  // height differences count a quarter
  computeClearanceCpu(map, options, std::vector<RegionKey>{kCentre});
  CHECK(clearanceAt(map, {16, 16, 24}) == Approx(0.25 * 8 * 0.25).epsilon(1e-6));
  CHECK(clearanceAt(map, {20, 16, 16}) == Approx(1.0).epsilon(1e-6));
  CHECK(compareWithBruteForce(map, kCentre, options).maxError < 1e-5);
}

TEST_CASE("Clearance CPU: random maps match the brute force", "[clearance]") {
  OccupancyMap map = freeMap(0.1, {-1, -1, -1}, {1, 1, 1});
  uint64_t state = 7;
  auto next = [&] { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int i = 0; i < 400; ++i) setOccupied(map, {int(next() % 96) - 32, int(next() % 96) - 32, int(next() % 96) - 32});
  // Some unknown voxels inside the observed regions too.
  for (int i = 0; i < 200; ++i) {
    const VoxelCoord v{int(next() % 96) - 32, int(next() % 96) - 32, int(next() % 96) - 32};
    map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = kUnobserved;
  }
  for (bool unknownFree : {false, true}) {
    ClearanceOptions options = withRange(0.9);
    options.unknownFree = unknownFree;
    computeClearanceCpu(map, options, std::vector<RegionKey>{kCentre});
    const ClearanceError e = compareWithBruteForce(map, kCentre, options);
    INFO("unknown free " << unknownFree << ": max error " << e.maxError << ", range mismatches " << e.rangeMismatches);
    CHECK(e.maxError < 1e-5);
    CHECK(e.rangeMismatches == 0);
  }
}

TEST_CASE("Clearance: ranges and scales that cannot work are refused, naming the limit", "[clearance][errors]") {
  OccupancyModel model;
  model.resolution = 0.1;
  CHECK_THROWS_WITH(withRange(0.0).validate(model), Catch::Contains("range"));
  CHECK_THROWS_WITH(withRange(20.0).validate(model), Catch::Contains("past the limit of 112 voxels"));
  ClearanceOptions flat = withRange(1.0);
  flat.axisScale = {1, 1, 0};
  CHECK_THROWS_WITH(flat.validate(model), Catch::Contains("axis scale"));
}

}  // namespace
