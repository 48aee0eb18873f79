// The PostgreSQL store (engine/store/src/pg_*.cpp). Always: a session is refused for an SQLite
// store (test_store_name.cpp checks that a URL's password never shows). "[.pg]" (hidden;
// tests/cli/store/pg_store.sh runs it on its throwaway cluster, VOXEN_TEST_PG_URL naming an empty
// database): three threads, each with
// its own connection, push overlapping maps in many small batches at once, and the fused map
// equals mergeRegions of the three maps (the CPU reference of `voxen merge`) bit for bit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "support/occupancy_runs.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/layer_merge.hpp"
#include "voxen/store/map_store.hpp"

using namespace voxen;

TEST_CASE("A session names a map of a server store only", "[store]") {
  vt::TempDir dir("map-store-session");
  const OccupancyMap map(OccupancyModel{}, LayerSet{kHitMissLayer});
  try {
    openMapStoreForWriting((dir.path() / "a.vxs").string(), StoreDescription::of(map), {.session = "robot1"});
    FAIL("a session was accepted for an SQLite store");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("sessions belong to PostgreSQL stores"));
  }
  CHECK_FALSE(std::filesystem::exists(dir.path() / "a.vxs"));
}

TEST_CASE("Three writers pushing at once to a server store fuse to the merge of their maps", "[.pg]") {
  const char* url = std::getenv("VOXEN_TEST_PG_URL");
  if (!url) FAIL("VOXEN_TEST_PG_URL is not set: run this case through tests/cli/store/pg_store.sh, which starts a cluster");
  const LayerSet layers{kVoxelMeanLayer, kHitMissLayer, kTraversalLayer, kTouchTimeLayer};
  // Thirds of one run: three maps over the same rooms, sharing most regions.
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(3);
  std::vector<OccupancyMap> maps;
  for (int part = 0; part < 3; ++part) {
    const size_t first = rays.size() * part / 3, last = rays.size() * (part + 1) / 3;
    maps.push_back(vt::occupancy::runCpu({rays.begin() + first, rays.begin() + last}, {}, {}, layers).map);
  }
  std::vector<std::thread> writers;
  std::vector<std::string> errors(3);
  std::vector<uint64_t> pushes(3);
  for (int w = 0; w < 3; ++w)
    writers.emplace_back([&, w] {
      try {
        std::unique_ptr<MapStore> store = openMapStoreForWriting(url, StoreDescription::of(maps[w]), {.session = "thread" + std::to_string(w)});
        std::vector<const Region*> regions;
        for (const auto& [key, region] : maps[w].regions()) regions.push_back(&region);
        std::sort(regions.begin(), regions.end(), [](const Region* a, const Region* b) { return a->key < b->key; });
        if (w == 1) std::reverse(regions.begin(), regions.end());  // the batches' orders differ; locks are taken in key order
        for (int round = 0; round < 2; ++round)  // every region twice: a push replaces the session's rows
          for (size_t i = 0; i < regions.size(); i += 2 + w) {
            StoreBatch batch;
            batch.regions.assign(regions.begin() + i, regions.begin() + std::min(regions.size(), i + 2 + w));
            batch.state = {{"pushed", std::to_string(i)}};
            if (i == 0) batch.timeOrigin = maps[w].timeOrigin();
            store->write(batch);
            ++pushes[w];
          }
      } catch (const std::exception& e) {
        errors[w] = e.what();
      }
    });
  for (auto& t : writers) t.join();
  for (int w = 0; w < 3; ++w) {
    INFO("writer " << w << ": " << errors[w]);
    REQUIRE(errors[w].empty());
    CHECK(pushes[w] >= 10);
  }

  // The CPU reference: mergeRegions over the maps holding each key.
  const MapLayout merged = MapLayout::of(layers);
  std::map<RegionKey, std::vector<const Region*>> held;
  for (const OccupancyMap& m : maps)
    for (const auto& [key, region] : m.regions()) held[key].push_back(&region);
  size_t shared = 0;
  std::unique_ptr<MapStore> fused = openMapStoreForReading(url);
  REQUIRE(fused->description().layout == merged);
  REQUIRE(fused->keys().size() == held.size());
  for (const auto& [key, inputs] : held) {
    shared += inputs.size() > 1;
    const Region expected = mergeRegions(merged, maps[0].model(), inputs);
    const std::optional<Region> got = fused->readRegion(key);
    REQUIRE(got);
    for (const LayerId id : merged.ids()) {
      INFO("region " << key.x << "," << key.y << "," << key.z << " layer " << layerType(id).name);
      REQUIRE(got->layers[id] == expected.layers[id]);
    }
  }
  CHECK(shared > 10);
  // Each session reads back as it was pushed, with its run state.
  for (int w = 0; w < 3; ++w) {
    std::unique_ptr<MapStore> session = openMapStoreForReading(url, {.session = "thread" + std::to_string(w)});
    REQUIRE(session->keys().size() == maps[w].regions().size());
    CHECK(session->value("pushed").has_value());
    for (const auto& [key, region] : maps[w].regions()) {
      const std::optional<Region> got = session->readRegion(key);
      REQUIRE(got);
      for (const LayerId id : maps[w].layout().ids()) REQUIRE(got->layers[id] == region.layers[id]);
    }
  }
}
