// Rays prepared apart from the GPU integrator (issue 14): prepareRays on any thread, into
// the integrator's record pool (issue 37) or host memory. Prepared in chunks, on a worker (PreparedRayStream),
// the rays must build the map integrate(span) builds, with the same skipped-ray counts and
// indices, and errors must arrive in order.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <thread>
#include <stdexcept>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "support/test_helpers.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/occupancy/prepared_ray_stream.hpp"
#include "voxen/occupancy/prepared_rays.hpp"
#include "voxen/occupancy/ray_record_pool.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

// A lidar run with bad rays placed across chunk boundaries: non-finite and too far.
std::vector<Ray> raysWithBadOnes() {
  std::vector<Ray> rays = smallLidarRun(1);  // 16,384 rays
  for (size_t i : {size_t(0), size_t(4095), size_t(4096), size_t(9000), rays.size() - 1}) rays[i].sample.x = NAN;
  rays[5000].sample = {1e12, 0.0, 0.0};
  return rays;
}

Run runWith(const std::function<void(GpuIntegrator&)>& feed) {
  Run run{OccupancyMap({}, kAllLayers), {}};
  GpuIntegrator gpu(vt::gpu().scheduler, run.map, {}, {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 5000});
  feed(gpu);
  gpu.finish();
  run.stats = gpu.stats();
  return run;
}

// The same map bit for bit (requireSameMapBits), the same rejected rays and time origin.
void requireSameRun(const Run& a, const Run& b) {
  requireSameMapBits(a, b);
  CHECK(a.stats.rejectedRays == b.stats.rejectedRays);
  REQUIRE(a.stats.firstRejected);
  REQUIRE(b.stats.firstRejected);
  CHECK(a.stats.firstRejected->index == b.stats.firstRejected->index);
  CHECK(a.map.timeOrigin() == b.map.timeOrigin());
}

}  // namespace

TEST_CASE("Rays prepared in chunks give the map integrate() gives, with the same skipped rays", "[occupancy][gpu][prepared]") {
  const std::vector<Ray> rays = raysWithBadOnes();
  const Run inline_ = runWith([&](GpuIntegrator& gpu) { gpu.integrate(rays); });
  CHECK(inline_.stats.rejectedRays == 6);
  CHECK(inline_.stats.firstRejected->index == 0);
  const Run chunked = runWith([&](GpuIntegrator& gpu) {
    PreparedRays prepared;
    for (size_t i = 0; i < rays.size(); i += 3000) {
      prepareRays(std::span<const Ray>(rays).subspan(i, std::min<size_t>(3000, rays.size() - i)), OccupancyModel{}, {}, 128,
                  prepared);
      gpu.integrate(prepared);
    }
  });
  requireSameRun(chunked, inline_);
}

TEST_CASE("Worker threads prepare rays ahead of the integrator, in order, for any number of workers",
          "[occupancy][gpu][prepared]") {
  const std::vector<Ray> rays = raysWithBadOnes();
  const Run inline_ = runWith([&](GpuIntegrator& gpu) { gpu.integrate(rays); });
  const unsigned workers = GENERATE(1u, 2u, 5u);
  INFO(workers << " workers");
  size_t chunks = 0;
  const Run streamed = runWith([&](GpuIntegrator& gpu) {
    size_t at = 0;
    PreparedRayStream stream(
        [&](uint64_t& progress) {
          const size_t n = std::min<size_t>(1777, rays.size() - at);
          const std::span<const Ray> chunk = std::span<const Ray>(rays).subspan(at, n);
          at += n;
          progress = at;
          return chunk;
        },
        OccupancyModel{}, {}, 128, workers);
    PreparedRays prepared;
    uint64_t progress = 0, last = 0;
    while (stream.next(prepared, progress)) {
      CHECK(progress > last);
      last = progress;
      gpu.integrate(prepared);
      ++chunks;
    }
    CHECK(last == rays.size());
    CHECK(stream.workerCpuSeconds() > 0.0);
  });
  CHECK(chunks == (rays.size() + 1776) / 1777);
  requireSameRun(streamed, inline_);
}

TEST_CASE("A prepared-ray stream passes its source's error on after the chunks before it, and stops cleanly",
          "[occupancy][prepared]") {
  int calls = 0;
  const std::vector<Ray> ten(10);
  auto failing = [&](uint64_t& progress) -> std::span<const Ray> {
    if (++calls == 4) throw std::runtime_error("cloud.ply, vertex 12: broken");
    progress = uint64_t(calls);
    return ten;
  };
  {
    PreparedRayStream stream(failing, OccupancyModel{}, {}, 128, GENERATE(1u, 3u));
    PreparedRays prepared;
    uint64_t progress = 0;
    for (uint64_t k = 1; k <= 3; ++k) {
      REQUIRE(stream.next(prepared, progress));
      CHECK(progress == k);
      CHECK(prepared.inputRays == 10);
    }
    CHECK_THROWS_WITH(stream.next(prepared, progress), "cloud.ply, vertex 12: broken");
    CHECK_FALSE(stream.next(prepared, progress));  // nothing after a failed read
  }
  // A consumer that stops after one chunk of an endless source: the destructor returns.
  const std::vector<Ray> hundred(100);
  auto endless = [&](uint64_t&) { return std::span<const Ray>(hundred); };
  PreparedRays prepared;
  uint64_t progress = 0;
  {
    PreparedRayStream stream(endless, OccupancyModel{}, {}, 128, 3);
    REQUIRE(stream.next(prepared, progress));
  }
  SUCCEED("the stream stopped");
}

TEST_CASE("A prepared ray too long for the GPU is refused with its index when the integrator reaches it", "[occupancy][gpu][prepared]") {
  std::vector<Ray> rays(5);
  for (Ray& r : rays) r.sample = {1.0, 1.0, 1.0};
  rays[3].origin = {0.05, 0.05, 0.05};
  rays[3].sample = {2e5, 0.0, 0.0};  // 62,500 regions
  PreparedRays prepared;
  prepareRays(rays, OccupancyModel{}, {}, 128, prepared);
  CHECK(prepared.recordCount == 4);
  OccupancyMap map;
  GpuIntegrator gpu(vt::gpu().scheduler, map);
  CHECK_THAT(vt::errorOf([&] { gpu.integrate(prepared); }),
             Catch::Contains("ray 3") && Catch::Contains("the GPU walks at most 4096"));
}

namespace {

// Rays streamed by `workers` threads in chunks of `chunk` rays straight into the integrator's
// record pool, as `voxen map --threads` maps them.
Run streamIntoPool(const std::vector<Ray>& rays, uint32_t batch, size_t chunk, unsigned workers, size_t* blocks = nullptr) {
  Run run{OccupancyMap({}, kAllLayers), {}};
  GpuIntegrator gpu(vt::gpu().scheduler, run.map, {}, {.cacheBytes = 64ull << 20, .maxRaysPerBatch = batch});
  {
    size_t at = 0;
    PreparedRayStream stream(
        [&](uint64_t&) {
          const size_t n = std::min(chunk, rays.size() - at);
          const std::span<const Ray> part = std::span<const Ray>(rays).subspan(at, n);
          at += n;
          return part;
        },
        OccupancyModel{}, {}, 128, workers, 0, &gpu.recordPool());
    PreparedRays prepared;
    uint64_t progress = 0;
    while (stream.next(prepared, progress)) {
      REQUIRE(prepared.block.pool() == &gpu.recordPool());
      REQUIRE(prepared.hostRecords.empty());
      gpu.integrate(prepared);
    }
  }
  gpu.finish();
  run.stats = gpu.stats();
  if (blocks) *blocks = gpu.recordPool().blockCount();
  return run;
}

}  // namespace

TEST_CASE("Records prepared straight into the record pool give the CPU reference's map, wherever batches cut chunks",
          "[occupancy][gpu][prepared]") {
  // Sequential order: the map does not depend on where batches end, so every cut of the
  // chunks (batch sizes coprime with the chunk size, one batch for everything) must give the
  // reference's map bit for bit, with the bad rays counted where they stood.
  std::vector<Ray> rays = smallLidarRun(4);  // 65,536 rays
  for (size_t i : {size_t(0), size_t(1776), size_t(1777), size_t(40000), rays.size() - 1}) rays[i].sample.x = NAN;
  const Run cpu = runCpu(rays, {});
  const uint32_t batch = GENERATE(997u, 1777u, 5000u, 1u << 17);
  const unsigned workers = GENERATE(1u, 3u);
  INFO("batch " << batch << ", " << workers << " workers");
  size_t blocks = 0;
  const Run gpuRun = streamIntoPool(rays, batch, 1777, workers, &blocks);
  requireIdentical(gpuRun, cpu);
  CHECK(gpuRun.stats.rays == cpu.stats.rays);
  CHECK(gpuRun.stats.rejectedRays == 5);
  CHECK(gpuRun.stats.batches == (batch >= rays.size() ? 1 : (rays.size() - 5 + batch - 1) / batch));
  // Blocks go back to the pool once the GPU has read them: fewer than the 37 chunks (the ring
  // of chunks in flight, the open batch's and the pending batch's) unless one batch holds all.
  if (batch < rays.size()) CHECK(blocks < 37);
}

TEST_CASE("A batch closes before a ray outside the span its first ray sets, also inside a run of prepared records",
          "[occupancy][gpu][prepared]") {
  // Clusters of short rays 4,000 km apart (more than 2^20 regions of 3.2 m) take turns every
  // 300 rays: every chunk holds both, so the run's region bounds leave the span and its
  // records are looked at one by one; each switch must start a batch.
  std::vector<Ray> rays;
  for (int k = 0; k < 3000; ++k) {
    const double x = (k / 300) % 2 ? 4.0e6 : 0.0;
    const double a = k * 0.01;
    rays.push_back(Ray{{x, 0.0, 1.0}, {x + 4.0 * std::cos(a), 4.0 * std::sin(a), 1.0 + 0.001 * (k % 50)}, double(k) * 1e-3});
  }
  const Run cpu = runCpu(rays, {});
  const Run gpuRun = streamIntoPool(rays, 1u << 16, 1000, 2);
  CHECK(gpuRun.stats.batches == 10);
  const Comparison c = compareMaps(gpuRun.map, cpu.map);
  CHECK(c.voxels > 500);
  CHECK(c.sameBits == c.voxels);
  CHECK(c.layerMismatches == 0);
  CHECK(c.traversalMismatches == 0);
}

TEST_CASE("Threads lease record blocks at the same time without sharing one", "[occupancy][gpu][prepared][threads]") {
  RayRecordPool pool(vt::gpu().device);
  constexpr int kThreads = 4, kRounds = 200;
  std::atomic<int> clashes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<RayRecordPool::Lease> kept;
      for (int round = 0; round < kRounds; ++round) {
        RayRecordPool::Lease lease = pool.acquire(uint32_t(1000 + 3000 * (round % 3)));
        // Mark the whole block as this thread's, then check no one else wrote into it.
        const uint32_t mark = uint32_t(t * 100000 + round);
        for (uint32_t k = 0; k < lease.capacity(); k += 97) lease.records()[k].segments = mark;
        std::this_thread::yield();
        for (uint32_t k = 0; k < lease.capacity(); k += 97)
          if (lease.records()[k].segments != mark) ++clashes;
        // Some blocks stay leased a while by a second holder (as a batch keeps its parts).
        if (round % 5 == 0) kept.push_back(lease);
        if (kept.size() > 3) kept.erase(kept.begin());
      }
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(clashes == 0);
  // At most 4 leases per thread at once (its own and 3 kept): blocks are reused, not piled up.
  CHECK(pool.blockCount() <= size_t(kThreads) * 5);
}

TEST_CASE("A long span is prepared by several threads at once and gives the map one thread gives", "[occupancy][gpu][prepared]") {
  // Four frames handed over at once (65,536 rays, 4 chunks of 16,384) and a span that ends
  // inside a round of chunks; bad rays in the second and last chunk.
  std::vector<Ray> rays = smallLidarRun(5);
  for (size_t i : {size_t(20000), size_t(20001), rays.size() - 1}) rays[i].sample.x = NAN;
  auto mapWith = [&](uint32_t threads) {
    Run run{OccupancyMap({}, kAllLayers), {}};
    GpuIntegrator gpu(vt::gpu().scheduler, run.map, {},
                      {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 40000, .spanPrepareThreads = threads});
    gpu.integrate(std::span<const Ray>(rays).first(70000));
    gpu.integrate(std::span<const Ray>(rays).subspan(70000));
    gpu.finish();
    run.stats = gpu.stats();
    return run;
  };
  const Run cpu = runCpu(rays, {});
  const Run one = mapWith(1);
  requireIdentical(one, cpu);
  const Run several = mapWith(GENERATE(3u, 4u));
  requireIdentical(several, cpu);
  CHECK(several.stats.rejectedRays == 3);
  CHECK(several.stats.firstRejected->index == 20000);
  CHECK(several.stats.batches == one.stats.batches);
}
