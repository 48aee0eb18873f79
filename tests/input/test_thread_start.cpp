// Pools whose threads the system refuses (an address-space limit, a thread limit): every
// pool in Voxen runs with the threads it got, none included, says so once, and gives the
// same results as with all of them; none aborts. The refusal is simulated with startThreads'
// test limit (the CLI test input_threads.sh does it for real under `ulimit -v`).
#include <catch2/catch.hpp>

#include <cstring>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "support/binary_file.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/log.hpp"
#include "voxen/host/thread_start.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/occupancy/prepared_ray_stream.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

using Catch::Matchers::Contains;
using namespace voxen;

namespace {

// Collects the log sink's messages and sets a thread start limit for its lifetime.
class StartLimit {
 public:
  explicit StartLimit(std::optional<unsigned> limit)
      : previous_(setLogSink([this](LogLevel level, const std::string& message) {
          std::lock_guard lock(mutex_);
          if (level == LogLevel::Warning) warnings_.push_back(message);
        })) {
    detail::setThreadStartLimitForTesting(limit);
  }
  ~StartLimit() {
    detail::setThreadStartLimitForTesting(std::nullopt);
    setLogSink(std::move(previous_));
  }
  std::vector<std::string> warnings() const {
    std::lock_guard lock(mutex_);
    return warnings_;
  }

 private:
  LogSink previous_;
  mutable std::mutex mutex_;
  std::vector<std::string> warnings_;
};

std::vector<Ray> lidarRays(unsigned threads) {
  LidarConfig config;
  config.rings = 8;
  config.columns = 256;
  config.scans = 2;
  config.threads = threads;
  return generateLidarRays(SyntheticScene::generate(1), config);
}

bool sameRays(const std::vector<Ray>& a, const std::vector<Ray>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Ray)) == 0;
}

}  // namespace

TEST_CASE("startThreads runs with the threads it got and reports the shortfall once", "[threads]") {
  StartLimit limit(2);
  std::vector<std::thread> threads;
  std::atomic<unsigned> ran{0};
  CHECK(startThreads(threads, 5, "probe", [&](unsigned) { ++ran; }) == 2);
  CHECK(startThreads(threads, 5, "probe", [&](unsigned) { ++ran; }) == 2);
  for (auto& t : threads) t.join();
  CHECK(ran == 4);
  const auto warnings = limit.warnings();
  REQUIRE(warnings.size() == 1);  // once per pool and process
  CHECK_THAT(warnings[0], Contains("started only 2 of 5 probe threads") && Contains("running with 2"));
}

TEST_CASE("A cloud reader without its threads reads the same rays", "[threads][rays]") {
  vt::TempDir dir("thread-start");
  const std::vector<Ray> rays = lidarRays(1);
  writeRayCloud(dir.path() / "cloud.ply", rays);
  auto readAll = [&](unsigned threads, unsigned& workers) {
    RayReader reader(dir.path() / "cloud.ply", std::nullopt, {.threads = threads, .chunkPoints = 256});
    workers = reader.threads();
    std::vector<Ray> out;
    while (reader.read(out, 777) > 0) {
    }
    return out;
  };
  unsigned workers = 0;
  const std::vector<Ray> reference = readAll(1, workers);
  for (const unsigned granted : {0u, 1u, 3u}) {
    INFO(granted << " of 8 threads granted");
    StartLimit limit(granted);
    CHECK(sameRays(readAll(8, workers), reference));
    CHECK(workers == granted);
    const auto warnings = limit.warnings();
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Contains("of 8 cloud reader threads"));
  }
}

TEST_CASE("A prepared ray stream without its workers prepares the same records", "[threads][occupancy]") {
  const std::vector<Ray> rays = lidarRays(1);
  auto prepareAll = [&](unsigned workers) {
    size_t at = 0;
    PreparedRayStream stream(
        [&](uint64_t& progress) {
          const size_t n = std::min<size_t>(1000, rays.size() - at);
          const std::span<const Ray> chunk = std::span<const Ray>(rays).subspan(at, n);
          at += n;
          progress = at;
          return chunk;
        },
        OccupancyModel(), {}, 64, workers);
    std::vector<gpu::GpuRay> records;
    std::vector<uint64_t> progress;
    PreparedRays prepared;
    uint64_t p = 0;
    while (stream.next(prepared, p)) {
      records.insert(records.end(), prepared.hostRecords.begin(), prepared.hostRecords.end());
      progress.push_back(p);
    }
    CHECK(stream.workerCpuSeconds() >= 0.0);
    return std::make_pair(records, progress);
  };
  const auto reference = prepareAll(1);
  REQUIRE(reference.first.size() > 1000);
  for (const unsigned granted : {0u, 2u}) {
    INFO(granted << " of 4 workers granted");
    StartLimit limit(granted);
    const auto got = prepareAll(4);
    CHECK(got.second == reference.second);
    REQUIRE(got.first.size() == reference.first.size());
    CHECK(std::memcmp(got.first.data(), reference.first.data(), got.first.size() * sizeof(gpu::GpuRay)) == 0);
    CHECK(limit.warnings().size() == 1);
  }
}

TEST_CASE("Map files save and load, and lidar runs generate, without their threads", "[threads][map]") {
  vt::TempDir dir("thread-start");
  const std::vector<Ray> reference = lidarRays(1);
  OccupancyMap map;
  for (const Ray& ray : reference)
    map.region(map.regionOf(map.voxelAt(ray.sample))).occupancy()[0] = 1.0f;
  REQUIRE(map.regions().size() > 4);
  saveMap(map, dir.path() / "reference.vxm", {.threads = 1});

  StartLimit limit(0);
  CHECK(sameRays(lidarRays(4), reference));
  saveMap(map, dir.path() / "limited.vxm", {.threads = 8});
  const OccupancyMap loaded = loadMap(dir.path() / "limited.vxm", {.threads = 8});
  CHECK(loaded.regions().size() == map.regions().size());
  CHECK(vt::readBytes(dir.path() / "limited.vxm") == vt::readBytes(dir.path() / "reference.vxm"));
  const auto warnings = limit.warnings();
  CHECK(warnings.size() == 2);  // the lidar simulation's pool and the map file's, once each
}
