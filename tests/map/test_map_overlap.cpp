// occupiedJaccard on hand-made maps.
#include <catch2/catch.hpp>

#include "voxen/host/error.hpp"
#include "voxen/map/map_overlap.hpp"

namespace {

using namespace voxen;

void setValue(OccupancyMap& map, const VoxelCoord& v, float logOdds) {
  map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = logOdds;
}

}  // namespace

TEST_CASE("occupiedJaccard counts voxels occupied in both maps over those occupied in either", "[map][overlap]") {
  OccupancyMap a, b;
  CHECK(occupiedJaccard(a, b).jaccard() == 1.0);  // nothing occupied anywhere: full agreement

  // a: occupied at x = 0, 1, 2 and 40 (another region); b: at 1, 2, 3 and 40. Voxel 4 is
  // free in a and occupied in b; voxel 5 is observed in both but free: neither counts.
  for (int x : {0, 1, 2, 40}) setValue(a, {x, 0, 0}, 1.0f);
  for (int x : {1, 2, 3, 40}) setValue(b, {x, 0, 0}, 2.0f);
  setValue(a, {4, 0, 0}, -1.0f);
  setValue(b, {4, 0, 0}, 0.5f);
  setValue(a, {5, 0, 0}, -0.5f);
  setValue(b, {5, 0, 0}, -0.5f);
  // -5: a voxel in a region only b has, occupied in neither.
  setValue(b, {-5, 0, 0}, -1.0f);

  const OccupiedOverlap ab = occupiedJaccard(a, b);
  CHECK(ab.intersection == 3);  // 1, 2, 40
  CHECK(ab.unionCount == 6);    // 0, 1, 2, 3, 4, 40
  CHECK(ab.jaccard() == 0.5);
  const OccupiedOverlap ba = occupiedJaccard(b, a);
  CHECK(ba.intersection == ab.intersection);
  CHECK(ba.unionCount == ab.unionCount);
  CHECK(occupiedJaccard(a, a).jaccard() == 1.0);
}

TEST_CASE("occupiedJaccard classifies each voxel by its own map's threshold", "[map][overlap]") {
  OccupancyModel strict;
  strict.occupancyThreshold = 0.9f;  // log-odds 2.197
  OccupancyMap a, b(strict);
  setValue(a, {0, 0, 0}, 1.0f);
  setValue(b, {0, 0, 0}, 1.0f);  // below b's threshold: free there
  const OccupiedOverlap o = occupiedJaccard(a, b);
  CHECK(o.intersection == 0);
  CHECK(o.unionCount == 1);
  CHECK(o.jaccard() == 0.0);
}

TEST_CASE("occupiedJaccard refuses maps of different resolutions", "[map][overlap]") {
  OccupancyModel coarse;
  coarse.resolution = 0.25;
  REQUIRE_THROWS_WITH(occupiedJaccard(OccupancyMap(), OccupancyMap(coarse)),
                      Catch::Contains("different resolutions") && Catch::Contains("0.1 m and 0.25 m"));
}
