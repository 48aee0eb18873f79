// voxen export --bbox is a crop: a store is read by region, and what lies past the box in
// those regions is cleared before anything is written (every layer, not only occupancy).
#include <catch2/catch.hpp>

#include "support/temp_dir.hpp"
#include "voxen/export/export_box.hpp"
#include "voxen/export/map_export.hpp"

using namespace voxen;

TEST_CASE("Exports crop to --bbox: voxels whose centre lies in the box", "[mapexport][bbox]") {
  OccupancyModel model;
  model.resolution = 0.1;
  model.regionSize = 8;
  OccupancyMap map(model, LayerSet{kHitMissLayer});
  for (int x = -10; x < 20; ++x)
    for (int y = 0; y < 3; ++y) {
      const VoxelCoord v{x, y, 0};
      Region& r = map.region(map.regionOf(v));
      r.occupancy()[map.localIndex(v)] = 2.0f;
      r.hitMiss()[map.localIndex(v)].hits = 3;
    }
  // x from 0.05 (voxel 0's centre, included) to 0.3 (voxel 2's centre 0.25 in, voxel 3's 0.35 out).
  const uint64_t cleared = cropToBox(map, {{0.05, 0.0, 0.0}, {0.3, 1.0, 1.0}});
  CHECK(cleared == 30 * 3 - 3 * 3);
  uint64_t kept = 0, counts = 0;
  for (const auto& [key, region] : map.regions())
    for (uint32_t i = 0; i < map.voxelsPerRegion(); ++i) {
      if (isObserved(region.occupancy()[i])) {
        ++kept;
        const glm::dvec3 c = map.voxelCentre(map.voxelOf(key, i));
        CHECK((c.x > 0.0 && c.x < 0.3));
      }
      counts += region.hitMiss()[i].hits != 0;  // every layer is cleared, not only occupancy
    }
  CHECK(kept == 9);
  CHECK(counts == 9);
  vt::TempDir dir("bbox");
  CHECK(exportOccupiedPly(map, dir / "box.ply") == 9);
}
