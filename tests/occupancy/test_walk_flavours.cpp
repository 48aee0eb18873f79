// The GPU walk in both shader flavours (shaders/common/exact_math.glsl) against the CPU
// reference on adversarial rays (tests/support/walk_oracle.hpp) and awkward ones: the
// float64 flavour (the shared device, which has shaderFloat64) and the plain one (a second
// device that pretends to lack it, as VOXEN_NO_FLOAT64=1 does) must build the same map bit
// for bit, equal to the CPU reference's, and discover exactly the host walk's regions. The
// walk divides only once per ray (1/d, shaders/occupancy/crossing_time.glsl); this holds
// the rest of it, a subtraction and a multiplication per crossing, to the CPU's rounding.
// The plain flavour's one division is exact on lavapipe; on a device whose float division
// is not correctly rounded only the float64 flavour is.
#include <catch2/catch.hpp>

#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/plain_flavour_gpu.hpp"
#include "support/occupancy_runs.hpp"
#include "support/same_map.hpp"
#include "support/walk_oracle.hpp"
#include "voxen/occupancy/discovery_comparison.hpp"
#include "voxen/testdata/awkward_rays.hpp"

namespace {

using namespace voxen;

// A device without shaderFloat64, with its own shader library and scheduler.
using PlainGpu = vt::PlainFlavourGpu;

OccupancyMap integrateOnGpu(Scheduler& scheduler, const std::vector<Ray>& rays, const OccupancyModel& model) {
  OccupancyMap map(model, vt::occupancy::kAllLayers);
  // Short segments, so that many walks start and end mid-ray (walkBegin's crossingsBefore).
  GpuIntegrator gpu(scheduler, map, {}, {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 14, .maxCrossingsPerSegment = 8});
  gpu.integrate(rays);
  gpu.finish();
  REQUIRE(gpu.stats().droppedUpdates == 0);
  REQUIRE(gpu.stats().rejectedRays == 0);
  return map;
}

std::vector<Ray> walkTestRays(const OccupancyModel& model) {
  std::vector<Ray> rays = vt::walk_oracle::asRays(vt::walk_oracle::adversarialRays(23, 300));
  for (const Ray& ray : awkwardRays(41, 3000, glm::dvec3(0.0), model.resolution, model.regionSize)) rays.push_back(ray);
  for (const Ray& ray : awkwardRays(42, 3000, glm::dvec3(10000.0, -10000.0, 35.0), model.resolution, model.regionSize))
    rays.push_back(ray);
  return rays;
}

}  // namespace

TEST_CASE("The float64 and plain shader flavours walk adversarial rays into the CPU reference's map",
          "[occupancy][gpu][walk][flavours]") {
  REQUIRE(vt::gpu().library.float64());  // lavapipe has shaderFloat64: the shared device runs the float64 flavour
  PlainGpu plain;
  REQUIRE_FALSE(plain.library.float64());
  OccupancyModel model;
  model.resolution = 1.0;  // the grid rays' end points stay exact (walk_oracle.hpp)
  model.regionSize = 8;    // many region faces, on every corner the walk meets
  const std::vector<Ray> rays = walkTestRays(model);

  const OccupancyMap float64 = integrateOnGpu(vt::gpu().scheduler, rays, model);
  const OccupancyMap plainMap = integrateOnGpu(plain.scheduler, rays, model);
  vt::requireSameMap(float64, plainMap);

  const vt::occupancy::Run cpu = vt::occupancy::runCpu(rays, {}, model);
  const MapComparison c = compareMaps(float64, cpu.map);
  INFO("voxels " << c.voxels << ", same bits " << c.sameBits << ", layer mismatches " << c.layerMismatches
                 << ", traversal mismatches " << c.traversalMismatches);
  CHECK(c.voxels > 10000);
  CHECK(c.identical());

  for (Scheduler* scheduler : {&vt::gpu().scheduler, &plain.scheduler}) {
    const DiscoveryComparison d = compareDiscoveryWithHostWalk(*scheduler, rays, model, {.maxCrossings = 8});
    INFO(d.mismatches << " discovery mismatches, the first at " << d.firstMismatch);
    CHECK(d.identical());
  }
  plain.scheduler.finish();
}
