// The frame loop on a Mapper (issue 38, item 5): scans and incremental clearances
// interleaved. A GPU integrator made before the map had a clearance layer keeps its region
// cache across a clearance (the clearance writes only that layer); one made after holds the
// layer and is replaced. Both give the CPU reference's map, every layer bit for bit.
#include <catch2/catch.hpp>

#include <cstring>
#include <span>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/context.hpp"
#include "voxen/mapper.hpp"

namespace {

using namespace voxen;

// Every layer of every region, bit for bit.
void requireSameMap(const OccupancyMap& a, const OccupancyMap& b) {
  REQUIRE(a.layout().names() == b.layout().names());
  REQUIRE(a.regions().size() == b.regions().size());
  size_t differing = 0;
  for (const auto& [key, region] : a.regions()) {
    const Region* other = b.findRegion(key);
    REQUIRE(other);
    for (LayerId id : a.layout().ids()) {
      const std::vector<std::byte>& x = region.layers[id];
      const std::vector<std::byte>& y = other->layers[id];
      differing += x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size()) != 0;
    }
  }
  CHECK(differing == 0);
}

}  // namespace

TEST_CASE("Mapper frame loop: the GPU integrator's cache survives clearances, the map equals a retiring Mapper's and the CPU's",
          "[api][mapper][clearance][gpu]") {
  const int scans = 6;
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(scans);
  const size_t perScan = rays.size() / scans;
  OccupancyModel model;
  model.resolution = 0.2;
  ClearanceOptions clearance;
  clearance.range = 1.0;
  Context context(vt::gpu().scheduler);
  const MapperRunOptions gpu{.backend = MapperBackend::Gpu, .gpu = {.cacheBytes = 64ull << 20}};
  Mapper kept(context, {.model = model, .run = gpu});
  // Its clearance layer before its first ray: its integrator's cache holds that layer, so the
  // Mapper replaces the integrator after every clearance (the rule before this change).
  Mapper retiring(context, {.model = model, .run = gpu});
  retiring.computeClearance(clearance);
  Mapper cpu(context, {.model = model, .run = {.backend = MapperBackend::CpuReference}});
  uint64_t keptUploads = 0, retiringUploads = 0;
  for (int scan = 0; scan < scans; ++scan) {
    INFO("scan " << scan);
    // Scans 0-1 and 3-5 overlap the same regions; scan 2 is followed by two clearances in a
    // row, scan 4 by none (two scans between clearances).
    const std::span<const Ray> frame = std::span<const Ray>(rays).subspan(scan * perScan, perScan);
    const uint64_t keptBefore = kept.scheduler().stats().uploadedBytes;
    const uint64_t retiringBefore = retiring.scheduler().stats().uploadedBytes;
    for (Mapper* m : {&kept, &retiring, &cpu}) {
      m->integrate(frame);
      m->flush();
    }
    if (scan > 0) {  // after the first clearance: the kept cache has the regions already
      keptUploads += kept.scheduler().stats().uploadedBytes - keptBefore;
      retiringUploads += retiring.scheduler().stats().uploadedBytes - retiringBefore;
    }
    if (scan == 4) continue;
    for (int twice = 0; twice < (scan == 2 ? 2 : 1); ++twice)
      for (Mapper* m : {&kept, &retiring, &cpu}) m->computeClearance(clearance, {.onlyOutOfDate = true});
    requireSameMap(kept.map(), cpu.map());
    requireSameMap(retiring.map(), cpu.map());
  }
  // One more clearance after the last scan, then everything against a full recomputation.
  for (Mapper* m : {&kept, &retiring, &cpu}) m->computeClearance(clearance, {.onlyOutOfDate = true});
  requireSameMap(kept.map(), cpu.map());
  requireSameMap(retiring.map(), cpu.map());
  OccupancyMap full = cpu.map();
  computeClearanceCpu(full, clearance);
  requireSameMap(kept.map(), full);
  // The kept integrator did not load the regions it already held: far fewer bytes uploaded
  // per scan than an integrator made anew after each clearance (the rays are the same).
  INFO("uploaded after the first clearance: kept " << keptUploads << " bytes, retiring " << retiringUploads);
  CHECK(keptUploads * 2 < retiringUploads);
}
