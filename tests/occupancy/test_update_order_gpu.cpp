// Map fidelity: the GPU's sequential order gives the sequential CPU reference's map (each
// ray's misses, then its hit, ray after ray, as OHM and OctoMap do) bit for bit, whatever
// the batch size, and clears what those rays clear. Each case also runs the two-phase order
// on the same rays and checks that it does NOT clear them: the scenes are ones where the
// order matters, so the sequential checks could fail.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/map/map_overlap.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

double uniform(vt::Rng& rng, double lo, double hi) { return lo + (hi - lo) * (double(rng.u32()) / 4294967296.0); }

IntegrationOptions inOrder(UpdateOrder order) { return {.order = order}; }

GpuIntegratorOptions batchesOf(uint32_t rays) { return {.cacheBytes = 128ull << 20, .maxRaysPerBatch = rays}; }

// Occupied voxels of `map` within the box [lo, hi] (metres).
uint64_t occupiedWithin(const OccupancyMap& map, glm::dvec3 lo, glm::dvec3 hi) {
  uint64_t count = 0;
  const double r = map.model().resolution;
  for (const auto& [key, region] : map.regions())
    for (uint32_t i = 0; i < region.occupancy().size(); ++i) {
      const VoxelCoord v = map.voxelOf(key, i);
      const glm::dvec3 centre = (glm::dvec3(v.x, v.y, v.z) + 0.5) * r;
      if (glm::all(glm::greaterThanEqual(centre, lo)) && glm::all(glm::lessThanEqual(centre, hi)) &&
          map.classify(region.occupancy()[i]) == VoxelClass::Occupied)
        ++count;
    }
  return count;
}

// Where the segment from o to p first enters the axis-aligned box [lo, hi], if it does.
std::optional<glm::dvec3> entersBox(glm::dvec3 o, glm::dvec3 p, glm::dvec3 lo, glm::dvec3 hi) {
  const glm::dvec3 d = p - o;
  double t0 = 0.0, t1 = 1.0;
  for (int a = 0; a < 3; ++a) {
    if (std::abs(d[a]) < 1e-12) {
      if (o[a] < lo[a] || o[a] > hi[a]) return std::nullopt;
      continue;
    }
    double ta = (lo[a] - o[a]) / d[a], tb = (hi[a] - o[a]) / d[a];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  if (t0 > t1) return std::nullopt;
  return o + d * t0;
}

// Appends a ray whose time follows the previous one's by 0.1 ms.
void addRay(std::vector<Ray>& rays, glm::dvec3 origin, glm::dvec3 sample) {
  Ray ray;
  ray.origin = origin;
  ray.sample = sample;
  ray.time = 1e-4 * double(rays.size());
  rays.push_back(ray);
}

}  // namespace

TEST_CASE("A thin wall hit once and then crossed by many later rays of the same batch is cleared",
          "[occupancy][gpu][order]") {
  // A one-voxel wall at x = 2 m seen by 3,000 rays, then 12,000 rays through the wall's
  // place (it was a door that opened) to a wall at x = 5 m, all in one batch of 16,384.
  vt::Rng rng(41);
  std::vector<Ray> rays;
  for (int i = 0; i < 15000; ++i) {
    const glm::dvec3 origin{0.05, uniform(rng, -0.05, 0.05), 1.0};
    // The later rays' samples spread 2.5 times as wide, so that they cross the whole wall.
    addRay(rays, origin,
           i < 3000 ? glm::dvec3(2.05, uniform(rng, -0.6, 0.6), uniform(rng, 0.6, 1.4))
                    : glm::dvec3(5.05, uniform(rng, -1.5, 1.5), uniform(rng, -0.5, 2.5)));
  }
  const glm::dvec3 wallLo{2.0, -0.5, 0.7}, wallHi{2.1, 0.5, 1.3};  // the part the later rays cross densely
  for (const OccupancyModel& model : {OccupancyModel(), OccupancyModel::octomap()}) {
    INFO(model.hitProbability << " / " << model.missProbability);
    const Run gpu = runGpu(rays, inOrder(UpdateOrder::Sequential), model, LayerSet{kHitMissLayer}, batchesOf(16384));
    const Run cpu = runCpu(rays, inOrder(UpdateOrder::Sequential), model, LayerSet{kHitMissLayer}, 16384);
    requireIdentical(gpu, cpu);
    const uint64_t wallBefore = occupiedWithin(runCpu(std::vector<Ray>(rays.begin(), rays.begin() + 3000),
                                                       inOrder(UpdateOrder::Sequential), model, LayerSet{})
                                                   .map,
                                               wallLo, wallHi);
    const uint64_t wallAfter = occupiedWithin(gpu.map, wallLo, wallHi);
    INFO("wall voxels occupied after the first 3,000 rays " << wallBefore << ", after all " << wallAfter);
    REQUIRE(wallBefore > 50);
    CHECK(wallAfter * 20 < wallBefore);  // more than 95 % cleared
    // The two-phase order in one batch keeps the wall: every hit lands after every miss.
    const Run twoPhase = runGpu(rays, inOrder(UpdateOrder::TwoPhase), model, LayerSet{kHitMissLayer}, batchesOf(16384));
    CHECK(occupiedWithin(twoPhase.map, wallLo, wallHi) * 10 > wallBefore * 9);
  }
}

TEST_CASE("A box present in the first half of a run and gone in the second leaves the sequential free space",
          "[occupancy][gpu][order]") {
  // A sensor sweeping sideways sees a 1 m box in front of a back wall; half way through the
  // run the box is taken away and the same sweep sees the wall through its place.
  const glm::dvec3 boxLo{2.5, -0.5, 0.5}, boxHi{3.5, 0.5, 1.5};
  vt::Rng rng(43);
  std::vector<Ray> rays;
  const int count = 40000;
  for (int i = 0; i < count; ++i) {
    const bool boxThere = i < count / 2;
    const double phase = double(i % (count / 2)) / double(count / 2);
    const glm::dvec3 origin{0.0, -1.0 + 2.0 * phase, 1.0};
    glm::dvec3 sample{6.0, uniform(rng, -2.0, 2.0), uniform(rng, 0.2, 1.8)};
    if (boxThere)
      if (auto entry = entersBox(origin, sample, boxLo, boxHi)) sample = *entry;
    addRay(rays, origin, sample);
  }
  const glm::dvec3 inner = boxLo + 0.15, outer = boxHi - 0.15;  // skip the faces' rounding at the edges
  const uint32_t batch = GENERATE(4096u, 65536u);
  INFO("batch " << batch);
  const Run gpu = runGpu(rays, inOrder(UpdateOrder::Sequential), {}, LayerSet{kHitMissLayer}, batchesOf(batch));
  const Run cpu = runCpu(rays, inOrder(UpdateOrder::Sequential), {}, LayerSet{kHitMissLayer}, batch);
  requireIdentical(gpu, cpu);
  const uint64_t boxFirstHalf = occupiedWithin(
      runCpu(std::vector<Ray>(rays.begin(), rays.begin() + count / 2), inOrder(UpdateOrder::Sequential), {}, LayerSet{}).map,
      boxLo - 0.05, boxHi + 0.05);
  const uint64_t boxLeft = occupiedWithin(gpu.map, boxLo - 0.05, boxHi + 0.05);
  INFO("box voxels occupied after the first half " << boxFirstHalf << ", at the end " << boxLeft);
  REQUIRE(boxFirstHalf > 200);
  CHECK(boxLeft * 20 < boxFirstHalf);
  CHECK(occupiedWithin(gpu.map, inner, outer) == 0);
  // In the two-phase order, batches that hold rays of both halves keep box faces.
  if (batch == 65536u) {
    const Run twoPhase = runGpu(rays, inOrder(UpdateOrder::TwoPhase), {}, LayerSet{kHitMissLayer}, batchesOf(batch));
    CHECK(occupiedWithin(twoPhase.map, boxLo - 0.05, boxHi + 0.05) * 2 > boxFirstHalf);
  }
}

TEST_CASE("The sequential map does not depend on the batch size", "[occupancy][gpu][order][lidar]") {
  // A generated lidar run of 196,608 rays (a moving sensor, rooms, a corridor, no-return
  // rays) at batch sizes 4,096, 32,768 and 131,072: the bar is a pairwise Jaccard of
  // occupied voxels of at least 0.995; the sequential order gives the same bits.
  const auto rays = smallLidarRun(12);
  REQUIRE(rays.size() == 196608u);
  const OccupancyModel model = GENERATE(OccupancyModel(), OccupancyModel::octomap());
  INFO(model.hitProbability << " / " << model.missProbability);
  const Run reference = runCpu(rays, inOrder(UpdateOrder::Sequential), model, LayerSet{}, rays.size());
  REQUIRE(reference.map.counts().occupied > 2000);
  std::vector<Run> runs;
  for (uint32_t batch : {4096u, 32768u, 131072u}) {
    INFO("batch " << batch);
    runs.push_back(runGpu(rays, inOrder(UpdateOrder::Sequential), model, LayerSet{}, batchesOf(batch)));
    REQUIRE(runs.back().stats.droppedUpdates == 0);
    const Comparison c = compareMaps(runs.back().map, reference.map);
    CHECK(c.sameBits == c.voxels);
    CHECK(runs.back().stats.voxelUpdates == reference.stats.voxelUpdates);
  }
  for (size_t a = 0; a < runs.size(); ++a)
    for (size_t b = a + 1; b < runs.size(); ++b) CHECK(occupiedJaccard(runs[a].map, runs[b].map).jaccard() >= 0.995);
  // The two-phase order on the same run does depend on it (what the sequential order fixes).
  const Run small = runGpu(rays, inOrder(UpdateOrder::TwoPhase), model, LayerSet{}, batchesOf(4096));
  const Run large = runGpu(rays, inOrder(UpdateOrder::TwoPhase), model, LayerSet{}, batchesOf(131072));
  CHECK(occupiedJaccard(small.map, large.map).jaccard() < 0.995);
  CHECK(occupiedJaccard(large.map, reference.map).jaccard() < occupiedJaccard(runs.back().map, reference.map).jaccard());
}

TEST_CASE("A voxel hit by thousands of rays in one batch, with misses between, replays in order",
          "[occupancy][gpu][order]") {
  // Long runs of hits on one voxel with misses of other rays between them, in a random
  // pattern: exercises the galloping and binary search of the miss pass over long runs and
  // the resolve loop's early stop at the lower clamp.
  vt::Rng rng(47);
  std::vector<Ray> rays;
  for (int i = 0; i < 20000; ++i) {
    const bool hitTarget = rng.chance(40);
    addRay(rays, {0.05, 0.05, 0.05},
           hitTarget ? glm::dvec3(1.05 + uniform(rng, -0.04, 0.04), 0.05, 0.05) : glm::dvec3(2.55, 0.05, 0.05));
  }
  for (const OccupancyModel& model : {OccupancyModel(), OccupancyModel::octomap()}) {
    const Run gpu = runGpu(rays, inOrder(UpdateOrder::Sequential), model, LayerSet{kHitMissLayer}, batchesOf(20000));
    const Run cpu = runCpu(rays, inOrder(UpdateOrder::Sequential), model, LayerSet{kHitMissLayer}, 20000);
    const Comparison c = compareMaps(gpu.map, cpu.map);
    REQUIRE(gpu.stats.droppedUpdates == 0);
    CHECK(c.voxels >= 25);
    CHECK(c.sameBits == c.voxels);
    CHECK(c.layerMismatches == 0);
    CHECK(gpu.stats.voxelUpdates == cpu.stats.voxelUpdates);
  }
}

TEST_CASE("When the list of misses on hit voxels fills up, the miss pass counts the rest itself",
          "[occupancy][gpu][order]") {
  // Batches of 64 rays list at most 256 such misses. Each batch: rays hitting 32 voxels of
  // a line one by one, interleaved with rays along the whole line that cross all of them,
  // so each batch has about 32 x 32 misses on voxels with hits, in an order that matters.
  std::vector<Ray> rays;
  for (int round = 0; round < 20; ++round)
    for (int k = 0; k < 32; ++k) {
      addRay(rays, {0.05, 0.05, 0.05}, {0.15 + 0.1 * k + 0.001 * round, 0.05, 0.05});
      addRay(rays, {0.05, 0.05, 0.05}, {4.05, 0.05, 0.05});
    }
  for (const OccupancyModel& model : {OccupancyModel(), OccupancyModel::octomap()}) {
    const Run gpu = runGpu(rays, inOrder(UpdateOrder::Sequential), model, LayerSet{kHitMissLayer}, batchesOf(64));
    const Run cpu = runCpu(rays, inOrder(UpdateOrder::Sequential), model, LayerSet{kHitMissLayer}, 64);
    const Comparison c = compareMaps(gpu.map, cpu.map);
    INFO("rewalked segments " << gpu.stats.rewalkedSegments);
    REQUIRE(gpu.stats.droppedUpdates == 0);
    CHECK(gpu.stats.rewalkedSegments > 0);
    CHECK(c.voxels >= 40);
    CHECK(c.sameBits == c.voxels);
    CHECK(gpu.stats.voxelUpdates == cpu.stats.voxelUpdates);
  }
}

TEST_CASE("A replay longer than one invocation may run is counted as dropped, not passed over silently",
          "[occupancy][gpu][order]") {
  // 40,000 hits on one voxel, each followed by a ray through it from another direction, in
  // one batch: replaying that voxel takes 80,000 steps, more than kMaxResolveSteps (lavapipe
  // stops an invocation's loops at 65,535 iterations). The voxel keeps the value reached
  // and the truncation shows in droppedUpdates; every other voxel matches the reference.
  // (A first replay with a loop per gap was cut at 21,845 hits by lavapipe, which counts
  // each inner loop's exit check too, before its own budget noticed: no drop was counted.)
  vt::Rng rng(53);
  const glm::dvec3 centre{1.05, 1.05, 1.05};
  std::vector<Ray> rays;
  for (int i = 0; i < 40000; ++i) {
    glm::dvec3 dir{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)};
    dir = glm::normalize(dir + glm::dvec3(1e-3));
    addRay(rays, centre - 2.0 * dir, centre + glm::dvec3(uniform(rng, -0.04, 0.04), 0.0, 0.0));
    addRay(rays, centre + 2.0 * dir, centre - 2.0 * dir);
  }
  const Run gpu = runGpu(rays, inOrder(UpdateOrder::Sequential), {}, LayerSet{}, batchesOf(80000));
  const Run cpu = runCpu(rays, inOrder(UpdateOrder::Sequential), {}, LayerSet{}, 80000);
  INFO("hot voxel: GPU " << gpu.map.value({10, 10, 10}) << ", CPU " << cpu.map.value({10, 10, 10}) << ", updates GPU "
                          << gpu.stats.voxelUpdates << ", CPU " << cpu.stats.voxelUpdates);
  CHECK(gpu.stats.droppedUpdates >= 1);
  // Every voxel but the long-replayed one has the reference's bits.
  const VoxelCoord hot{10, 10, 10};
  uint64_t voxels = 0, same = 0;
  for (const auto& [key, region] : cpu.map.regions())
    for (uint32_t i = 0; i < region.occupancy().size(); ++i) {
      const VoxelCoord v = cpu.map.voxelOf(key, i);
      if (!isObserved(region.occupancy()[i]) || v == hot) continue;
      ++voxels;
      same += gpu.map.value(v) == region.occupancy()[i];
    }
  CHECK(voxels > 1000);
  CHECK(same == voxels);
}
