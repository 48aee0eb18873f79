// HeightmapTracker (voxen/heightmap/heightmap_tracker.hpp): after every change to a map (voxels
// changing class, voxel means moving, regions made past the old extent in x, y and z, regions
// dropped or paged out so the grid shrinks) the kept heightmap equals one computed whole, byte
// for byte, while only the changed region columns are computed again.
#include <catch2/catch.hpp>

#include <random>

#include "heightmap/same_cells.hpp"
#include "voxen/heightmap/heightmap_tracker.hpp"

namespace {

using namespace voxen;
using voxen::test::requireSameCells;

// Random voxels in the box [lo, hi): 40% unobserved, 15% occupied, the rest free; means too
// where the map has them. The regions changed are marked as an integrator marks them.
void scatter(OccupancyMap& map, std::mt19937& random, VoxelCoord lo, VoxelCoord hi) {
  for (int32_t x = lo.x; x < hi.x; ++x)
    for (int32_t y = lo.y; y < hi.y; ++y)
      for (int32_t z = lo.z; z < hi.z; ++z) {
        const uint32_t r = random() % 100;
        if (r < 40) continue;
        const VoxelCoord v{x, y, z};
        Region& region = map.region(map.regionOf(v));
        region.occupancy()[map.localIndex(v)] = r < 55 ? 2.0f : -1.0f;
        if (!region.mean().empty()) {
          VoxelMean& mean = region.mean()[map.localIndex(v)];
          mean.count = 1 + random() % 3;
          mean.sum[2] = mean.count * (random() % 1024);
        }
        map.markOccupancyChanged(region);
      }
}

HeightmapOptions someOptions() {
  HeightmapOptions options;
  options.robotHeight = 0.3;
  options.levels = 3;
  options.virtualSurfaces = true;
  options.maxSlopeDegrees = 40;
  return options;
}

}  // namespace

TEST_CASE("A tracked heightmap equals one computed whole after every change, computing only what changed", "[heightmap]") {
  const bool withMeans = GENERATE(false, true);
  INFO("voxel means: " << withMeans);
  std::mt19937 random(11);
  OccupancyMap map = withMeans ? OccupancyMap(OccupancyModel{}, LayerSet{kVoxelMeanLayer}) : OccupancyMap{};
  // Regions of 32 voxels: 3 x 2 region columns, 2 regions deep.
  scatter(map, random, {-32, -20, -10}, {60, 40, 30});
  const HeightmapOptions options = someOptions();
  HeightmapTracker tracker(options);
  HeightmapUpdate u = tracker.update(map);
  CHECK(u.whole);
  requireSameCells(computeHeightmap(map, options), tracker.heightmap());

  SECTION("nothing changed: nothing computed") {
    u = tracker.update(map);
    CHECK_FALSE(u.whole);
    CHECK(u.regionColumns == 0);
    CHECK(u.neighbourCells == 0);
    requireSameCells(computeHeightmap(map, options), tracker.heightmap());
  }
  SECTION("a few voxels in one region column: that column alone") {
    scatter(map, random, {5, 5, 0}, {9, 9, 20});
    u = tracker.update(map);
    CHECK(u.regionColumns == 1);
    CHECK_FALSE(u.gridChanged);
    requireSameCells(computeHeightmap(map, options), tracker.heightmap());
  }
  SECTION("values that cross no class: computed again only where means are read") {
    for (int32_t z = -1; z <= 0; ++z) {
      Region* region = map.findRegion({0, 0, z});
      REQUIRE(region != nullptr);
      for (float& value : region->occupancy())
        if (value == 2.0f) value = 2.5f;  // still occupied
      if (withMeans)
        for (VoxelMean& mean : region->mean())
          if (mean.count > 0) mean.sum[2] = mean.count * 700;
      map.markValuesChanged(*region);
    }
    u = tracker.update(map);
    CHECK(u.regionColumns == (withMeans ? 1u : 0u));
    requireSameCells(computeHeightmap(map, options), tracker.heightmap());
  }
  SECTION("growth in x, y and z, then shrinking") {
    scatter(map, random, {70, -50, 35}, {75, -45, 70});  // a new corner, above and beside
    u = tracker.update(map);
    CHECK(u.gridChanged);
    CHECK_FALSE(u.whole);
    requireSameCells(computeHeightmap(map, options), tracker.heightmap());
    // Drop the new corner again and page out one old region: the grid shrinks back.
    std::vector<RegionKey> corner;
    for (const auto& [key, region] : map.regions())
      if (key.x >= 2 || key.y <= -2) corner.push_back(key);
    REQUIRE_FALSE(corner.empty());
    for (const RegionKey& key : corner) map.dropRegion(key);
    map.evictRegion({0, 0, 0});
    u = tracker.update(map);
    CHECK(u.gridChanged);
    requireSameCells(computeHeightmap(map, options), tracker.heightmap());
  }
  SECTION("many rounds of random changes, growth and loss") {
    for (int round = 0; round < 12; ++round) {
      INFO("round " << round);
      const int32_t x = int32_t(random() % 140) - 60, y = int32_t(random() % 120) - 50, z = int32_t(random() % 80) - 30;
      scatter(map, random, {x, y, z}, {x + 1 + int32_t(random() % 12), y + 1 + int32_t(random() % 12), z + 1 + int32_t(random() % 12)});
      if (round % 4 == 3 && map.regions().size() > 2) map.dropRegion(map.regions().begin()->first);
      u = tracker.update(map);
      requireSameCells(computeHeightmap(map, options), tracker.heightmap());
    }
  }
  SECTION("another map is computed whole") {
    OccupancyMap other = map;
    u = tracker.update(other);
    CHECK(u.whole);
    requireSameCells(computeHeightmap(other, options), tracker.heightmap());
  }
}

TEST_CASE("A tracked heightmap of a box follows the map inside the box", "[heightmap]") {
  std::mt19937 random(5);
  OccupancyMap map;
  scatter(map, random, {-40, -40, -20}, {40, 40, 20});
  HeightmapOptions options = someOptions();
  options.box = HeightmapBox{{-2.0, -1.5, -1.0}, {6.0, 1.0, 8.0}};
  HeightmapTracker tracker(options);
  tracker.update(map);
  requireSameCells(computeHeightmap(map, options), tracker.heightmap());
  scatter(map, random, {30, -10, 30}, {70, 10, 60});  // the map grows inside the box, upwards too
  const HeightmapUpdate u = tracker.update(map);
  CHECK(u.gridChanged);
  requireSameCells(computeHeightmap(map, options), tracker.heightmap());
  scatter(map, random, {-100, -100, 0}, {-90, -90, 5});  // outside the box: nothing to compute
  CHECK(tracker.update(map).regionColumns == 0);
  requireSameCells(computeHeightmap(map, options), tracker.heightmap());
}

TEST_CASE("A tracker refuses what computeHeightmap refuses and then starts whole", "[heightmap]") {
  OccupancyMap map;
  HeightmapTracker tracker;
  CHECK_THROWS(tracker.update(map));  // no regions
  std::mt19937 random(3);
  scatter(map, random, {0, 0, 0}, {10, 10, 10});
  CHECK(tracker.update(map).whole);
  requireSameCells(computeHeightmap(map, {}), tracker.heightmap());
}
