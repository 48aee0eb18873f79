// Region stores (engine/store): a mapped map with several layers round-trips bit for bit
// (and back to the same .vxm bytes), bounded reads touch only the regions of their box, a
// corrupt row is an Error naming its region and layer, a store of another resolution or
// layout is refused, a second writer is refused naming the first's pid, and a batch that
// fails half-way leaves the store as it was. Plus the two timings.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>

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

// A small synthetic lidar run mapped by the CPU reference with every optional layer.
const OccupancyMap& mappedRun() {
  static const OccupancyMap map = [] {
    return vt::occupancy::runCpu(vt::occupancy::smallLidarRun(2), {}).map;
  }();
  return map;
}

std::string bytesOf(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("A mapped run with several layers round-trips through a store bit for bit", "[store]") {
  vt::TempDir dir("store-roundtrip");
  const OccupancyMap& map = mappedRun();
  REQUIRE(map.layout().ids().size() == 5);
  REQUIRE(map.regions().size() > 8);
  saveMapToStore(map, dir / "run.vxs");
  CHECK(isRegionStoreFile(dir / "run.vxs"));
  CHECK_FALSE(std::filesystem::exists(dir / "run.vxs-wal"));
  const OccupancyMap loaded = loadMapFromStore(dir / "run.vxs");
  requireSameMap(map, loaded);
  // A reader leaves no log or index behind (they would block replacing the store).
  CHECK_FALSE(std::filesystem::exists(dir / "run.vxs-wal"));
  CHECK_FALSE(std::filesystem::exists(dir / "run.vxs-shm"));

  // .vxm -> store -> .vxm gives the same bytes.
  saveMap(map, dir / "a.vxm");
  CHECK_FALSE(isRegionStoreFile(dir / "a.vxm"));
  saveMapToStore(loadMap(dir / "a.vxm"), dir / "b.vxs");
  saveMap(loadMapFromStore(dir / "b.vxs"), dir / "b.vxm");
  CHECK(bytesOf(dir / "a.vxm") == bytesOf(dir / "b.vxm"));

  // One region by key, all layers or a chosen one.
  RegionStore store = RegionStore::openForReading(dir / "run.vxs");
  const Region& some = map.regions().begin()->second;
  const std::optional<Region> all = store.readRegion(some.key);
  REQUIRE(all);
  for (const LayerId id : map.layout().ids()) CHECK(all->layers[id] == some.layers[id]);
  const std::optional<Region> hits = store.readRegion(some.key, std::vector<LayerId>{kHitMissLayer});
  REQUIRE(hits);
  CHECK(hits->layers[kHitMissLayer] == some.layers[kHitMissLayer]);
  CHECK(hits->layers[kOccupancyLayer].empty());
  CHECK_FALSE(store.readRegion({1000, 1000, 1000}));
  CHECK(store.regionCount() == map.regions().size());
}

TEST_CASE("A bounded read of a store reads only the rows of regions intersecting its box", "[store]") {
  vt::TempDir dir("store-bbox");
  const OccupancyMap& map = mappedRun();
  saveMapToStore(map, dir / "run.vxs");
  const double edge = map.model().resolution * map.regionSize();
  // Regions with key x in [0, 1] and y, z in [-1, 0]: the box's corners lie inside regions.
  const StoreBox box{{0.5 * edge, -0.5 * edge, -0.5 * edge}, {1.5 * edge, 0.5 * edge, 0.5 * edge}};
  size_t inside = 0;
  for (const auto& [key, region] : map.regions())
    inside += key.x >= 0 && key.x <= 1 && key.y >= -1 && key.y <= 0 && key.z >= -1 && key.z <= 0;
  REQUIRE(inside > 0);
  REQUIRE(inside < map.regions().size());

  RegionStore store = RegionStore::openForReading(dir / "run.vxs");
  const OccupancyMap part = store.readMap(box);
  CHECK(part.regions().size() == inside);
  CHECK(store.rowsRead() == inside * map.layout().ids().size());
  for (const auto& [key, region] : part.regions()) {
    CHECK((key.x >= 0 && key.x <= 1 && key.y >= -1 && key.y <= 0 && key.z >= -1 && key.z <= 0));
    for (const LayerId id : map.layout().ids()) CHECK(region.layers[id] == map.findRegion(key)->layers[id]);
  }
  CHECK(store.keys(box).size() == inside);
  CHECK(store.keys().size() == map.regions().size());
}

TEST_CASE("A corrupt row in a store is an Error naming the region and the layer", "[store]") {
  vt::TempDir dir("store-corrupt");
  const OccupancyMap& map = mappedRun();
  saveMapToStore(map, dir / "run.vxs");
  const RegionKey key = map.regions().begin()->second.key;
  const std::string where = "x = " + std::to_string(key.x) + " AND y = " + std::to_string(key.y) + " AND z = " + std::to_string(key.z);
  const std::string region = "region (" + std::to_string(key.x) + "," + std::to_string(key.y) + "," + std::to_string(key.z) + ")";
  SECTION("a checksum that does not match") {
    execSql(dir / "run.vxs", "UPDATE regions SET crc32 = (crc32 + 1) % 4294967296 WHERE layer = 2 AND " + where);
    const std::string e = errorOf([&] { loadMapFromStore(dir / "run.vxs"); });
    CHECK_THAT(e, Catch::Contains("run.vxs") && Catch::Contains(region + " layer 'traversal'") && Catch::Contains("checksum mismatch"));
  }
  SECTION("a blob that is not zstd") {
    execSql(dir / "run.vxs", "UPDATE regions SET data = x'00112233445566778899' WHERE layer = 3 AND " + where);
    const std::string e = errorOf([&] { RegionStore::openForReading(dir / "run.vxs").readRegion(key); });
    CHECK_THAT(e, Catch::Contains(region + " layer 'hit_miss'") && Catch::Contains("zstd"));
  }
  SECTION("a stated size that is wrong") {
    execSql(dir / "run.vxs", "UPDATE regions SET uncompressed_bytes = 12 WHERE layer = 0 AND " + where);
    const std::string e = errorOf([&] { loadMapFromStore(dir / "run.vxs"); });
    CHECK_THAT(e, Catch::Contains(region + " layer 'occupancy'") && Catch::Contains("stated size is 12 bytes"));
  }
  SECTION("a missing layer row") {
    execSql(dir / "run.vxs", "DELETE FROM regions WHERE layer = 4 AND " + where);
    const std::string e = errorOf([&] { loadMapFromStore(dir / "run.vxs"); });
    CHECK_THAT(e, Catch::Contains(region + " has no row for layer 'touch_time'"));
  }
}

TEST_CASE("A store of another resolution, region size or layers is refused naming both values", "[store]") {
  vt::TempDir dir("store-refuse");
  const OccupancyMap& map = mappedRun();
  saveMapToStore(map, dir / "run.vxs");
  StoreDescription other = StoreDescription::of(map);
  other.model.resolution = 0.25;
  CHECK_THAT(errorOf([&] { RegionStore::openForWriting(dir / "run.vxs", other); }),
             Catch::Contains("run.vxs") && Catch::Contains("resolution 0.10000000000000001 m, not 0.25 m"));
  other = StoreDescription::of(map);
  other.model.regionSize = 16;
  CHECK_THAT(errorOf([&] { RegionStore::openForWriting(dir / "run.vxs", other); }), Catch::Contains("region size 32, not 16"));
  other = StoreDescription::of(map);
  other.layout = MapLayout::of({kHitMissLayer});
  CHECK_THAT(errorOf([&] { RegionStore::openForWriting(dir / "run.vxs", other); }),
             Catch::Contains("layers occupancy, voxel_mean, traversal, hit_miss, touch_time, not occupancy, hit_miss"));
  // The same layout opens, and a file that is not a store is named as such.
  CHECK_NOTHROW(RegionStore::openForWriting(dir / "run.vxs", StoreDescription::of(map)));
  saveMap(map, dir / "map.vxm");
  CHECK_THAT(errorOf([&] { RegionStore::openForReading(dir / "map.vxm"); }), Catch::Contains("map.vxm"));
}

TEST_CASE("A store open for writing refuses a second writer, naming its pid and host", "[store]") {
  vt::TempDir dir("store-lock");
  const OccupancyMap& map = mappedRun();
  RegionStore first = RegionStore::openForWriting(dir / "run.vxs", StoreDescription::of(map), {.busyTimeoutMs = 300});
  const std::string pid = "pid " + std::to_string(::getpid()) + " on host ";
  CHECK_THAT(errorOf([&] { RegionStore::openForWriting(dir / "run.vxs", StoreDescription::of(map)); }),
             Catch::Contains("locked by another writer (" + pid));
  // A writer mid-transaction: the other's BEGIN IMMEDIATE times out and names the writer.
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open((dir / "run.vxs").c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  RegionStore reader = RegionStore::openForReading(dir / "run.vxs");
  CHECK(reader.regionCount() == 0);  // readers go on beside the writer
  StoreBatch batch;
  batch.state = {{"input_position", "42"}};
  const auto start = std::chrono::steady_clock::now();
  CHECK_THAT(errorOf([&] { first.write(batch); }), Catch::Contains("locked by another writer (" + pid));
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(250));  // the busy timeout was waited
  sqlite3_exec(raw, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  first.write(batch);
  CHECK(first.value("input_position") == "42");
  // Closed: the registration is gone, so the next writer opens it.
  first = RegionStore::openForReading(dir / "run.vxs");
  CHECK_NOTHROW(RegionStore::openForWriting(dir / "run.vxs", StoreDescription::of(map)));
}

TEST_CASE("A batch that fails half-way leaves the store as it was", "[store]") {
  vt::TempDir dir("store-atomic");
  const OccupancyMap& map = mappedRun();
  RegionStore store = RegionStore::openForWriting(dir / "run.vxs", StoreDescription::of(map));
  std::vector<const Region*> regions;
  for (const auto& [key, region] : map.regions()) regions.push_back(&region);
  store.write({.regions = {regions[0]}, .state = {{"input_position", "1"}}});

  // The second batch: a changed copy of region 0, two good regions, then one with a short
  // layer, then another good one.
  Region changed = *regions[0];
  changed.occupancy()[0] = 1.0f;
  Region broken = *regions[3];
  broken.layers[kTraversalLayer].resize(8);
  StoreBatch batch{.regions = {&changed, regions[1], regions[2], &broken, regions[4]}, .state = {{"input_position", "2"}}};
  CHECK_THAT(errorOf([&] { store.write(batch); }), Catch::Contains("layer 'traversal'"));
  CHECK(store.regionCount() == 1);
  CHECK(store.value("input_position") == "1");
  CHECK(store.readRegion(regions[0]->key)->layers[kOccupancyLayer] == regions[0]->layers[kOccupancyLayer]);
  CHECK_FALSE(store.readRegion(regions[1]->key));
}

TEST_CASE("Store timings: a batch of 100 dirty regions, one region read from 10,000", "[store][bench]") {
  vt::TempDir dir("store-bench");
  OccupancyMap map(OccupancyModel{}, kAllBuiltinLayers);
  // Plausible contents: a mapped region's arrays, repeated under other keys.
  const Region& source = mappedRun().regions().begin()->second;
  StoreDescription description = StoreDescription::of(map);
  RegionStore store = RegionStore::openForWriting(dir / "bench.vxs", description);
  std::vector<Region> regions(100, source);
  double firstBatchMs = 0.0;
  for (int batch = 0; batch < 100; ++batch) {
    std::vector<const Region*> pointers;
    for (int i = 0; i < 100; ++i) {
      regions[size_t(i)].key = {batch, i, 0};
      pointers.push_back(&regions[size_t(i)]);
    }
    const auto start = std::chrono::steady_clock::now();
    store.write({.regions = pointers});
    if (batch == 0) firstBatchMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  REQUIRE(store.regionCount() == 10000);
  // A checkpoint of 100 dirty regions into the full store (rows replaced).
  std::vector<const Region*> dirty;
  for (int i = 0; i < 100; ++i) {
    regions[size_t(i)].key = {i, 50, 0};
    dirty.push_back(&regions[size_t(i)]);
  }
  auto start = std::chrono::steady_clock::now();
  store.write({.regions = dirty});
  const double checkpointMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RegionStore reader = RegionStore::openForReading(dir / "bench.vxs");
  reader.readRegion({0, 0, 0});  // first touch opens the file's pages
  start = std::chrono::steady_clock::now();
  constexpr int kReads = 200;
  for (int i = 0; i < kReads; ++i) REQUIRE(reader.readRegion({(i * 37) % 100, (i * 53) % 100, 0}));
  const double readMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / kReads;
  WARN("store timings: 100 new regions in one transaction " << firstBatchMs << " ms; 100 dirty regions into a store of 10,000 "
       << checkpointMs << " ms; one region (5 layers) read from 10,000: " << readMs << " ms");
  CHECK(checkpointMs < 1000.0);  // generous: a shared CI machine; the target is 100 ms
  CHECK(readMs < 50.0);          // the target is 1 ms
}
