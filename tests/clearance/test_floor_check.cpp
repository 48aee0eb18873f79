// voxen clearance's floor warning: a room's floor is the nearest obstacle of most free voxels
// in the layers above it unless --ignore-below leaves it out; walls close by take that over.
#include <catch2/catch.hpp>

#include "support/clearance_reference.hpp"
#include "voxen/clearance/floor_check.hpp"

using namespace voxen;
using namespace vt::clearance;

namespace {

// One free region (32^3 voxels of 0.1 m) over an occupied floor in layer 0; `walls`: occupied
// walls every 4 voxels across x as well.
OccupancyMap room(bool walls) {
  OccupancyMap map = freeMap(0.1, {0, 0, 0}, {0, 0, 0});
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      setOccupied(map, {x, y, 0});
      if (walls && x % 4 == 0)
        for (int z = 1; z < 32; ++z) setOccupied(map, {x, y, z});
    }
  return map;
}

}  // namespace

TEST_CASE("The floor warning: the floor dominates the layers above it unless it is left out", "[clearance][floorcheck]") {
  ClearanceOptions options;
  options.range = 2.0;
  options.unknownFree = true;
  OccupancyMap open = room(false);
  computeClearanceCpu(open, options);
  const FloorDominance floor = floorDominance(open, options);
  CHECK(floor.dominates());
  CHECK(floor.floorLayer == 0);
  CHECK(floor.firstLayer == 1);
  CHECK(floor.largestShare > 0.9);
  CHECK(floorDominance(open, options, 10).dominates());  // the slice at z 1.0 m
  const std::string text = floorWarning(floor, 0.1, "--ignore-below ");
  CHECK_THAT(text, Catch::Contains("the floor caps the clearance") && Catch::Contains("(e.g. --ignore-below 0.2, just above it)") && Catch::Contains("layer 0"));

  options.ignoreBelow = 0.2;  // the floor is no obstacle
  OccupancyMap robot = room(false);
  computeClearanceCpu(robot, options);
  CHECK_FALSE(floorDominance(robot, options).dominates());

  options.ignoreBelow.reset();
  OccupancyMap narrow = room(true);  // walls 0.4 m apart are nearer than the floor above 0.3 m
  computeClearanceCpu(narrow, options);
  const FloorDominance walls = floorDominance(narrow, options);
  CHECK_FALSE(floorDominance(narrow, options, 10).dominates());
  CHECK(walls.lastLayer <= 4);  // only the layers next to the floor, within about a wall gap of it
}
