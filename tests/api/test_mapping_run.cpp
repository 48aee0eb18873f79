// voxen::MappingRun (voxen/mapping_run.hpp): a recording into a map file is the map a Mapper
// driven by hand makes of the same reader, bit for bit, on the GPU and the CPU reference; a
// store run stopped on request keeps a checkpoint, and resumed from it ends with the
// uninterrupted map; a run that updates nothing writes nothing; and the statistics' JSON.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "support/same_map.hpp"
#include "support/temp_dir.hpp"
#include "voxen/context.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/mapper.hpp"
#include "voxen/mapping_run.hpp"
#include "voxen/store/region_store.hpp"
#include "voxen/store/store_file.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

MapperOptions mapperOptions(MapperBackend backend) {
  MapperOptions options;
  options.extraLayers = kVoxelMeanLayer | kHitMissLayer;
  options.run.backend = backend;
  options.run.gpu.maxRaysPerBatch = 4096;
  return options;
}

// Several chunks per scan, so that checkpoints and stop requests fall between many of them.
RayReaderOptions readerOptions() { return {.chunkPoints = 4096}; }

// The reference: the Mapper fed the same reader by hand.
OccupancyMap mapByHand(Context& ctx, MapperBackend backend, const std::filesystem::path& cloud) {
  Mapper mapper(ctx, mapperOptions(backend));
  RayReader reader(cloud, std::nullopt, readerOptions());
  mapper.integrateFile(reader);
  return mapper.map();
}

// The run's backend is MappingRunOptions::backend (the run sets its mapper's from it).
MappingRunOptions runOptions(MapperBackend backend, const std::filesystem::path& cloud) {
  return {.input = cloud,
          .reader = readerOptions(),
          .mapper = mapperOptions(MapperBackend::Gpu),
          .backend = backend == MapperBackend::Gpu ? MappingBackend::Gpu : MappingBackend::CpuReference};
}

const JsonField* fieldNamed(const JsonField::Object& fields, const std::string& name) {
  for (const JsonField& field : fields)
    if (field.name == name) return &field;
  return nullptr;
}

}  // namespace

TEST_CASE("MappingRun writes the map the Mapper makes of the same input by hand", "[api][mapping-run][gpu]") {
  vt::TempDir dir("mapping-run");
  const auto cloud = dir / "run.ply";
  writeRayCloud(cloud, smallLidarRun(2));
  Context ctx(vt::gpu().scheduler);
  for (const MapperBackend backend : {MapperBackend::Gpu, MapperBackend::CpuReference}) {
    const bool gpu = backend == MapperBackend::Gpu;
    INFO((gpu ? "GPU" : "CPU reference"));
    const OccupancyMap reference = mapByHand(ctx, backend, cloud);
    REQUIRE(reference.regions().size() > 8);
    MappingRunOptions options = runOptions(backend, cloud);
    options.output = dir / (gpu ? "gpu.vxm" : "cpu.vxm");
    uint64_t progressReports = 0;
    bool finished = false;
    options.progress = [&](const MappingProgress& p) {
      CHECK(p.stage == MappingProgress::Stage::Mapping);
      ++progressReports;
      finished = finished || p.finished;
    };
    const MappingRunStats stats = MappingRun::map(ctx, options);
    vt::requireSameMap(loadMap(options.output), reference);
    CHECK(progressReports > 2);
    CHECK(finished);
    CHECK(stats.integration.rays == 2 * 32 * 512);
    CHECK(stats.load.points == 2 * 32 * 512);
    CHECK(stats.counts.regions == reference.regions().size());
    CHECK(stats.counts.occupied == reference.counts().occupied);
    CHECK(stats.gpu == gpu);
    CHECK(stats.batchSize == 4096);
    CHECK(stats.written == options.output.string());
    CHECK_FALSE(stats.store);
    CHECK_FALSE(stats.stopped);
    // The JSON form: the summary's fields, in its order, with these values.
    const JsonField::Object fields = stats.jsonFields();
    REQUIRE(fields.size() > 30);
    CHECK(fields.front().name == "rays");
    CHECK(std::get<uint64_t>(fieldNamed(fields, "occupied_voxels")->value) == stats.counts.occupied);
    CHECK(std::holds_alternative<std::nullptr_t>(fieldNamed(fields, "clearance_range")->value));
    CHECK(fieldNamed(fields, "store") == nullptr);
    const std::string json = stats.toJson();
    CHECK(json.front() == '{');
    CHECK(json.back() == '}');
    CHECK_THAT(json, Catch::StartsWith("{\"rays\":" + std::to_string(stats.integration.rays) + ",\"samples\":"));
    CHECK_THAT(json, Catch::Contains("\"update_order\":\"sequential\""));
  }
}

TEST_CASE("MappingRun checkpoints into a store, stops on request and resumes to the uninterrupted map",
          "[api][mapping-run][store][gpu]") {
  vt::TempDir dir("mapping-run-store");
  const auto cloud = dir / "run.ply";
  writeRayCloud(cloud, smallLidarRun(3));
  Context ctx(vt::gpu().scheduler);
  const OccupancyMap reference = mapByHand(ctx, MapperBackend::Gpu, cloud);
  const uint64_t regionBytes = OccupancyMap({}, kVoxelMeanLayer | kHitMissLayer).bytesPerRegion();
  MappingRunOptions options = runOptions(MapperBackend::Gpu, cloud);
  options.store = (dir / "run.vxs").string();
  // A host map of six regions, far below the map: regions are paged to the store and back.
  options.storeMapping = {.hostMemoryBytes = 6 * regionBytes, .checkpointSeconds = 0};
  int boundaries = 0;
  options.stopRequested = [&boundaries] { return ++boundaries >= 7 ? 15 : 0; };
  const MappingRunStats stopped = MappingRun::map(ctx, options);
  REQUIRE(stopped.stopped);
  CHECK(stopped.stopped->request == 15);
  CHECK(stopped.stopped->checkpoint > 0);
  CHECK(stopped.stopped->raysTaken > 0);
  CHECK(stopped.stopped->raysTaken < 3 * 32 * 512);
  {
    RegionStore left = RegionStore::openForReading(options.store);
    CHECK(left.value("run.state") == "running");
    CHECK(left.value("run.rays") == std::to_string(stopped.stopped->raysTaken));
  }
  // Continued with other settings: refused by the setting that differs (the library names
  // them: mappingRunSettings); with the same ones, continued.
  options.stopRequested = {};
  options.resume = true;
  MappingRunOptions other = options;
  other.reader.exclusion.minRange = 0.5;
  CHECK_THROWS_WITH(MappingRun::map(ctx, other), Catch::Contains("exclusion.minRange"));
  const MappingRunStats resumed = MappingRun::map(ctx, options);
  REQUIRE_FALSE(resumed.stopped);
  REQUIRE(resumed.store);
  CHECK(resumed.store->resumed);
  CHECK(resumed.store->resumedFromRays == stopped.stopped->raysTaken);
  CHECK(resumed.store->mapping.checkpoints > 0);
  CHECK(resumed.store->mapping.evictions > 0);
  CHECK(resumed.counts.regions == reference.regions().size());
  CHECK(resumed.integration.rays == 3 * 32 * 512 - stopped.stopped->raysTaken);
  vt::requireSameMap(loadMapFromStore(options.store), reference);
  CHECK(RegionStore::openForReading(options.store).value("run.state") == "complete");
  CHECK_THAT(resumed.toJson(), Catch::Contains(",\"store\":{\"resumed_from_rays\":" + std::to_string(stopped.stopped->raysTaken)));
  CHECK_THROWS_WITH(MappingRun::map(ctx, options), Catch::Contains("is complete: there is nothing to resume"));
}

TEST_CASE("MappingRun refuses a run that updates no voxel and options without one destination", "[api][mapping-run]") {
  vt::TempDir dir("mapping-run-refusals");
  const auto cloud = dir / "empty.ply";
  writeRayCloud(cloud, std::vector<Ray>{});
  Context ctx(vt::gpu().scheduler);
  MappingRunOptions options = runOptions(MapperBackend::CpuReference, cloud);
  options.output = dir / "empty.vxm";
  CHECK_THROWS_AS(MappingRun::map(ctx, options), EmptyMappingError);
  CHECK_FALSE(std::filesystem::exists(options.output));
  options.allowEmpty = true;
  CHECK(MappingRun::map(ctx, options).counts.regions == 0);
  CHECK(std::filesystem::exists(options.output));

  MappingRunOptions both = runOptions(MapperBackend::CpuReference, cloud);
  both.output = dir / "a.vxm";
  both.store = (dir / "a.vxs").string();
  CHECK_THROWS_AS(MappingRun(both), SettingError);
  MappingRunOptions none = runOptions(MapperBackend::CpuReference, cloud);
  CHECK_THROWS_AS(MappingRun(none), SettingError);
  MappingRunOptions clearanceIntoStore = runOptions(MapperBackend::CpuReference, cloud);
  clearanceIntoStore.store = (dir / "b.vxs").string();
  clearanceIntoStore.clearance = ClearanceOptions();
  clearanceIntoStore.clearance->range = 1.0;
  CHECK_THROWS_AS(MappingRun(clearanceIntoStore), SettingError);
}
