// Incremental clearance: mapping, clearance, more mapping, clearance again touches only the
// regions whose occupancy (or a neighbour's within range) changed, and the result equals a
// full recomputation; after random edits too; other settings recompute everything.
#include <catch2/catch.hpp>

#include <cstring>
#include <utility>

#include <glm/vec3.hpp>

#include "support/clearance_reference.hpp"
#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/clearance/gpu_clearance.hpp"

namespace {

using namespace voxen;
using namespace vt::clearance;

bool sameClearance(const OccupancyMap& a, const OccupancyMap& b) {
  if (a.regions().size() != b.regions().size()) return false;
  for (const auto& [key, region] : a.regions()) {
    const Region* other = b.findRegion(key);
    if (!other) return false;
    const std::span<const float> x = region.values<float>(clearanceLayer()), y = other->values<float>(clearanceLayer());
    if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size_bytes()) != 0) return false;
  }
  return true;
}

TEST_CASE("Clearance: mapping, clearance, more mapping, clearance again recomputes only what changed", "[clearance][gpu]") {
  OccupancyModel model;
  model.resolution = 0.25;
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(2);
  OccupancyMap map(model);
  CpuIntegrator integrator(map);
  integrator.integrate(rays);
  for (ClearanceTechnique technique : {ClearanceTechnique::Exact, ClearanceTechnique::Roi}) {
    ClearanceOptions options;
    options.range = 1.0;
    options.technique = technique;
    OccupancyMap incremental = map;
    GpuClearance clearance(vt::gpu().scheduler, incremental, options, {.cacheBytes = 64ull << 20});
    CHECK(clearance.update().regions == incremental.regions().size());
    CHECK(clearance.update().regions == 0);  // nothing changed since
    CHECK(clearanceDirtyRegions(incremental, options).empty());
    // More mapping: short rays (0.5 m) inside one region touch only it.
    const Region& some = incremental.regions().begin()->second;
    const glm::dvec3 corner = glm::dvec3(some.key.x, some.key.y, some.key.z) * (32 * model.resolution);
    std::vector<Ray> local;
    for (int i = 0; i < 50; ++i) {
      Ray r;
      r.origin = corner + glm::dvec3(2.0, 2.0 + 0.05 * i, 4.0);
      r.sample = r.origin + glm::dvec3(0.5, 0.0, 0.1);
      local.push_back(r);
    }
    CpuIntegrator more(incremental);
    more.integrate(local);
    const std::vector<RegionKey> dirty = clearanceDirtyRegions(incremental, options);
    INFO(clearanceTechniqueName(technique) << ": " << dirty.size() << " of " << incremental.regions().size() << " regions out of date");
    CHECK(!dirty.empty());
    CHECK(dirty.size() < incremental.regions().size());
    CHECK(clearance.update().regions == dirty.size());
    // The same as computing everything from scratch.
    OccupancyMap full = incremental;
    GpuClearance(vt::gpu().scheduler, full, options, {.cacheBytes = 64ull << 20}).compute();
    CHECK(sameClearance(incremental, full));
  }
}

TEST_CASE("Clearance: incremental equals full after random edits, on the CPU and the GPU", "[clearance][gpu]") {
  OccupancyMap base = freeMap(0.25, {-2, -1, -1}, {2, 1, 1});
  uint64_t state = 3;
  auto next = [&] { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  auto randomVoxel = [&] { return VoxelCoord{int(next() % 160) - 64, int(next() % 96) - 32, int(next() % 96) - 32}; };
  for (int i = 0; i < 300; ++i) setOccupied(base, randomVoxel());
  ClearanceOptions options;
  options.range = 1.5;
  options.technique = ClearanceTechnique::Exact;
  OccupancyMap cpu = base, gpu = base;
  updateClearanceCpu(cpu, options);
  GpuClearance clearance(vt::gpu().scheduler, gpu, options, {.cacheBytes = 64ull << 20});
  clearance.update();
  for (int round = 0; round < 3; ++round) {
    // A few voxels change in one or two regions: occupied, freed, or forgotten.
    for (int i = 0; i < 5; ++i) {
      const VoxelCoord v{int(next() % 32) + 32 * (round - 1), int(next() % 32), int(next() % 32)};
      const float value = i % 3 == 0 ? base.model().clampMax : i % 3 == 1 ? base.model().clampMin : kUnobserved;
      for (OccupancyMap* m : {&cpu, &gpu}) {
        m->findRegion(m->regionOf(v))->occupancy()[m->localIndex(v)] = value;
        m->markOccupancyChanged(m->regionOf(v));
      }
    }
    const size_t dirty = clearanceDirtyRegions(cpu, options).size();
    CHECK(dirty < cpu.regions().size());
    CHECK(updateClearanceCpu(cpu, options).regions == dirty);
    CHECK(clearance.update().regions == dirty);
    OccupancyMap full = cpu;
    computeClearanceCpu(full, options);
    CHECK(sameClearance(cpu, full));
    // The GPU's exact transform equals the CPU's to float rounding.
    for (const auto& [key, region] : cpu.regions()) {
      const std::span<const float> x = region.values<float>(clearanceLayer());
      const std::span<const float> y = std::as_const(*gpu.findRegion(key)).values<float>(clearanceLayer());
      float worst = 0.0f;
      for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
      CHECK(worst < 1e-5f);
    }
  }
  // Other settings make every region out of date.
  ClearanceOptions wider = options;
  wider.range = 2.0;
  CHECK(clearanceDirtyRegions(cpu, wider).size() == cpu.regions().size());
}

}  // namespace
