// The GPU integrator's ray buffers are sized from the work: a batch's buffer starts at a few
// thousand rays and doubles up to --batch-size as rays arrive (issue 26). A small input gets
// small buffers; a run that outgrows the first size still gives the CPU reference's map bit
// for bit, in both update orders (the batch boundaries do not move when the buffer grows).
#include <catch2/catch.hpp>

#include <string>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

// The bytes of the device buffers whose name starts with `prefix`, largest first.
uint64_t largestBuffer(const std::string& prefix) {
  uint64_t largest = 0;
  for (const MemoryEntry& e : vt::gpu().device.memoryStats().entries())
    if (e.name.rfind(prefix, 0) == 0) largest = std::max(largest, e.bytes);
  return largest;
}

}  // namespace

TEST_CASE("A small input gets ray buffers for its rays, not for the whole batch size", "[occupancy][gpu][memory]") {
  auto rays = smallLidarRun(1);
  rays.resize(100);
  OccupancyMap map{OccupancyModel(), LayerSet{}};
  GpuIntegrator gpu(vt::gpu().scheduler, map, {}, {.cacheBytes = 16ull << 20, .maxRaysPerBatch = 1u << 17});
  gpu.integrate(rays);
  gpu.finish();
  // 131,072 rays of 80 bytes would be 10 MiB per buffer.
  const uint64_t bytes = largestBuffer("occupancy rays");
  INFO("largest ray buffer " << bytes << " bytes");
  CHECK(bytes > 0);
  CHECK(bytes <= (uint64_t(1) << 20));
  // No stop search, so no stop point per ray of the batch size either.
  CHECK(largestBuffer("occupancy stop points") < 1024);
}

TEST_CASE("A run that outgrows the first ray buffers gives the CPU reference's map bit for bit",
          "[occupancy][gpu][memory][order]") {
  // 32,768 rays in batches of 20,000: the first batch's buffer grows 4,096 -> 8,192 ->
  // 16,384 -> 20,000 rays while it fills; the second batch starts at the grown size.
  const auto rays = smallLidarRun(2);
  REQUIRE(rays.size() == 32768u);
  const uint32_t batch = 20000;
  const UpdateOrder order = GENERATE(UpdateOrder::Sequential, UpdateOrder::TwoPhase);
  INFO(updateOrderName(order));
  const IntegrationOptions options{.order = order};
  Run gpuRun{OccupancyMap(OccupancyModel(), kAllLayers), {}};
  {
    GpuIntegrator gpu(vt::gpu().scheduler, gpuRun.map, options, {.cacheBytes = 64ull << 20, .maxRaysPerBatch = batch});
    gpu.integrate(rays);
    gpu.finish();
    gpuRun.stats = gpu.stats();
    CHECK(gpuRun.stats.batches == 2);
    CHECK(largestBuffer("occupancy rays") >= uint64_t(batch) * 80);
  }
  // The two-phase map depends on the batches: the CPU reference gets the same ones.
  requireIdentical(gpuRun, runCpu(rays, options, OccupancyModel(), kAllLayers, batch));
}
