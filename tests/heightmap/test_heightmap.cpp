// The heightmap (engine/heightmap): the CPU reference's levels, room, slopes, steps and costs
// on a hand-built terrain whose answers are known (floor, ramp, step, a bridge with a passage
// under it, a table too low to pass under, an unseen hole), and the GPU's cells equal to the
// CPU's bit for bit there and on random maps (with voxel means, virtual surfaces, several
// levels, chunked through a small cache, negative coordinates).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "heightmap/same_cells.hpp"
#include "support/gpu_fixture.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/heightmap/heightmap_ground.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/map/region_cache.hpp"

namespace {

using namespace voxen;
using voxen::test::requireSameCells;

void set(OccupancyMap& map, int32_t x, int32_t y, int32_t z, float value) {
  const VoxelCoord v{x, y, z};
  map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = value;
}

// 60 x 40 voxels at 0.1 m, ground at z = 0 (observed free above it up to z = 30):
//   x 10..19: a ramp rising one voxel every 2 columns (26.6 degrees);
//   x 30..39: a step of 4 voxels (0.4 m) up at x = 30, flat after;
//   x 40..49, y 10..19: a bridge deck at z = 15 (room under it 14 voxels, above it open);
//   x 50..57, y 20..27: a table top at z = 6 (5 voxels of room under it: too low);
//   x 2..5, y 30..33: no ground seen (the floor there unobserved, free above).
OccupancyMap terrain() {
  OccupancyMap map;
  const float hit = 2.0f, miss = -1.0f;
  for (int32_t x = 0; x < 60; ++x)
    for (int32_t y = 0; y < 40; ++y) {
      int32_t ground = 0;
      if (x >= 10 && x < 20) ground = (x - 10) / 2;
      if (x >= 20 && x < 30) ground = 5;
      if (x >= 30) ground = 9;
      const bool hole = x >= 2 && x <= 5 && y >= 30 && y <= 33;
      for (int32_t z = 0; z <= 30; ++z) set(map, x, y, z, z <= ground ? hit : miss);
      if (hole)
        for (int32_t z = 0; z <= ground; ++z) set(map, x, y, z, kUnobserved);
      if (x >= 40 && x < 50 && y >= 10 && y < 20) set(map, x, y, 15 + ground, hit);
      if (x >= 50 && x < 58 && y >= 20 && y < 28) set(map, x, y, 6 + ground, hit);
    }
  return map;
}

}  // namespace

TEST_CASE("The CPU heightmap finds floors, ramps, steps, bridges and tables", "[heightmap]") {
  const OccupancyMap map = terrain();
  HeightmapOptions options;  // robot 0.8 m (8 voxels), 4 levels, 30 degrees, 0.2 m steps
  const Heightmap hm = computeHeightmap(map, options);
  REQUIRE(hm.width() == 64);  // whole regions: x 0..63
  const auto at = [&](uint32_t level, uint32_t x, uint32_t y) -> const gpu::HeightmapCell& { return hm.cell(level, x, y); };
  // Flat floor: one level at the floor voxel's centre, room up to the band's top (open).
  CHECK(hm.present(0, 5, 5));
  CHECK_FALSE(hm.present(1, 5, 5));
  CHECK(hm.heightMetres(0, 5, 5) == Approx(0.05));
  CHECK(at(0, 5, 5).room == gpu::kOpenAbove);
  CHECK(at(0, 5, 5).cost == 0);
  CHECK(at(0, 5, 5).stepEast == 0);
  // The ramp: 1 voxel per 2 columns, tan = 0.5, 26.57 degrees: below 30, so not lethal but costly.
  CHECK(hm.slopeDegrees(0, 14, 5) == Approx(26.565).margin(0.01));
  CHECK(at(0, 14, 5).cost < gpu::kCostLethal);
  // Cost: the slope's (0.5 / tan 30)^2 = 0.75 of its limit (75) beats the 0.1 m step's 50.
  CHECK(at(0, 14, 5).cost == 75);
  // The step of 0.4 m at x = 30: lethal on both sides of it.
  CHECK(at(0, 29, 5).cost == gpu::kCostLethal);
  CHECK(at(0, 30, 5).cost == gpu::kCostLethal);
  CHECK(at(0, 29, 5).stepEast == 4 * gpu::kHeightUnits);
  CHECK(at(0, 32, 5).cost == 0);
  // The bridge: the ground under it (14 voxels of room) and the deck (open above): two levels.
  CHECK(hm.present(0, 45, 15));
  CHECK(hm.present(1, 45, 15));
  CHECK(hm.heightMetres(0, 45, 15) == Approx(0.95));
  CHECK(at(0, 45, 15).room == 14);  // z 10..23 between the ground at 9 and the deck at 24
  CHECK(hm.heightMetres(1, 45, 15) == Approx(2.45));
  // The deck's edge: the neighbour's nearest level is the ground 1.5 m lower, a lethal step.
  CHECK(at(1, 40, 15).cost == gpu::kCostLethal);
  CHECK(at(1, 45, 15).cost == 0);
  // The table: 5 voxels of room under it, too low for 0.8 m: only the top is a level.
  CHECK(hm.present(0, 54, 24));
  CHECK_FALSE(hm.present(1, 54, 24));
  CHECK(hm.heightMetres(0, 54, 24) == Approx(1.55));
  // The unseen hole: no level without virtual surfaces; one at the top of the unknown with.
  CHECK_FALSE(hm.present(0, 3, 31));
  CHECK(hm.columnFlags(3, 31) == gpu::kColumnFree);
  HeightmapOptions withVirtual = options;
  withVirtual.virtualSurfaces = true;
  const Heightmap virt = computeHeightmap(map, withVirtual);
  REQUIRE(virt.present(0, 3, 31));
  CHECK((virt.cell(0, 3, 31).flags & gpu::kLevelVirtual) != 0);
  CHECK(virt.heightMetres(0, 3, 31) == Approx(0.1));  // the top face of the unknown voxel z = 0
  CHECK((virt.cell(0, 5, 5).flags & gpu::kLevelVirtual) == 0);
}

TEST_CASE("A robot taller than the room under a bridge loses that level", "[heightmap]") {
  const OccupancyMap map = terrain();
  HeightmapOptions options;
  options.robotHeight = 1.5;  // 15 voxels: the 14 under the deck are too few
  const Heightmap hm = computeHeightmap(map, options);
  CHECK(hm.heightMetres(0, 45, 15) == Approx(2.45));
  CHECK_FALSE(hm.present(1, 45, 15));
  options.levels = 1;
  options.robotHeight = 0.8;
  const Heightmap one = computeHeightmap(map, options);  // the lowest level only
  CHECK(one.heightMetres(0, 45, 15) == Approx(0.95));
}

TEST_CASE("A seed point chooses the ground the robot can reach", "[heightmap]") {
  const Heightmap hm = computeHeightmap(terrain(), HeightmapOptions{});  // 0.2 m steps
  SECTION("from the low floor: up the ramp, not up the 0.4 m step") {
    const GroundLevels g = groundFromSeed(hm, {0.55, 0.55, 0.0});
    CHECK(g.level(5, 5) == 0);
    CHECK(g.level(25, 5) == 0);   // on top of the ramp
    CHECK(g.level(35, 5) == -1);  // beyond the step
    CHECK(g.level(45, 15) == -1);
    CHECK(g.level(3, 31) == -1);  // the unseen hole has no level
    CHECK(groundFromSeed(hm, {0.55, 0.55, 0.0}, 0).level(35, 5) == 0);  // unreached: the lowest level
  }
  SECTION("from the high ground: under the bridge, not onto the table") {
    const GroundLevels g = groundFromSeed(hm, {3.55, 0.55, 1.0});
    CHECK(g.level(35, 5) == 0);
    CHECK(g.level(45, 15) == 0);   // the ground under the deck, nearest in height
    CHECK(g.level(54, 24) == -1);  // the table top, 0.6 m above the floor around it
    CHECK(g.level(5, 5) == -1);
  }
  SECTION("from the deck: the deck alone") {
    const GroundLevels g = groundFromSeed(hm, {4.55, 1.55, 2.5});
    CHECK(g.level(45, 15) == 1);
    CHECK(g.reached == 100);  // its 10 x 10 columns; its edges drop 1.5 m
  }
  SECTION("a fixed level") {
    const GroundLevels g = groundAtLevel(hm, 1);
    CHECK(g.level(45, 15) == 1);
    CHECK(g.level(5, 5) == -1);
  }
  SECTION("a seed outside the columns, or over no level") {
    CHECK_THROWS_AS(groundFromSeed(hm, {-5.0, 0.5, 0.0}), SettingError);
    CHECK_THROWS_AS(groundFromSeed(hm, {0.35, 3.15, 0.0}), SettingError);  // the hole
  }
}

TEST_CASE("The GPU heightmap equals the CPU reference bit for bit", "[heightmap][gpu]") {
  voxen::Scheduler& scheduler = vt::gpu().scheduler;
  SECTION("the terrain, with and without virtual surfaces") {
    const OccupancyMap map = terrain();
    for (bool virtualSurfaces : {false, true}) {
      HeightmapOptions options;
      options.virtualSurfaces = virtualSurfaces;
      requireSameCells(computeHeightmap(map, options), computeHeightmapGpu(scheduler, map, options));
    }
  }
  SECTION("random maps with voxel means, negative coordinates and a cache of a few regions") {
    std::mt19937 random(7);
    OccupancyMap map(OccupancyModel{}, LayerSet{kVoxelMeanLayer});
    for (int32_t x = -40; x < 30; ++x)
      for (int32_t y = -35; y < 20; ++y)
        for (int32_t z = -40; z < 45; ++z) {
          const uint32_t r = random() % 100;
          if (r < 40) continue;  // unobserved
          const VoxelCoord v{x, y, z};
          Region& region = map.region(map.regionOf(v));
          region.occupancy()[map.localIndex(v)] = r < 55 ? 2.0f : -1.0f;
          VoxelMean& mean = region.mean()[map.localIndex(v)];
          mean.count = random() % 4;
          mean.sum[2] = mean.count * (random() % 1024);
        }
    for (uint32_t levels : {1u, 4u, 8u}) {
      HeightmapOptions options;
      options.levels = levels;
      options.robotHeight = 0.2;
      options.virtualSurfaces = levels == 4;
      options.maxSlopeDegrees = 45;
      options.maxStep = 0.3;
      GpuHeightmapStats stats;
      const uint64_t fewRegions = 6 * RegionCache::bytesPerRegion(map);
      const Heightmap gpuHm = computeHeightmapGpu(scheduler, map, options, fewRegions, &stats);
      CHECK(stats.chunks > 1);
      requireSameCells(computeHeightmap(map, options), gpuHm);
    }
    HeightmapOptions boxed;
    boxed.box = HeightmapBox{{-2.0, -1.0, -1.0}, {1.0, 0.5, 2.0}};
    boxed.robotHeight = 0.3;
    const Heightmap cpu = computeHeightmap(map, boxed);
    CHECK(cpu.width() == 30);  // the centres in [-2.0, 1.0]: voxels x -20 .. 9
    requireSameCells(cpu, computeHeightmapGpu(scheduler, map, boxed));
  }
}

TEST_CASE("Heightmap options and maps that cannot work are refused naming the setting", "[heightmap]") {
  const OccupancyMap map = terrain();
  const auto refuses = [&](HeightmapOptions options, const std::string& words) {
    CHECK_THROWS_WITH(computeHeightmap(map, options), Catch::Contains(words));
  };
  HeightmapOptions o;
  o.robotHeight = 0.05;
  refuses(o, "the robot height 0.05 m is below one voxel");
  o = {};
  o.levels = 0;
  refuses(o, "the level count must be in 1..8");
  o = {};
  o.maxSlopeDegrees = 90;
  refuses(o, "the largest slope must be in [0, 90)");
  o = {};
  o.box = HeightmapBox{{100, 100, 0}, {110, 110, 1}};
  refuses(o, "the box lies outside the map");
  o = {};
  o.box = HeightmapBox{{0, 0, 2.0}, {1, 1, 2.5}};  // only free space there
  refuses(o, "no occupied voxel inside the box");
  OccupancyMap empty;
  set(empty, 0, 0, 0, -1.0f);
  CHECK_THROWS_WITH(computeHeightmap(empty, {}), Catch::Contains("the map has no occupied voxel"));
}
