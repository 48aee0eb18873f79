// MapperRunOptions::decaySeconds (issue 38, item 5): occupancy decay towards unknown. The GPU
// Mapper's map equals the CPU reference's bit for bit after every call (with a region cache
// too small for the map, and with a local window), no observed voxel is older than the cut,
// a voxel seen again after a longer gap starts from unknown, forgetting bumps the obstacle-set
// stamps, and bad settings are refused naming the field.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/context.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/mapper.hpp"

namespace {

using namespace voxen;

// Scans 0..3 of a small lidar run (0.1 s each), the later ones after gaps, and scan 0 again
// long after: each call's rays with its time offset.
std::vector<std::vector<Ray>> callsWithGaps() {
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(4);
  const size_t perScan = rays.size() / 4;
  const size_t scans[] = {0, 1, 2, 3, 0};
  const double offsets[] = {0.0, 0.0, 3.0, 3.0, 10.0};
  std::vector<std::vector<Ray>> calls;
  for (size_t c = 0; c < 5; ++c) {
    calls.emplace_back(rays.begin() + ptrdiff_t(scans[c] * perScan), rays.begin() + ptrdiff_t((scans[c] + 1) * perScan));
    for (Ray& r : calls.back()) r.time += offsets[c];
  }
  return calls;
}

double newestTime(const std::vector<std::vector<Ray>>& calls, size_t upTo) {
  double newest = 0.0;
  for (size_t c = 0; c <= upTo; ++c)
    for (const Ray& r : calls[c]) newest = std::max(newest, r.time);
  return newest;
}

// Every region and every layer's bytes equal.
void requireSameMap(const OccupancyMap& a, const OccupancyMap& b) {
  REQUIRE(a.layout().ids() == b.layout().ids());
  REQUIRE(a.regions().size() == b.regions().size());
  for (const auto& [key, region] : a.regions()) {
    const Region* other = b.findRegion(key);
    REQUIRE(other);
    for (LayerId id : a.layout().ids()) {
      const auto& x = region.layers[id];
      const auto& y = other->layers[id];
      REQUIRE(x.size() == y.size());
      CHECK(std::memcmp(x.data(), y.data(), x.size()) == 0);
    }
  }
}

uint64_t observedVoxels(const OccupancyMap& map) {
  uint64_t n = 0;
  for (const auto& [key, region] : map.regions())
    for (float v : region.occupancy()) n += isObserved(v);
  return n;
}

uint64_t observedBefore(const OccupancyMap& map, double cut) {
  uint64_t n = 0;
  for (const auto& [key, region] : map.regions())
    for (size_t i = 0; i < region.occupancy().size(); ++i) n += isObserved(region.occupancy()[i]) && region.touchTime()[i] < cut;
  return n;
}

TEST_CASE("Mapper decay: the GPU map equals the CPU reference's bit for bit after every call",
          "[api][mapper][decay][gpu]") {
  const auto calls = callsWithGaps();
  OccupancyModel model;
  model.resolution = 0.2;
  const double decay = 1.0;
  Context context(vt::gpu().scheduler);
  for (const bool windowed : {false, true}) {
    INFO((windowed ? "with a 12 m window" : "without a window"));
    const std::optional<double> window = windowed ? std::optional<double>(12.0) : std::nullopt;
    // Every optional layer, so that forgetting resets voxel means, traversal and hit/miss counts alike.
    const LayerSet layers = kAllBuiltinLayers;
    Mapper reference(context, {.model = model, .extraLayers = layers,
                               .run = {.backend = MapperBackend::CpuReference, .window = window, .decaySeconds = decay}});
    Mapper plain(context, {.model = model, .extraLayers = layers, .run = {.backend = MapperBackend::CpuReference, .window = window}});
    Mapper gpu(context, {.model = model, .extraLayers = layers, .run = {.window = window, .decaySeconds = decay}});
    // A cache of 6 regions for a map of dozens: evictions in every call.
    GpuIntegratorOptions small;
    small.cacheBytes = 6 * RegionCache::bytesPerRegion(OccupancyMap(model, layers));
    Mapper gpuSmall(context, {.model = model, .extraLayers = layers, .run = {.gpu = small, .window = window, .decaySeconds = decay}});
    uint64_t forgottenSomewhere = 0;
    for (size_t c = 0; c < calls.size(); ++c) {
      INFO("call " << c);
      reference.integrate(calls[c]);
      plain.integrate(calls[c]);
      gpu.integrate(calls[c]);
      gpuSmall.integrate(calls[c]);
      const OccupancyMap& ref = reference.map();
      CHECK(ref.layout().has(kTouchTimeLayer));
      CHECK(observedBefore(ref, newestTime(calls, c) - decay) == 0);
      if (observedVoxels(ref) < observedVoxels(plain.map())) ++forgottenSomewhere;
      requireSameMap(gpu.map(), ref);
      requireSameMap(gpuSmall.map(), ref);
    }
    CHECK(forgottenSomewhere >= 2);  // after each gap
    CHECK(reference.map().regions().size() > 6);  // more than the small cache holds: it evicted
  }
}

TEST_CASE("Mapper decay: a voxel seen again after a longer gap starts from unknown", "[api][mapper][decay][gpu]") {
  const std::vector<Ray> scan = callsWithGaps()[1];
  std::vector<Ray> later = scan;
  for (Ray& r : later) r.time += 5.0;
  OccupancyModel model;
  model.resolution = 0.2;
  Context context(vt::gpu().scheduler);
  // Integrated once, without decay: what the second call alone gives a new map.
  Mapper fresh(context, {.model = model, .extraLayers = kAllBuiltinLayers, .run = {.backend = MapperBackend::CpuReference}});
  fresh.integrate(later);
  for (MapperBackend backend : {MapperBackend::CpuReference, MapperBackend::Gpu}) {
    INFO((backend == MapperBackend::Gpu ? "gpu" : "cpu reference"));
    Mapper decaying(context, {.model = model, .extraLayers = kAllBuiltinLayers, .run = {.backend = backend, .decaySeconds = 2.0}});
    decaying.integrate(scan);
    decaying.integrate(later);
    requireSameMap(decaying.map(), fresh.map());
    // Within the decay the same rays add up instead.
    Mapper within(context, {.model = model, .extraLayers = kAllBuiltinLayers, .run = {.backend = backend, .decaySeconds = 10.0}});
    within.integrate(scan);
    within.integrate(later);
    CHECK(observedVoxels(within.map()) == observedVoxels(fresh.map()));
    bool differs = false;
    for (const auto& [key, region] : within.map().regions())
      differs = differs || std::memcmp(region.occupancy().data(), fresh.map().findRegion(key)->occupancy().data(),
                                       region.occupancy().size_bytes()) != 0;
    CHECK(differs);
  }
}

TEST_CASE("Mapper decay: forgetting a voxel bumps its region's obstacle-set stamps", "[api][mapper][decay][gpu]") {
  OccupancyModel model;
  model.resolution = 0.1;
  Context context(vt::gpu().scheduler);
  for (MapperBackend backend : {MapperBackend::CpuReference, MapperBackend::Gpu}) {
    INFO((backend == MapperBackend::Gpu ? "gpu" : "cpu reference"));
    Mapper mapper(context, {.model = model, .run = {.backend = backend, .decaySeconds = 2.0}});
    // A ray in region (0,0,0) at t = 1 s: free voxels and an occupied one.
    mapper.integrate(std::vector<Ray>{{.origin = {0.05, 0.05, 0.05}, .sample = {1.55, 0.05, 0.05}, .time = 1.0}});
    const Region* seen = mapper.map().findRegion({0, 0, 0});
    REQUIRE(seen);
    const uint64_t occupiedStamp = seen->occupiedSetStamp, freeStamp = seen->freeSetStamp;
    CHECK(mapper.occupancyAt(glm::dvec3{1.55, 0.05, 0.05}).voxelClass == VoxelClass::Occupied);
    // 2.5 s later, a ray far away: the first ray's voxels are 2.5 s old, past the 2 s decay.
    mapper.integrate(std::vector<Ray>{{.origin = {20.05, 0.05, 0.05}, .sample = {21.05, 0.05, 0.05}, .time = 3.5}});
    const Region* forgotten = mapper.map().findRegion({0, 0, 0});
    REQUIRE(forgotten);  // the region stays, unobserved everywhere
    for (float v : forgotten->occupancy()) CHECK_FALSE(isObserved(v));
    for (double t : forgotten->touchTime()) CHECK(t == 0.0);
    CHECK(forgotten->occupiedSetStamp > occupiedStamp);
    CHECK(forgotten->freeSetStamp > freeStamp);
    CHECK(mapper.occupancyAt(glm::dvec3{1.55, 0.05, 0.05}).voxelClass == VoxelClass::Unobserved);
    // Snapshots see it too.
    CHECK(mapper.snapshot().occupancy(std::vector<glm::dvec3>{{1.55, 0.05, 0.05}}).at(0).voxelClass == VoxelClass::Unobserved);
  }
}

TEST_CASE("Mapper decay: bad settings are refused naming the field", "[api][mapper][decay]") {
  Context context(vt::gpu().scheduler);
  for (const double bad : {-1.0, std::numeric_limits<double>::quiet_NaN()}) {
    try {
      Mapper mapper(context, {.run = {.backend = MapperBackend::CpuReference, .decaySeconds = bad}});
      FAIL("decaySeconds " << bad << " was taken");
    } catch (const SettingError& e) {
      CHECK(e.field() == "MapperRunOptions::decaySeconds");
      CHECK(e.kind() == SettingError::Kind::Invalid);
      CHECK_THAT(e.what(), Catch::Contains("at least 0"));
    }
  }
  // 0 is taken (only voxels touched at the newest time stay), and a new map gets the touch-time layer.
  Mapper zero(context, {.run = {.backend = MapperBackend::CpuReference, .decaySeconds = 0.0}});
  CHECK(zero.map().layout().has(kTouchTimeLayer));
  // A map without the touch-time layer cannot decay.
  try {
    (void)Mapper::fromMap(context, OccupancyMap{}, {.backend = MapperBackend::CpuReference, .decaySeconds = 5.0});
    FAIL("a map without touch times was taken");
  } catch (const SettingError& e) {
    CHECK(e.field() == "MapperRunOptions::decaySeconds");
    CHECK_THAT(e.what(), Catch::Contains("touch-time layer"));
  }
}

}  // namespace
