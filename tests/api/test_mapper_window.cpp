// MapperRunOptions::window (issue 38, item 5): after each integrate call the regions farther
// than the window from the latest sensor origin are gone, and the regions that were within it
// at every call hold the same bits as without a window; on the GPU and the CPU reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <set>
#include <span>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/context.hpp"
#include "voxen/mapper.hpp"

namespace {

using namespace voxen;

double distanceToBox(const glm::dvec3& p, const RegionKey& key, double edge) {
  double squared = 0.0;
  const double lo[3] = {key.x * edge, key.y * edge, key.z * edge};
  for (int a = 0; a < 3; ++a) {
    const double d = p[a] < lo[a] ? lo[a] - p[a] : p[a] > lo[a] + edge ? p[a] - lo[a] - edge : 0.0;
    squared += d * d;
  }
  return std::sqrt(squared);
}

TEST_CASE("Mapper window: regions beyond it leave after each integrate call, those within stay bit-equal",
          "[api][mapper][window][gpu]") {
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(4);
  const size_t perScan = rays.size() / 4;
  OccupancyModel model;
  model.resolution = 0.2;
  const double edge = model.resolution * model.regionSize;
  const double window = 6.0;
  Context context(vt::gpu().scheduler);
  for (MapperBackend backend : {MapperBackend::CpuReference, MapperBackend::Gpu}) {
    INFO((backend == MapperBackend::Gpu ? "gpu" : "cpu reference"));
    Mapper windowed(context, {.model = model, .run = {.backend = backend, .window = window}});
    Mapper whole(context, {.model = model, .run = {.backend = backend}});
    std::vector<glm::dvec3> origins;
    size_t droppedSoFar = 0;
    for (size_t scan = 0; scan < 4; ++scan) {
      const std::span<const Ray> frame = std::span<const Ray>(rays).subspan(scan * perScan, perScan);
      windowed.integrate(frame);
      whole.integrate(frame);
      origins.push_back(frame.back().origin);
      const OccupancyMap& w = windowed.map();
      const OccupancyMap& all = whole.map();
      for (const auto& [key, region] : w.regions()) CHECK(distanceToBox(origins.back(), key, edge) <= window);
      size_t beyond = 0;
      for (const auto& [key, region] : all.regions()) beyond += distanceToBox(origins.back(), key, edge) > window;
      droppedSoFar += beyond;
      CHECK(w.regions().size() + beyond == all.regions().size());
    }
    CHECK(droppedSoFar > 0);  // the lidar's 30 m reach makes regions far beyond 6 m every scan
    // Regions within the window at every call: the same bits as without a window.
    const OccupancyMap& w = windowed.map();
    const OccupancyMap& all = whole.map();
    size_t compared = 0;
    for (const auto& [key, region] : all.regions()) {
      bool alwaysWithin = true;
      for (const glm::dvec3& o : origins) alwaysWithin = alwaysWithin && distanceToBox(o, key, edge) <= window;
      if (!alwaysWithin) continue;
      const Region* kept = w.findRegion(key);
      REQUIRE(kept);
      for (LayerId id : all.layout().ids()) {
        const auto& a = region.layers[id];
        const auto& b = kept->layers[id];
        REQUIRE(a.size() == b.size());
        CHECK(std::memcmp(a.data(), b.data(), a.size()) == 0);
      }
      ++compared;
    }
    CHECK(compared >= 4);
    INFO(compared << " regions compared, " << w.regions().size() << " kept of " << all.regions().size());
  }
}

TEST_CASE("Mapper window: a dropped region is out of date for the clearance near it", "[api][mapper][window]") {
  // Two rays 20 m apart along x: the first makes regions near x = 0; the second's origin at
  // x = 20 m leaves them beyond a 5 m window.
  OccupancyModel model;
  model.resolution = 0.1;
  Context context(vt::gpu().scheduler);
  Mapper mapper(context, {.model = model, .run = {.backend = MapperBackend::CpuReference, .window = 5.0}});
  mapper.integrate(std::vector<Ray>{{.origin = {0.5, 0.5, 0.5}, .sample = {1.5, 0.5, 0.5}}});
  REQUIRE(mapper.map().findRegion({0, 0, 0}));
  mapper.integrate(std::vector<Ray>{{.origin = {20.5, 0.5, 0.5}, .sample = {21.5, 0.5, 0.5}}});
  CHECK(!mapper.map().findRegion({0, 0, 0}));
  CHECK(mapper.map().findRegion({6, 0, 0}));
  CHECK(mapper.map().classSetStamp({0, 0, 0}, VoxelClass::Free) > 0);  // remembered as dropped
}

}  // namespace
