// GpuIntegrator::sync(): a run integrated frame by frame, synced after every frame (as
// `voxen bench frames` times it), builds the map of one finish() at the end bit for bit,
// layers included, equal to the CPU reference; and a sync copies no region back to the host
// (only finish() does).
#include <catch2/catch.hpp>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

constexpr size_t kFrame = 16384;  // one sweep of smallLidarRun's 32 x 512 lidar

// Integrates `rays` a frame at a time, syncing after each; `syncedReadback` gets the bytes
// the syncs read back, before the final finish().
Run runSyncedFrames(const std::vector<Ray>& rays, IntegrationOptions options, GpuIntegratorOptions gpuOptions,
                    uint64_t& syncedReadback) {
  Scheduler& scheduler = vt::gpu().scheduler;
  Run run{OccupancyMap(OccupancyModel(), kAllLayers), {}};
  GpuIntegrator gpu(scheduler, run.map, options, gpuOptions);
  scheduler.finish();
  const uint64_t before = scheduler.stats().readBackBytes;
  for (size_t i = 0; i < rays.size(); i += kFrame) {
    gpu.integrate(std::span<const Ray>(rays).subspan(i, std::min(kFrame, rays.size() - i)));
    gpu.sync();
    // The frame is integrated (a batch of its own: frames are smaller than a batch) and the
    // GPU has finished everything submitted.
    CHECK(gpu.stats().batches == i / kFrame + 1);
    CHECK(scheduler.completedValue() >= scheduler.lastSubmitted());
  }
  syncedReadback = scheduler.stats().readBackBytes - before;
  gpu.finish();
  run.stats = gpu.stats();
  return run;
}


}  // namespace

TEST_CASE("A run synced after every frame builds the map of one finish() at the end", "[occupancy][gpu][sync]") {
  const std::vector<Ray> rays = smallLidarRun(5);  // 5 frames of 16,384 rays
  REQUIRE(rays.size() == 5 * kFrame);
  uint64_t syncedReadback = 0;

  SECTION("sequential order: the same bits as one finish() and as the CPU reference") {
    const IntegrationOptions options{.order = UpdateOrder::Sequential};
    const GpuIntegratorOptions gpuOptions{.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16};
    const Run synced = runSyncedFrames(rays, options, gpuOptions, syncedReadback);
    const Run once = runGpu(rays, options, OccupancyModel(), kAllLayers, gpuOptions);
    REQUIRE(synced.stats.droppedUpdates == 0);
    requireSameMapBits(synced, once);
    requireIdentical(synced, runCpu(rays, options));
    // The syncs read back region lists, never regions: a region's occupancy alone is
    // 32^3 floats, more than every sync's readback together.
    INFO("bytes read back by the syncs: " << syncedReadback);
    CHECK(syncedReadback < 32u * 32u * 32u * sizeof(float));
  }
  SECTION("two-phase order: a sync cuts a batch as a batch of one frame would") {
    const IntegrationOptions options{.order = UpdateOrder::TwoPhase};
    const Run synced = runSyncedFrames(rays, options, {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16}, syncedReadback);
    const Run frameBatches = runGpu(rays, options, OccupancyModel(), kAllLayers,
                                    {.cacheBytes = 64ull << 20, .maxRaysPerBatch = uint32_t(kFrame)});
    requireSameMapBits(synced, frameBatches);
    requireIdentical(synced, runCpu(rays, options, OccupancyModel(), kAllLayers, kFrame));
  }
}
