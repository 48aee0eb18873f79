// The CPU reference's sequential order (UpdateOrder::Sequential: ray after ray, each
// ray's misses then its hit, every update clamped) against hand-computed values, and against
// the two-phase order fed one ray per batch, where the two orders must agree bit for bit.
#include <catch2/catch.hpp>

#include <cstring>

#include "support/gpu_fixture.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"

namespace {

using namespace voxen;

// 1 m voxels and a strong miss, so that a few misses reach the lower clamp.
OccupancyModel strongMissModel() {
  OccupancyModel m;
  m.resolution = 1.0;
  m.missProbability = 0.3f;  // log-odds -0.847: three misses from 0 reach clampMin -2
  return m;
}

Ray rayAlongX(double fromX, double toX) {
  return Ray{.origin = {fromX, 0.5, 0.5}, .sample = {toX, 0.5, 0.5}, .time = 0.0};
}

// Ray 1 ends in voxel (5,0,0); rays 2..6 run through it to voxel (8,0,0).
std::vector<Ray> hitThenCrossed() {
  std::vector<Ray> rays{rayAlongX(0.5, 5.5)};
  for (int i = 0; i < 5; ++i) rays.push_back(rayAlongX(0.5, 8.5));
  return rays;
}

// The same clamped update both integrators apply, chained by hand.
float applied(float value, std::initializer_list<float> deltas, const OccupancyModel& m) {
  for (float d : deltas) value = updatedValue(value, d, m.clampMin, m.clampMax);
  return value;
}

OccupancyMap integrated(const std::vector<Ray>& rays, UpdateOrder order, IntegrationOptions options = {},
                        OccupancyModel model = strongMissModel(), LayerSet layers = {}, size_t batch = SIZE_MAX) {
  OccupancyMap map(model, layers);
  options.order = order;
  CpuIntegrator cpu(map, options);
  for (size_t i = 0; i < rays.size(); i += batch)
    cpu.integrate(std::span<const Ray>(rays).subspan(i, std::min(batch, rays.size() - i)));
  return map;
}

}  // namespace

TEST_CASE("Sequential order: a hit crossed by later rays ends free; two-phase in one batch keeps it occupied",
          "[occupancy][cpu][sequential]") {
  const OccupancyModel m = strongMissModel();
  const float hit = m.hitValue(), miss = m.missValue();
  const VoxelCoord surface{5, 0, 0};

  // Sequential: hit first (2.197), then five misses with clamping at every step:
  // 1.350, 0.503, -0.344, -1.191, then -2.038 clamped to -2.
  const OccupancyMap sequential = integrated(hitThenCrossed(), UpdateOrder::Sequential);
  const float expectedSequential = applied(kUnobserved, {hit, miss, miss, miss, miss, miss}, m);
  CHECK(expectedSequential == m.clampMin);
  CHECK(sequential.value(surface) == expectedSequential);
  CHECK(sequential.classify(surface) == VoxelClass::Free);

  // Two-phase (the GPU's order) in one batch: the five misses first (-0.847, -1.695, then
  // clamped at -2 three times), then the hit: -2 + 2.197 = 0.197, occupied. Clamping is
  // what makes the orders differ: unclamped, both would sum to the same value.
  const OccupancyMap twoPhase = integrated(hitThenCrossed(), UpdateOrder::TwoPhase);
  const float expectedTwoPhase = applied(kUnobserved, {miss, miss, miss, miss, miss, hit}, m);
  CHECK(expectedTwoPhase == Approx(m.clampMin + hit));
  CHECK(twoPhase.value(surface) == expectedTwoPhase);
  CHECK(twoPhase.classify(surface) == VoxelClass::Occupied);

  // Voxels that only ever get one kind of update do not depend on the order.
  for (const OccupancyMap* map : {&sequential, &twoPhase}) {
    CHECK(map->value({2, 0, 0}) == applied(kUnobserved, {miss, miss, miss, miss, miss, miss}, m));
    CHECK(map->value({7, 0, 0}) == applied(kUnobserved, {miss, miss, miss, miss, miss}, m));
    CHECK(map->value({8, 0, 0}) == applied(kUnobserved, {hit, hit, hit, hit, hit}, m));
  }
}

TEST_CASE("Sequential order judges stop-on-occupied on the map the earlier rays left", "[occupancy][cpu][sequential]") {
  const OccupancyModel m = strongMissModel();
  const std::vector<Ray> rays{rayAlongX(0.5, 5.5), rayAlongX(0.5, 8.5)};
  const IntegrationOptions stop{.flags = RayFlag::StopOnFirstOccupied};

  // Ray 1 makes (5,0,0) occupied, so ray 2 stops before it: nothing at or past it changes.
  const OccupancyMap sequential = integrated(rays, UpdateOrder::Sequential, stop);
  CHECK(sequential.value({4, 0, 0}) == applied(kUnobserved, {m.missValue(), m.missValue()}, m));
  CHECK(sequential.value({5, 0, 0}) == applied(kUnobserved, {m.hitValue()}, m));
  CHECK(!isObserved(sequential.value({6, 0, 0})));
  CHECK(!isObserved(sequential.value({8, 0, 0})));

  // Two-phase in one batch judges on the empty map before the batch: ray 2 walks through.
  const OccupancyMap twoPhase = integrated(rays, UpdateOrder::TwoPhase, stop);
  CHECK(twoPhase.value({6, 0, 0}) == applied(kUnobserved, {m.missValue()}, m));
  CHECK(twoPhase.value({8, 0, 0}) == applied(kUnobserved, {m.hitValue()}, m));
}

namespace {

// Rays from three sensors in a 4 x 3 x 2 m room to its walls and to a box inside it, so
// voxels get hits and misses from many rays in a mixed order.
std::vector<Ray> mixedRoomRays(size_t count) {
  vt::Rng rng(7);
  auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * (double(rng.u32()) / 4294967296.0); };
  const glm::dvec3 sensors[] = {{1.0, 1.0, 1.0}, {3.0, 2.0, 1.2}, {2.0, 0.5, 0.6}};
  std::vector<Ray> rays;
  for (size_t i = 0; i < count; ++i) {
    glm::dvec3 target;
    switch (rng.next() % 3) {
      case 0: target = {uniform(0, 4), uniform(0, 3), rng.chance(50) ? 0.0 : 2.0}; break;
      case 1: target = {rng.chance(50) ? 0.0 : 4.0, uniform(0, 3), uniform(0, 2)}; break;
      default: target = {uniform(1.8, 2.2), uniform(1.3, 1.7), uniform(0.4, 0.8)}; break;  // the box
    }
    rays.push_back(Ray{.origin = sensors[rng.next() % 3], .sample = target, .time = double(i) * 1e-3});
  }
  return rays;
}

bool sameBits(const OccupancyMap& a, const OccupancyMap& b) {
  if (a.regions().size() != b.regions().size()) return false;
  for (const auto& [key, ra] : a.regions()) {
    const Region* rb = b.findRegion(key);
    if (!rb) return false;
    if (!(ra.layers == rb->layers)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("With one ray per batch the two-phase order equals the sequential order bit for bit",
          "[occupancy][cpu][sequential]") {
  const std::vector<Ray> rays = mixedRoomRays(1500);
  OccupancyModel model;
  model.resolution = 0.1;
  const LayerSet layers = kAllBuiltinLayers;
  const RayFlags flagSets[] = {{},
                               RayFlag::StopOnFirstOccupied,
                               RayFlag::ForwardWalk | RayFlag::StopOnFirstOccupied,
                               RayFlag::ExcludeOrigin | RayFlag::ExcludeSample,
                               RayFlag::EndPointAsFree};
  for (const RayFlags flags : flagSets)
    for (double maxRange : {0.0, 1.5}) {
      const IntegrationOptions options{.flags = flags, .maxRange = maxRange};
      INFO("flags " << flags.bits() << ", max range " << maxRange);
      const OccupancyMap sequential = integrated(rays, UpdateOrder::Sequential, options, model, layers);
      const OccupancyMap onePerBatch = integrated(rays, UpdateOrder::TwoPhase, options, model, layers, 1);
      CHECK(sequential.counts().occupied + sequential.counts().free > 1000);
      CHECK(sameBits(sequential, onePerBatch));
      // Sequential results do not depend on how the rays are cut into batches.
      CHECK(sameBits(sequential, integrated(rays, UpdateOrder::Sequential, options, model, layers, 97)));
    }
  // And the orders do differ on whole batches (else the cross-check above proves little).
  const OccupancyMap oneBatch = integrated(rays, UpdateOrder::TwoPhase, {}, model, layers);
  CHECK(!sameBits(integrated(rays, UpdateOrder::Sequential, {}, model, layers), oneBatch));
}
