// Mapping into a store (voxen/store/store_mapping.hpp) through Mapper::integrateFile: a map
// kept within a host memory limit far below its size, paged to the store and back, is the
// in-memory map bit for bit (GPU, with a GPU cache smaller than the map too, and the CPU
// reference); a run interrupted after unsaved work and resumed from its last checkpoint
// ends with the uninterrupted run's map; and the refusals (a store that holds a run, other
// settings on resume, a complete run).
#include <catch2/catch.hpp>

#include <optional>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "support/temp_dir.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/mapper.hpp"
#include "voxen/store/store_file.hpp"
#include "voxen/store/store_mapping.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

struct Interrupted {};

struct RunSetup {
  MapperBackend backend = MapperBackend::Gpu;
  UpdateOrder order = UpdateOrder::Sequential;
  uint64_t gpuCacheBytes = 64ull << 20;
  ResidencyLookup lookup = ResidencyLookup::Adaptive;
};

MapperOptions mapperOptions(const RunSetup& setup) {
  MapperOptions options;
  options.extraLayers = kVoxelMeanLayer | kHitMissLayer | kTouchTimeLayer;
  options.run.backend = setup.backend;
  options.run.integration.order = setup.order;
  // CPU reference: one batch per 4096-ray chunk; GPU: batches of 4096 rays.
  options.run.gpu = {.cacheBytes = setup.gpuCacheBytes, .maxRaysPerBatch = 4096, .residencyLookup = setup.lookup};
  return options;
}

// Several chunks per scan, so that checkpoints and evictions fall between many of them.
RayReader openReader(const std::filesystem::path& cloud) { return RayReader(cloud, std::nullopt, {.chunkPoints = 4096}); }

OccupancyMap mapInMemory(Context& ctx, const RunSetup& setup, const std::filesystem::path& cloud) {
  Mapper mapper(ctx, mapperOptions(setup));
  RayReader reader = openReader(cloud);
  mapper.integrateFile(reader);
  return mapper.map();
}

const RunSettings kSettings = {{"--resolution", "0.1"}, {"--input", "run.ply"}};

// Maps `cloud` into the store; with `stopAtChunk`, throws Interrupted at that chunk boundary
// before the store sees it (the chunk's rays integrated but not saved: a crash).
StoreMappingStats mapIntoStore(Context& ctx, const RunSetup& setup, const std::filesystem::path& cloud,
                               const std::filesystem::path& store, const StoreMappingOptions& options, bool resume,
                               std::optional<int> stopAtChunk = std::nullopt) {
  Mapper mapper(ctx, mapperOptions(setup));
  std::unique_ptr<MapStore> opened = openMapStoreForWriting(store.string(), StoreDescription::of(mapper.map()));
  std::unique_ptr<StoreMapping> mapping = resume ? StoreMapping::resume(std::move(opened), kSettings, options)
                                                 : StoreMapping::start(std::move(opened), kSettings, options);
  mapper.setRegionSource(mapping.get());
  RayReader reader = openReader(cloud);
  int chunk = 0;
  FileIntegrationOptions file{.skipRays = mapping->resumeRays(), .betweenChunks = [&](MapperChunkBoundary& b) {
                                if (stopAtChunk && ++chunk == *stopAtChunk) throw Interrupted{};
                                mapping->betweenChunks(b.map(), b.raysTaken(), b.last(), [&b] { b.sync(); });
                              }};
  try {
    mapper.integrateFile(reader, file);
  } catch (const Interrupted&) {
    // The Mapper goes before the store it pages to (its destructor copies the GPU's regions
    // into the host map, which may fetch).
    mapper.setRegionSource(nullptr);
    throw;
  }
  mapper.setRegionSource(nullptr);
  CHECK(mapping->counts().regions == loadMapFromStore(store).regions().size());
  return mapping->stats();
}

void requireSameMaps(const OccupancyMap& stored, const OccupancyMap& reference) {
  const Comparison c = compareMaps(stored, reference);
  INFO("voxels " << c.voxels << ", same bits " << c.sameBits << ", layer mismatches " << c.layerMismatches);
  REQUIRE(stored.regions().size() == reference.regions().size());
  CHECK(c.voxels > 1000);
  CHECK(c.identical());
}

}  // namespace

TEST_CASE("A map paged to its store within a small host memory limit equals the in-memory map", "[store][store-mapping][gpu]") {
  vt::TempDir dir("store-mapping");
  const auto cloud = dir / "run.ply";
  writeRayCloud(cloud, smallLidarRun(3));
  Context ctx(vt::gpu().scheduler);
  const uint64_t regionBytes = OccupancyMap({}, kVoxelMeanLayer | kHitMissLayer | kTouchTimeLayer).bytesPerRegion();
  struct Case {
    const char* name;
    RunSetup setup;
  };
  for (const Case& c : {Case{"GPU, sequential", {}},
                        // A GPU cache of 8 regions: regions go GPU -> host -> store and back.
                        Case{"GPU, sequential, small GPU cache", {.gpuCacheBytes = 8 * regionBytes}},
                        // Regions looked up on the GPU: a region a batch the host has not read back
                        // yet may have changed is copied back when evicted (and its change saved)
                        // even if the map holds it unchanged or paged out.
                        Case{"GPU, sequential, small GPU cache, GPU lookup",
                             {.gpuCacheBytes = 8 * regionBytes, .lookup = ResidencyLookup::Gpu}},
                        Case{"CPU reference, two-phase", {.backend = MapperBackend::CpuReference, .order = UpdateOrder::TwoPhase}}}) {
    INFO(c.name);
    const OccupancyMap reference = mapInMemory(ctx, c.setup, cloud);
    REQUIRE(reference.regions().size() > 12);
    const auto store = dir / (std::string(c.name) + ".vxs");
    // Four regions of host memory, a small fraction of the map; checkpoints only when the
    // memory limit needs them and at the end.
    const StoreMappingStats stats =
        mapIntoStore(ctx, c.setup, cloud, store, {.hostMemoryBytes = 4 * regionBytes, .checkpointSeconds = 1e9}, false);
    CHECK(stats.evictions > 0);
    if (c.setup.backend == MapperBackend::CpuReference || c.setup.gpuCacheBytes < (64ull << 20)) CHECK(stats.fetches > 0);
    requireSameMaps(loadMapFromStore(store), reference);
  }
}

TEST_CASE("A run interrupted after unsaved work and resumed from its checkpoint ends with the uninterrupted map", "[store][store-mapping][gpu]") {
  vt::TempDir dir("store-resume");
  const auto cloud = dir / "run.ply";
  writeRayCloud(cloud, smallLidarRun(3));
  Context ctx(vt::gpu().scheduler);
  const uint64_t regionBytes = OccupancyMap({}, kVoxelMeanLayer | kHitMissLayer | kTouchTimeLayer).bytesPerRegion();
  for (const RunSetup setup : {RunSetup{}, RunSetup{.backend = MapperBackend::CpuReference, .order = UpdateOrder::TwoPhase}}) {
    INFO((setup.backend == MapperBackend::Gpu ? "GPU" : "CPU reference"));
    const OccupancyMap reference = mapInMemory(ctx, setup, cloud);
    const auto store = dir / (setup.backend == MapperBackend::Gpu ? "gpu.vxs" : "cpu.vxs");
    // A checkpoint every third chunk or so (every chunk would leave nothing unsaved): a host
    // limit forces them, and the run dies at chunk 7 with work since the last one.
    const StoreMappingOptions options{.hostMemoryBytes = 6 * regionBytes, .checkpointSeconds = 0};
    REQUIRE_THROWS_AS(mapIntoStore(ctx, setup, cloud, store, options, false, 7), Interrupted);
    {
      RegionStore left = RegionStore::openForReading(store);
      REQUIRE(left.value("run.state") == "running");
      CHECK(std::stoull(*left.value("run.rays")) > 0);
      CHECK(left.regionCount() > 0);
    }
    const StoreMappingStats resumed = mapIntoStore(ctx, setup, cloud, store, options, true);
    CHECK(resumed.checkpoints > 0);
    requireSameMaps(loadMapFromStore(store), reference);
    CHECK(RegionStore::openForReading(store).value("run.state") == "complete");
  }
}

TEST_CASE("Store mapping refuses a store that holds a run, other settings on resume and a complete run", "[store][store-mapping]") {
  vt::TempDir dir("store-refusals");
  const auto path = (dir / "a.vxs").string();
  const StoreDescription description = StoreDescription::of(OccupancyMap());
  auto errorOf = [](const std::function<void()>& fn) -> std::string {
    try {
      fn();
    } catch (const Error& e) {
      return e.what();
    }
    return "<no error>";
  };
  // Nothing to resume in a new store.
  CHECK_THAT(errorOf([&] { StoreMapping::resume(openMapStoreForWriting(path, description), kSettings, {}); }),
             Catch::Contains("holds no mapping run to resume"));
  StoreMapping::start(openMapStoreForWriting(path, description), kSettings, {});
  CHECK_THAT(errorOf([&] { StoreMapping::start(openMapStoreForWriting(path, description), kSettings, {}); }),
             Catch::Contains("already holds a mapping run (running") && Catch::Contains("resume it, or map into a new store"));
  const RunSettings other = {{"--resolution", "0.2"}, {"--input", "run.ply"}};
  CHECK_THAT(errorOf([&] { StoreMapping::resume(openMapStoreForWriting(path, description), other, {}); }),
             Catch::Contains("was started with --resolution 0.1, this command gives 0.2"));
  {
    auto mapping = StoreMapping::resume(openMapStoreForWriting(path, description), kSettings, {});
    OccupancyMap map;
    map.setRegionSource(mapping.get());
    map.region({0, 0, 0}).occupancy()[0] = 1.0f;
    map.markOccupancyChanged(RegionKey{0, 0, 0});
    mapping->betweenChunks(map, 10, true, [] {});
    CHECK(mapping->counts().regions == 1);
    CHECK(mapping->counts().occupied == 1);
  }
  CHECK_THAT(errorOf([&] { StoreMapping::resume(openMapStoreForWriting(path, description), kSettings, {}); }),
             Catch::Contains("is complete: there is nothing to resume"));
  // A map made by voxen convert is not a run.
  const auto converted = dir / "converted.vxs";
  OccupancyMap map;
  map.region({1, 2, 3});
  saveMapToStore(map, converted);
  CHECK_THAT(errorOf([&] { StoreMapping::start(openMapStoreForWriting(converted.string(), description), kSettings, {}); }),
             Catch::Contains("already holds a map (made by voxen convert or voxen merge)"));
}
