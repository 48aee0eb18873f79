// The concurrency contract (issue 38, item 1): one Context shared by threads that open it at
// once and map on Mappers of their own; one Mapper taking rays on one thread while other
// threads query its snapshots (on the GPU and on the CPU), save them and wait on async
// queries. Every answer is checked against the CPU reference on the snapshot it was asked
// of, and every snapshot must be one the mapping thread published (its voxel counts), never a
// half-applied batch. Run under the validation layer with synchronisation checks (the test
// device), and under ThreadSanitizer in the CI's tsan job.
#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "support/temp_dir.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/context.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/map_snapshot.hpp"
#include "voxen/mapper.hpp"
#include "voxen/query/cpu_queries.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

// Points spread over a box around the rays' extent (some outside every region).
std::vector<glm::dvec3> pointsAcross(std::span<const Ray> rays, size_t count, uint64_t seed) {
  glm::dvec3 lo(1e9), hi(-1e9);
  for (const Ray& r : rays) lo = glm::min(lo, glm::min(r.origin, r.sample)), hi = glm::max(hi, glm::max(r.origin, r.sample));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<glm::dvec3> points(count);
  for (glm::dvec3& p : points) p = lo + (hi - lo) * glm::dvec3(u(rng), u(rng), u(rng));
  return points;
}

std::vector<QueryRay> raysFrom(std::span<const Ray> rays, size_t step) {
  std::vector<QueryRay> out;
  for (size_t i = 0; i < rays.size(); i += step) out.push_back({rays[i].origin, rays[i].sample - rays[i].origin, 4.0});
  return out;
}

// The voxel counts of each published version, recorded by the mapping thread.
struct PublishedCounts {
  std::mutex mutex;
  std::map<uint64_t, OccupancyMap::Counts> byVersion;
  void record(const MapSnapshot& s) {
    const std::lock_guard lock(mutex);
    byVersion[s.version()] = s.map().counts();
  }
  bool matches(const MapSnapshot& s) {
    const std::lock_guard lock(mutex);
    const auto found = byVersion.find(s.version());
    if (found == byVersion.end()) return false;
    const OccupancyMap::Counts c = s.map().counts();
    return c.occupied == found->second.occupied && c.free == found->second.free && c.regions == found->second.regions;
  }
};

void requireSameBits(const OccupancyMap& a, const OccupancyMap& b) {
  const Comparison c = compareMaps(a, b);
  INFO("voxels " << c.voxels << ", same bits " << c.sameBits << ", layer mismatches " << c.layerMismatches);
  CHECK(c.voxels > 1000);
  CHECK(c.sameBits == c.voxels);
  CHECK(c.layerMismatches == 0);
  CHECK(a.regions().size() == b.regions().size());
}

}  // namespace

TEST_CASE("Threads open one Context at once and map on Mappers of their own", "[api][threads][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(2);
  // The CPU reference's map, which every thread's GPU map must equal bit for bit.
  Context reference(vt::gpu().scheduler);
  Mapper cpu(reference, {.run = {.backend = MapperBackend::CpuReference}});
  cpu.integrate(rays);

  // A Context that is not open yet: the threads race to open it (device, library, scheduler).
  Context shared({.device = DeviceChoice::best(), .validation = true, .synchronizationValidation = true,
                  .pipelineCache = "off"});
  constexpr int kThreads = 3;
  std::vector<std::optional<OccupancyMap>> maps(kThreads);
  std::vector<std::string> errors(kThreads);
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        try {
          MapperOptions options;
          options.run.gpu = {.cacheBytes = 32ull << 20, .maxRaysPerBatch = 4096u << t};
          Mapper mapper(shared, options);
          // In pieces, with reads between them: each Mapper's own readbacks stay its own.
          const std::span<const Ray> all(rays);
          for (size_t i = 0; i < all.size(); i += all.size() / 3 + 1) {
            mapper.integrate(all.subspan(i, std::min(all.size() - i, all.size() / 3 + 1)));
            (void)mapper.stats();
          }
          maps[t] = mapper.map();
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    for (std::thread& t : threads) t.join();
  }
  CHECK(shared.isOpen());
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t << ": " << errors[t]);
    REQUIRE(errors[t].empty());
    REQUIRE(maps[t]);
    requireSameBits(*maps[t], cpu.map());
  }
  CHECK(shared.device().validationMessageCount() == 0);
}

TEST_CASE("Two Mappers on one opened Context interleave on one thread", "[api][threads][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(1);
  const std::span<const Ray> all(rays);
  Context ctx(vt::gpu().scheduler);
  ctx.open();
  Mapper a(ctx), b(ctx), reference(ctx, {.run = {.backend = MapperBackend::CpuReference}});
  const size_t half = all.size() / 2;
  a.integrate(all.first(half));
  b.integrate(all.first(half));
  (void)a.occupancy(pointsAcross(all, 2000, 1));  // a readback of a's while b has work in flight
  a.integrate(all.subspan(half));
  b.integrate(all.subspan(half));
  reference.integrate(all);
  requireSameBits(a.map(), reference.map());
  requireSameBits(b.map(), reference.map());
}

TEST_CASE("Queries on snapshots run on other threads while the Mapper maps, and see whole batches only",
          "[api][threads][snapshot][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(3);
  const std::span<const Ray> all(rays);
  Context ctx(vt::gpu().scheduler);
  MapperOptions options;
  options.run.gpu = {.cacheBytes = 32ull << 20, .maxRaysPerBatch = 1u << 14};
  Mapper mapper(ctx, options);
  PublishedCounts published;
  published.record(mapper.latestSnapshot());  // version 1: the empty map
  CHECK(mapper.latestSnapshot().version() == 1);

  const std::vector<glm::dvec3> manyPoints = pointsAcross(all, 4000, 2);  // GPU (past hostQueryVoxels)
  const std::vector<glm::dvec3> fewPoints = pointsAcross(all, 40, 3);     // the caller's CPU
  const std::vector<QueryRay> queryRays = raysFrom(all, 301);
  const vt::TempDir dir("snapshots");

  std::atomic<bool> mapping{true};
  std::atomic<uint64_t> checked{0}, gpuBatches{0};
  std::mutex failureMutex;
  std::string failure;
  auto fail = [&](const std::string& what) {
    const std::lock_guard lock(failureMutex);
    if (failure.empty()) failure = what;
  };
  auto query = [&](int thread) {
    uint64_t lastVersion = 0;
    int round = 0;
    try {
      while (mapping.load() || round < 2) {
        const MapSnapshot s = mapper.latestSnapshot();
        if (s.version() < lastVersion) fail("thread " + std::to_string(thread) + ": a snapshot older than one seen before");
        lastVersion = s.version();
        if (!published.matches(s)) fail("version " + std::to_string(s.version()) + " is not a map the Mapper published");
        const bool big = (round + thread) % 2 == 0;
        const std::vector<glm::dvec3>& points = big ? manyPoints : fewPoints;
        if (s.occupancy(points) != cpuOccupancy(s.map(), points)) fail("occupancy differs from the CPU reference");
        if (s.raycast(queryRays) != cpuRaycast(s.map(), queryRays)) fail("raycast differs from the CPU reference");
        // Into the caller's memory, reused across rounds.
        std::vector<OccupancyAnswer> into(points.size());
        s.occupancy(points, into);
        if (into != cpuOccupancy(s.map(), points)) fail("occupancy into a span differs");
        if (big) ++gpuBatches;
        if (thread == 0 && round % 3 == 1) {
          const auto path = dir.path() / ("snapshot" + std::to_string(round) + ".vxm");
          s.save(path);
          const OccupancyMap loaded = loadMap(path);
          if (loaded.counts().occupied != s.map().counts().occupied) fail("a saved snapshot reads back differently");
        }
        ++checked;
        ++round;
      }
    } catch (const std::exception& e) {
      fail(std::string("thread ") + std::to_string(thread) + " threw: " + e.what());
    }
  };
  std::vector<std::thread> queriers;
  for (int t = 0; t < 3; ++t) queriers.emplace_back(query, t);

  const size_t scans = 6;
  for (size_t scan = 0; scan < scans; ++scan) {
    mapper.integrate(all.subspan(scan * all.size() / scans, all.size() / scans));
    published.record(mapper.snapshot());
  }
  mapping = false;
  for (std::thread& t : queriers) t.join();
  INFO(failure);
  CHECK(failure.empty());
  CHECK(checked.load() >= 6);
  CHECK(gpuBatches.load() > 0);
  CHECK(mapper.latestSnapshot().version() == scans + 1);
  // The last snapshot is the synced map, bit for bit.
  requireSameBits(mapper.latestSnapshot().map(), mapper.map());
}

TEST_CASE("Async snapshot queries return futures, in order, with errors in get()", "[api][threads][snapshot][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(1);
  Context ctx(vt::gpu().scheduler);
  Mapper mapper(ctx);
  mapper.integrate(rays);
  const MapSnapshot s = mapper.snapshot();
  const std::vector<glm::dvec3> points = pointsAcross(rays, 3000, 5);
  std::vector<std::future<std::vector<OccupancyAnswer>>> futures;
  for (int i = 0; i < 4; ++i)
    futures.push_back(s.async([points](const MapSnapshot& m) { return m.occupancy(points); }));
  // A bad item fails inside the task; the exception comes out of get(), naming the item.
  std::vector<glm::dvec3> bad = points;
  bad[17] = glm::dvec3(std::nan(""), 0, 0);
  auto failing = s.async([bad](const MapSnapshot& m) { return m.occupancy(bad); });
  const std::vector<OccupancyAnswer> expected = cpuOccupancy(s.map(), points);
  for (auto& f : futures) CHECK(f.get() == expected);
  try {
    failing.get();
    FAIL("no exception");
  } catch (const QueryInputError& e) {
    CHECK(e.index() == 17);
  }
  // The snapshot outlives its Mapper (its query lane too).
  std::future<std::vector<OccupancyAnswer>> late;
  {
    Mapper temporary(ctx);
    temporary.integrate(rays);
    const MapSnapshot t = temporary.snapshot();
    late = t.async([points](const MapSnapshot& m) { return m.occupancy(points); });
  }
  CHECK(late.get() == expected);
}

TEST_CASE("Clearance on the mapping thread reaches query threads through the next snapshot",
          "[api][threads][snapshot][clearance][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(1);
  Context ctx(vt::gpu().scheduler);
  Mapper mapper(ctx);
  mapper.integrate(rays);
  const MapSnapshot before = mapper.snapshot();
  const std::vector<glm::dvec3> points = pointsAcross(rays, 3000, 9);
  std::atomic<bool> done{false};
  std::string failure;
  std::thread reader([&] {
    try {
      // The old snapshot has no clearance layer, whatever the mapping thread does meanwhile.
      while (!done.load()) {
        try {
          (void)before.clearance(points);
          failure = "a snapshot taken before the clearance answered a clearance query";
        } catch (const QueryOutputError&) {
          failure = "wrong error";
        } catch (const Error&) {
        }
        if (before.occupancy(points) != cpuOccupancy(before.map(), points)) failure = "occupancy changed under a snapshot";
      }
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  mapper.computeClearance({.range = 1.0});
  const MapSnapshot after = mapper.snapshot();
  done = true;
  reader.join();
  CHECK(failure.empty());
  CHECK(after.version() == before.version() + 1);
  CHECK(after.clearance(points) == cpuClearance(after.map(), points));
}
