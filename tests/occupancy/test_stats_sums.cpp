// Stats structs add up with operator+= (issue 36, item 5): the Mapper sums its integrators'
// counts and host stage times, and the map sums its regions' counts, through these instead
// of field-by-field sums at each call site. Every field must be summed: each field of the
// two operands gets its own value here, so a field left out shows as a wrong sum.
#include <catch2/catch.hpp>

#include "voxen/map/map.hpp"
#include "voxen/occupancy/host_stage_times.hpp"
#include "voxen/occupancy/integration_stats.hpp"

using namespace voxen;

namespace {

// Counts 1..16 (times `scale`) in declaration order.
IntegrationStats numberedStats(uint64_t scale) {
  IntegrationStats s;
  uint64_t n = 0;
  for (uint64_t* field : {&s.rays, &s.clippedRays, &s.rejectedRays, &s.rejectedNonFinite, &s.rejectedTooFar,
                          &s.rejectedIntensity, &s.voxelUpdates, &s.droppedUpdates, &s.casRetries, &s.rewalkedSegments,
                          &s.ndtFoldInvocations, &s.ndtSampleVoxels, &s.batches, &s.regionChunks,
                          &s.gpuLookupBatches, &s.lookupMissedRegions})
    *field = ++n * scale;
  return s;
}

}  // namespace

TEST_CASE("IntegrationStats += sums every count and keeps the first rejected ray", "[occupancy][stats]") {
  IntegrationStats sum = numberedStats(1);
  sum += numberedStats(100);
  uint64_t n = 0;
  for (uint64_t field : {sum.rays, sum.clippedRays, sum.rejectedRays, sum.rejectedNonFinite, sum.rejectedTooFar,
                         sum.rejectedIntensity, sum.voxelUpdates, sum.droppedUpdates, sum.casRetries, sum.rewalkedSegments,
                         sum.ndtFoldInvocations, sum.ndtSampleVoxels, sum.batches, sum.regionChunks,
                         sum.gpuLookupBatches, sum.lookupMissedRegions}) {
    ++n;
    CHECK(field == n * 101);
  }
  CHECK(n == 16);
  CHECK_FALSE(sum.firstRejected);

  IntegrationStats later;
  later.firstRejected = RejectedRay{.index = 7, .ray = {}, .nonFinite = true};
  sum += later;  // none yet: the later one's, with its own index
  REQUIRE(sum.firstRejected);
  CHECK(sum.firstRejected->index == 7);
  CHECK(sum.firstRejected->nonFinite);
  IntegrationStats another;
  another.firstRejected = RejectedRay{.index = 2};
  sum += another;  // the first stays
  CHECK(sum.firstRejected->index == 7);
}

TEST_CASE("HostStageTimes += sums the rays and every stage", "[occupancy][stats]") {
  HostStageTimes a{.rays = 10, .prepareSeconds = 1, .discoverySeconds = 2, .residencySeconds = 3, .uploadSeconds = 4,
                   .readbackSeconds = 5};
  const HostStageTimes b{.rays = 20, .prepareSeconds = 10, .discoverySeconds = 20, .residencySeconds = 30,
                         .uploadSeconds = 40, .readbackSeconds = 50};
  a += b;
  CHECK(a.rays == 30);
  CHECK(a.prepareSeconds == 11);
  CHECK(a.discoverySeconds == 22);
  CHECK(a.residencySeconds == 33);
  CHECK(a.uploadSeconds == 44);
  CHECK(a.readbackSeconds == 55);
  CHECK(a.totalSeconds() == 165);
}

TEST_CASE("OccupancyMap::Counts += sums occupied, free and regions", "[map][stats]") {
  OccupancyMap::Counts c{.occupied = 1, .free = 2, .regions = 3};
  c += OccupancyMap::Counts{.occupied = 10, .free = 20, .regions = 30};
  CHECK(c.occupied == 11);
  CHECK(c.free == 22);
  CHECK(c.regions == 33);
}
