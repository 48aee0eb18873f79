// voxen::Mapper with NDT-OM and NDT-TM: the map (occupancy and every NDT layer) of the GPU
// integrator wired by hand, bit for bit; the GPU runs NDT in two-phase order whatever order
// was asked for, and a loaded map without the TM layers is refused for NDT-TM.
#include <catch2/catch.hpp>

#include "support/gpu_fixture.hpp"
#include "support/ndt_runs.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/context.hpp"
#include "voxen/mapper.hpp"

using namespace voxen;

TEST_CASE("A Mapper with NDT maps as the GPU NDT integrator wired by hand", "[api][mapper][ndt][gpu]") {
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(2);
  Context ctx(vt::gpu().scheduler);
  for (const NdtMode mode : {NdtMode::Om, NdtMode::Tm}) {
    INFO(ndtModeName(mode));
    const vt::occupancy::Run byHand = vt::ndt::runNdtGpu(rays, vt::ndt::ndtOptions(mode), {}, 1u << 16);
    MapperOptions options;
    options.run.integration = vt::ndt::ndtOptions(mode, UpdateOrder::Sequential);  // the GPU's NDT is two-phase
    options.run.gpu = {.cacheBytes = 256ull << 20, .maxRaysPerBatch = 1u << 16};
    Mapper mapper(ctx, options);
    CHECK(mapper.runOptions().integration.order == UpdateOrder::TwoPhase);
    mapper.integrate(rays);
    CHECK(ndtModeOf(mapper.map().layout()) == mode);
    const vt::occupancy::Comparison c = compareMaps(mapper.map(), byHand.map);
    INFO("voxels " << c.voxels << ", same bits " << c.sameBits << ", layer mismatches " << c.layerMismatches);
    CHECK(c.voxels > 1000);
    CHECK(c.identical());
    CHECK(mapper.stats().integration.ndtSampleVoxels == byHand.stats.ndtSampleVoxels);
  }
  vt::flushGpu();
}
