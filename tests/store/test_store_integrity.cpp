// What a region store's checksums cover (store format 2, issue 35 item 4): a row moved to
// another key, two layers' rows trading positions, a description field or a layer-table row
// changed, and a damaged SQLite header are each refused with an Error naming the store and
// the row or field, where they used to read as another map; a format 1 store written by the
// previous version is still read bit for bit and never written to. And what a reader leaves
// behind (item 5): nothing, whether or not a writer is running.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <sys/stat.h>

#include <bit>
#include <cstring>
#include <fstream>

#include "support/occupancy_runs.hpp"
#include "support/same_map.hpp"
#include "support/sqlite_exec.hpp"
#include "support/test_helpers.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/store/region_store.hpp"
#include "voxen/store/store_file.hpp"

using namespace voxen;

using vt::errorOf;
using vt::execSql;
using vt::requireSameMap;

namespace {

const OccupancyMap& mappedRun() {
  static const OccupancyMap map = [] { return vt::occupancy::runCpu(vt::occupancy::smallLidarRun(2), {}).map; }();
  return map;
}

std::string keyText(const RegionKey& k) {
  return "region (" + std::to_string(k.x) + "," + std::to_string(k.y) + "," + std::to_string(k.z) + ")";
}

std::string whereKey(const RegionKey& k) {
  return "x = " + std::to_string(k.x) + " AND y = " + std::to_string(k.y) + " AND z = " + std::to_string(k.z);
}

int64_t positionOf(const OccupancyMap& map, LayerId id) {
  const auto& ids = map.layout().ids();
  return int64_t(std::find(ids.begin(), ids.end(), id) - ids.begin());
}

}  // namespace

TEST_CASE("A store region moved to another key is refused naming the store and the key", "[store][integrity]") {
  vt::TempDir dir("store-moved");
  const OccupancyMap& map = mappedRun();
  saveMapToStore(map, dir / "run.vxs");
  const RegionKey from = map.regions().begin()->second.key;
  const RegionKey to{from.x + 1000, from.y, from.z};
  REQUIRE(map.findRegion(to) == nullptr);
  // Every layer's row moved: a whole, plausible region under another key.
  execSql(dir / "run.vxs", "UPDATE regions SET x = x + 1000 WHERE " + whereKey(from));
  const std::string whole = errorOf([&] { loadMapFromStore(dir / "run.vxs"); });
  CHECK_THAT(whole, Catch::Contains("run.vxs") && Catch::Contains("corrupt row: " + keyText(to) + " layer 'occupancy'") &&
                        Catch::Contains("checksum mismatch") && Catch::Contains("region key"));
  const std::string one = errorOf([&] { RegionStore::openForReading(dir / "run.vxs").readRegion(to); });
  CHECK_THAT(one, Catch::Contains("corrupt row: " + keyText(to)) && Catch::Contains("checksum mismatch"));
}

TEST_CASE("Two rows of a store region trading layer positions are refused naming the layer", "[store][integrity]") {
  vt::TempDir dir("store-swapped");
  const OccupancyMap& map = mappedRun();
  saveMapToStore(map, dir / "run.vxs");
  // traversal and touch_time: both 8 bytes per voxel of 8-byte elements, so each row decodes
  // as the other layer's array.
  REQUIRE(layerType(kTraversalLayer).bytesPerVoxel == layerType(kTouchTimeLayer).bytesPerVoxel);
  const int64_t a = positionOf(map, kTraversalLayer), b = positionOf(map, kTouchTimeLayer);
  const RegionKey key = map.regions().begin()->second.key;
  const std::string region = whereKey(key), pa = std::to_string(a), pb = std::to_string(b);
  execSql(dir / "run.vxs", "UPDATE regions SET layer = -1 WHERE layer = " + pa + " AND " + region + ";" +
                               "UPDATE regions SET layer = " + pa + " WHERE layer = " + pb + " AND " + region + ";" +
                               "UPDATE regions SET layer = " + pb + " WHERE layer = -1 AND " + region);
  const std::string e = errorOf([&] { loadMapFromStore(dir / "run.vxs"); });
  CHECK_THAT(e, Catch::Contains("run.vxs") && Catch::Contains("corrupt row: " + keyText(key) + " layer 'traversal'") &&
                    Catch::Contains("checksum mismatch"));
  CHECK_THAT(errorOf([&] { RegionStore::openForReading(dir / "run.vxs").readRegion(key, std::vector<LayerId>{kTouchTimeLayer}); }),
             Catch::Contains(keyText(key) + " layer 'touch_time'") && Catch::Contains("checksum mismatch"));
}

TEST_CASE("Layers trading positions in a store's layer table are refused naming the row", "[store][integrity]") {
  vt::TempDir dir("store-layer-table");
  const OccupancyMap& map = mappedRun();
  saveMapToStore(map, dir / "run.vxs");
  const std::string pa = std::to_string(positionOf(map, kTraversalLayer)), pb = std::to_string(positionOf(map, kTouchTimeLayer));
  execSql(dir / "run.vxs", "UPDATE layers SET position = -1 WHERE position = " + pa + ";" + "UPDATE layers SET position = " + pa +
                               " WHERE position = " + pb + ";" + "UPDATE layers SET position = " + pb + " WHERE position = -1");
  CHECK_THAT(errorOf([&] { RegionStore::openForReading(dir / "run.vxs"); }),
             Catch::Contains("run.vxs") && Catch::Contains("its layer table row layer " + pa + " 'touch_time'") &&
                 Catch::Contains("does not match its checksum"));
}

TEST_CASE("A changed description field of a store is refused naming the field", "[store][integrity]") {
  vt::TempDir dir("store-description");
  const OccupancyMap& map = mappedRun();
  saveMapToStore(map, dir / "run.vxs");
  // Each a valid value, so only the checksum can tell: another resolution or model is
  // another map from the same rows.
  const std::pair<const char*, const char*> changes[] = {
      {"resolution", "0.2"}, {"hit_probability", "0.75"}, {"clamp_max", "2.5"}, {"region_size", "16"}, {"time_origin", "12.5"}};
  for (const auto& [field, value] : changes) {
    INFO(field);
    std::filesystem::copy_file(dir / "run.vxs", dir / "changed.vxs", std::filesystem::copy_options::overwrite_existing);
    execSql(dir / "changed.vxs", std::string("UPDATE description SET value = ") + value + " WHERE key = '" + field + "'");
    const std::string e = errorOf([&] { RegionStore::openForReading(dir / "changed.vxs"); });
    CHECK_THAT(e, Catch::Contains("changed.vxs") && Catch::Contains(std::string("its description field '") + field + "'") &&
                      Catch::Contains("does not match its checksum"));
  }
  // A format version lowered to 1 (whose stores carry no such checksums) is a changed field too.
  execSql(dir / "run.vxs", "UPDATE description SET value = 1 WHERE key = 'format_version'");
  CHECK_THAT(errorOf([&] { loadMapFromStore(dir / "run.vxs"); }), Catch::Contains("its description field 'format_version'"));
}

TEST_CASE("A store whose SQLite header is damaged is named as a damaged store, not a map file", "[store][integrity]") {
  vt::TempDir dir("store-header");
  const OccupancyMap& map = mappedRun();
  saveMapToStore(map, dir / "run.vxs");
  saveMap(map, dir / "run.vxm");
  CHECK(storeFileKind(dir / "run.vxs") == StoreFileKind::Store);
  CHECK(storeFileKind(dir / "run.vxm") == StoreFileKind::Other);
  for (const std::streamoff at : {std::streamoff(0), std::streamoff(7), std::streamoff(15)}) {
    INFO("byte " << at);
    std::filesystem::copy_file(dir / "run.vxs", dir / "damaged.vxs", std::filesystem::copy_options::overwrite_existing);
    {
      std::fstream f(dir / "damaged.vxs", std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(at);
      f.put('X');
    }
    std::string damage;
    CHECK(storeFileKind(dir / "damaged.vxs", &damage) == StoreFileKind::DamagedStore);
    CHECK_THAT(damage, Catch::Contains("at byte " + std::to_string(at)));
    CHECK(isRegionStoreFile(dir / "damaged.vxs"));  // so readers open it as a store and name it
    CHECK_THAT(errorOf([&] { RegionStore::openForReading(dir / "damaged.vxs"); }),
               Catch::Contains("damaged.vxs") && Catch::Contains("looks like a damaged region store"));
    CHECK_THAT(errorOf([&] { RegionStore::openForWriting(dir / "damaged.vxs", StoreDescription::of(map)); }),
               Catch::Contains("looks like a damaged region store"));
  }
  // A damaged map file stays a map file.
  {
    std::fstream f(dir / "run.vxm", std::ios::in | std::ios::out | std::ios::binary);
    f.put('X');
  }
  CHECK(storeFileKind(dir / "run.vxm") == StoreFileKind::Other);
}

TEST_CASE("A format 1 store written by the previous version reads bit for bit and is never written to", "[store][integrity]") {
  // tests/data/store_v1/README.md: v1-all-layers.vxm converted by the build before format 2.
  const std::filesystem::path data = std::filesystem::path(VOXEN_TEST_SOURCE_DIR) / "tests/data";
  vt::TempDir dir("store-v1");
  std::filesystem::copy_file(data / "store_v1/v1-all-layers.vxs", dir / "v1.vxs");
  const OccupancyMap expected = loadMap(data / "map_v1/v1-all-layers.vxm");
  RegionStore store = RegionStore::openForReading(dir / "v1.vxs");
  CHECK(store.description().formatVersion == 1);
  requireSameMap(store.readMap(), expected);
  CHECK_THAT(errorOf([&] { RegionStore::openForWriting(dir / "v1.vxs", StoreDescription::of(expected)); }),
             Catch::Contains("v1.vxs") && Catch::Contains("store format 1") && Catch::Contains("writes only format 2"));
  // Written anew, it is format 2.
  saveMapToStore(store.readMap(), dir / "v2.vxs");
  CHECK(RegionStore::openForReading(dir / "v2.vxs").description().formatVersion == 2);
}

TEST_CASE("A store reader leaves nothing beside the store and sees a running writer's commits", "[store][integrity]") {
  vt::TempDir dir("store-reader-files");
  const OccupancyMap& map = mappedRun();
  saveMapToStore(map, dir / "run.vxs");
  const auto siblings = [&] {
    return std::filesystem::exists(dir / "run.vxs-wal") || std::filesystem::exists(dir / "run.vxs-shm") ||
           std::filesystem::exists(dir / "run.vxs-journal");
  };
  REQUIRE_FALSE(siblings());
  // A write-protected file (root can still write it: the CLI test runs a reader as another user).
  REQUIRE(::chmod((dir / "run.vxs").c_str(), 0444) == 0);
  {
    RegionStore reader = RegionStore::openForReading(dir / "run.vxs");
    CHECK(reader.readMap().regions().size() == map.regions().size());
    CHECK_FALSE(siblings());  // while open, too: immutable reads use no log or index
  }
  CHECK_FALSE(siblings());
  REQUIRE(::chmod((dir / "run.vxs").c_str(), 0644) == 0);

  // Beside a writer the reader reads through the writer's log and sees each commit it opens after.
  RegionStore writer = RegionStore::openForWriting(dir / "run.vxs", StoreDescription::of(map));
  Region moved = map.regions().begin()->second;
  moved.key = {moved.key.x + 1000, moved.key.y, moved.key.z};
  writer.write({.regions = {&moved}, .state = {{"run.state", "running"}}});
  RegionStore reader = RegionStore::openForReading(dir / "run.vxs");
  CHECK(reader.value("run.state") == "running");
  CHECK(reader.readRegion(moved.key)->layers[kOccupancyLayer] == moved.layers[kOccupancyLayer]);
}
