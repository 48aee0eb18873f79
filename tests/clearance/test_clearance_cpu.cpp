// The clearance CPU reference (an exact separable transform) against a brute-force search on
// hand-built maps with known distances: one obstacle, a plane, a corner, obstacles just
// outside the region and just outside the range, unknown space with and without
// unknown-free, per-axis scaling; and the refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

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

TEST_CASE("Clearance: ranges and scales that cannot work are refused, naming the setting and the limit", "[clearance][errors]") {
  OccupancyModel model;
  model.resolution = 0.1;
  CHECK_THROWS_WITH(withRange(0.0).validate(model), Catch::Contains("range"));
  CHECK_THROWS_WITH(withRange(25.0).validate(model), Catch::Contains("past the limit of 240 voxels"));
  ClearanceOptions flat = withRange(1.0);
  flat.axisScale = {1, 1, 0};
  CHECK_THROWS_WITH(flat.validate(model), Catch::Contains("axis scale"));
  // Tiny, denormal and huge quotients: an error naming the setting and the limit, never an
  // overflow into a negative padding (which used to pass the limit and crash).
  for (double scale : {1e-10, 1e-9, 4.9e-324, 1e-300, std::numeric_limits<double>::denorm_min()}) {
    for (int axis = 0; axis < 3; ++axis) {
      ClearanceOptions tiny = withRange(1.0);
      tiny.axisScale[axis] = scale;
      INFO("scale " << scale << " along axis " << axis);
      try {
        tiny.validate(model);
        FAIL("accepted");
      } catch (const ClearanceSettingsError& e) {
        CHECK(e.setting() == "range/axis-scale");
        CHECK_THAT(e.what(), Catch::Contains("past the limit of 240 voxels"));
      }
      CHECK_THROWS_AS(tiny.padding(model), ClearanceSettingsError);
      OccupancyMap map = freeMap(0.1, kCentre, kCentre);
      CHECK_THROWS_AS(computeClearanceCpu(map, tiny), ClearanceSettingsError);
      CHECK_THROWS_AS(regionsWithinRange(kCentre, model, tiny), ClearanceSettingsError);
    }
  }
  for (double range : {1e300, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), 1e-9}) {
    INFO("range " << range);
    CHECK_THROWS_AS(withRange(range).validate(model), ClearanceSettingsError);
  }
  ClearanceOptions huge = withRange(1.0);
  huge.axisScale = {1e300, 1, 1};
  CHECK_THROWS_WITH(huge.validate(model), Catch::Contains("axis scale"));
}

TEST_CASE("Clearance CPU: the range reaches 240 voxels of padding with 32^3 regions, one more is refused", "[clearance]") {
  // One axis at the limit at a time (the other two short), obstacles far along it: exact
  // against a brute force over the obstacles.
  OccupancyModel model;
  model.resolution = 1.0;
  REQUIRE(ClearanceOptions::maxPadding(model) == 240);
  for (int axis = 0; axis < 3; ++axis) {
    ClearanceOptions options = withRange(24.0);
    options.unknownFree = true;
    options.axisScale[axis] = 0.1;  // 240 voxels along this axis, 24 along the others
    REQUIRE(options.padding(model)[axis] == 240);
    ClearanceOptions past = options;
    past.range = 24.1;
    CHECK_THROWS_WITH(past.validate(model), Catch::Contains("past the limit of 240 voxels"));
    std::vector<VoxelCoord> obstacles;
    OccupancyMap map = farObstacleMap(model, axis, obstacles);
    computeClearanceCpu(map, options, std::vector<RegionKey>{kCentre});
    const std::vector<double> exact = bruteForceClearance(map, kCentre, options, obstacles);
    const ClearanceError e = compareWith(exact, map, kCentre, options);
    INFO("axis " << axis << ": max error " << e.maxError << ", range mismatches " << e.rangeMismatches);
    CHECK(e.maxError < 1e-4);
    CHECK(e.rangeMismatches == 0);
    const auto values = map.findRegion(kCentre)->values<float>(clearanceLayer());
    CHECK(std::count_if(values.begin(), values.end(), [](float v) { return v > 0.0f; }) > 1000);
  }
}

}  // namespace
