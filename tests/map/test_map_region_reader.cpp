// MapFileRegionReader (voxen/map/map_file.hpp): a map file read region by region gives
// loadMap's regions bit for bit, nullopt for a key the file lacks, and loadMap's errors for a
// corrupt block, naming the file and the region.
#include <catch2/catch.hpp>

#include <fstream>

#include "support/occupancy_runs.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/map_file.hpp"

using namespace voxen;

TEST_CASE("a map file read region by region equals the loaded map", "[map_file][merge]") {
  vt::TempDir dir("region-reader");
  const OccupancyMap map = vt::occupancy::runCpu(vt::occupancy::smallLidarRun(2), {}).map;
  saveMap(map, dir / "map.vxm");
  MapFileRegionReader reader(dir / "map.vxm");
  CHECK(reader.shape().layout() == map.layout());
  CHECK(reader.shape().timeOrigin() == map.timeOrigin());
  REQUIRE(reader.info().regions.size() == map.regions().size());
  for (const auto& [key, region] : map.regions()) {
    const std::optional<Region> read = reader.read(key);
    REQUIRE(read);
    for (const LayerId id : map.layout().ids()) REQUIRE(read->layers[id] == region.layers[id]);
  }
  CHECK_FALSE(reader.read(RegionKey{1000, 1000, 1000}));

  SECTION("a corrupt block is an Error naming the file and the region") {
    const MapFileInfo::RegionEntry entry = reader.info().regions.back();
    std::fstream file(dir / "map.vxm", std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(std::streamoff(entry.offset + kMapFileBlockHeaderBytes + 8));
    file.put('\x5a').put('\xa5').put('\x5a');
    file.close();
    MapFileRegionReader corrupt(dir / "map.vxm");
    try {
      corrupt.read(entry.key);
      FAIL("read a corrupt block");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains("map.vxm") && Catch::Contains("region (" + std::to_string(entry.key.x)));
    }
  }
}
