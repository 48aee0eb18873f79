// MappingRunOptions::backend (issue 37, item 7): Auto maps a small input whose ray count the
// reader knows on the CPU reference without opening the Context's device, and the map is the
// GPU's byte for byte; past autoCpuMaxRays, and with the settings whose GPU map the CPU
// reference does not reproduce, it maps on the GPU and says why; the mapper's own backend is
// the run's to set.
#include <catch2/catch.hpp>

#include <filesystem>
#include <span>
#include <string>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "support/same_map.hpp"
#include "support/temp_dir.hpp"
#include "voxen/context.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/mapping_run.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

MappingRunOptions smallRun(const std::filesystem::path& cloud, const std::filesystem::path& output) {
  MappingRunOptions options{.input = cloud, .output = output};
  options.mapper.extraLayers = kVoxelMeanLayer | kHitMissLayer;
  return options;
}

}  // namespace

TEST_CASE("MappingRun's Auto maps a small input on the CPU reference, opening no device, to the GPU's map",
          "[api][mapping-run][gpu]") {
  vt::TempDir dir("mapping-run-backend");
  const auto cloud = dir / "small.ply";
  const std::vector<Ray> rays = smallLidarRun(1);
  writeRayCloud(cloud, std::span(rays).first(5000));

  Context unopened;  // a Context of its own: opened by nothing but a GPU run
  MappingRunOptions options = smallRun(cloud, dir / "auto.vxm");
  REQUIRE(options.backend == MappingBackend::Auto);  // the default
  const MappingRunStats automatic = MappingRun::map(unopened, options);
  CHECK_FALSE(unopened.isOpen());
  CHECK_FALSE(automatic.gpu);
  CHECK(automatic.backend.asked == MappingBackend::Auto);
  CHECK(automatic.backend.cpu);
  CHECK(automatic.backend.reason == "5,000 rays, at most 20,000 map faster on the CPU reference than the GPU starts (the same map)");
  CHECK(automatic.device == "CPU reference (sequential)");
  CHECK_FALSE(automatic.deviceMemory);
  CHECK_THAT(automatic.toJson(),
             Catch::Contains("\"backend\":{\"asked\":\"auto\",\"ran\":\"cpu\",\"reason\":\"5,000 rays, at most 20,000"));

  Context ctx(vt::gpu().scheduler);
  MappingRunOptions onGpu = smallRun(cloud, dir / "gpu.vxm");
  onGpu.backend = MappingBackend::Gpu;
  const MappingRunStats gpu = MappingRun::map(ctx, onGpu);
  CHECK(gpu.gpu);
  CHECK(gpu.backend.asked == MappingBackend::Gpu);
  CHECK(gpu.backend.reason.empty());
  CHECK_THAT(gpu.toJson(), Catch::Contains("\"backend\":{\"asked\":\"gpu\",\"ran\":\"gpu\",\"reason\":null}"));
  vt::requireSameMap(loadMap(dir / "auto.vxm"), loadMap(dir / "gpu.vxm"));

  SECTION("past autoCpuMaxRays: the GPU") {
    MappingRunOptions large = smallRun(cloud, dir / "large.vxm");
    large.autoCpuMaxRays = 4999;
    MappingRun run(large);
    CHECK_FALSE(run.backendChoice().cpu);
    CHECK(run.backendChoice().reason == "5,000 rays, more than 4,999 start faster on the GPU");
  }
  SECTION("where the CPU reference does not give the GPU's map bit for bit: the GPU, saying why") {
    const auto choice = [&](const std::function<void(MappingRunOptions&)>& change) {
      MappingRunOptions o = smallRun(cloud, dir / "other.vxm");
      change(o);
      return MappingRun(o).backendChoice();
    };
    const auto because = [](const std::string& what) {
      return "5,000 rays, but with " + what + " the CPU reference does not give the GPU's map bit for bit";
    };
    CHECK(choice([](MappingRunOptions& o) { o.mapper.run.integration.order = UpdateOrder::OnePass; }).reason ==
          because("the one-pass order"));
    CHECK(choice([](MappingRunOptions& o) { o.mapper.run.integration.ndt.mode = NdtMode::Om; }).reason == because("NDT"));
    CHECK(choice([](MappingRunOptions& o) { o.mapper.run.integration.flags |= RayFlag::StopOnFirstOccupied; }).reason ==
          because("stop-on-occupied in the sequential order"));
    CHECK(choice([](MappingRunOptions& o) { o.clearance = ClearanceOptions(); }).reason == because("the clearance"));
    CHECK(choice([](MappingRunOptions& o) {
            o.mapper.run.integration.order = UpdateOrder::TwoPhase;
            o.mapper.run.gpu.maxRaysPerBatch = 4096;
          }).reason == because("the two-phase order over more than one batch"));
    // Two-phase with the whole input in one batch: the CPU reference.
    CHECK(choice([](MappingRunOptions& o) { o.mapper.run.integration.order = UpdateOrder::TwoPhase; }).cpu);
  }
  SECTION("the mapper's backend is the run's to set") {
    MappingRunOptions o = smallRun(cloud, dir / "refused.vxm");
    o.mapper.run.backend = MapperBackend::CpuReference;
    CHECK_THROWS_MATCHES(MappingRun(o), SettingError,
                         Catch::Predicate<SettingError>([](const SettingError& e) { return e.field() == "MapperRunOptions::backend"; }));
    CHECK_FALSE(std::filesystem::exists(dir / "refused.vxm"));
  }
  SECTION("a store run records auto as the GPU: the same map") {
    MappingRunOptions o = smallRun(cloud, {});
    o.store = (dir / "run.vxs").string();
    std::string recorded;
    for (const auto& [name, value] : mappingRunSettings(o))
      if (name == "backend") recorded = value;
    CHECK(recorded == "gpu");
  }
}
