// refineClearanceFromTsdf (voxen/tsdf/tsdf_occupancy.hpp): on a tilted plane at a sub-voxel
// offset, its TSDF written as depth frames along one slanted ray direction leave it (projective
// distances delta / cos(theta), in fixed point, inside a 4-voxel band), the clearance of every
// voxel in front whose 7 voxels lie in the band equals its distance to the plane within 1e-4
// voxel, where the EDT from the voxels behind the plane alone is up to half a diagonal more;
// no voxel's clearance rises above its EDT; the GPU's clearance refined equals the CPU
// reference's bit for bit; a map without the layers or the recorded truncation is an Error.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include <glm/glm.hpp>

#include "support/gpu_fixture.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/context.hpp"
#include "voxen/gpu/map/tsdf_layer.h"
#include "voxen/mapper.hpp"
#include "voxen/tsdf/tsdf_occupancy.hpp"

namespace {

using namespace voxen;

constexpr double kResolution = 0.1;
const glm::dvec3 kNormal = glm::normalize(glm::dvec3(0.25, -0.15, 1.0));
constexpr double kOffset = 1.037;  // the plane n . p = 1.037 m: not on a voxel boundary
const glm::dvec3 kRay = glm::normalize(glm::dvec3(0.4, 0.3, -1.0));  // the frames' rays, toward the plane
constexpr int kBand = 4;  // voxels

glm::dvec3 centre(int x, int y, int z) { return (glm::dvec3(x, y, z) + 0.5) * kResolution; }
double planeDistance(int x, int y, int z) { return glm::dot(kNormal, centre(x, y, z)) - kOffset; }

// Voxels x, y in [0, 48) (two regions of 32 and part of the next), every z whose projective
// distance lies within the band: what a depth camera's frames along kRay leave, weight 1.
OccupancyMap planeTsdf() {
  OccupancyModel model;
  model.resolution = kResolution;
  OccupancyMap map(model, LayerSet{kTsdfLayer});
  map.setDerivedSettings(kTsdfLayer, "truncation_voxels=4;max_weight=64;weighting=constant");
  const double cosTheta = std::abs(glm::dot(kNormal, kRay));
  for (int x = 0; x < 48; ++x)
    for (int y = 0; y < 48; ++y)
      for (int z = 0; z < 40; ++z) {
        const double voxels = planeDistance(x, y, z) / cosTheta / kResolution;
        if (std::abs(voxels) > kBand) continue;
        const VoxelCoord v{x, y, z};
        gpu::TsdfVoxel& t = map.region(map.regionOf(v)).values<gpu::TsdfVoxel>(kTsdfLayer)[map.localIndex(v)];
        t.distance = int32_t(std::llround(voxels * double(gpu::kTsdfFine)));
        t.weight = gpu::kTsdfWeightUnit;
      }
  occupancyFromTsdf(map);
  return map;
}

float clearanceAt(const OccupancyMap& map, int x, int y, int z) {
  const VoxelCoord v{x, y, z};
  const Region* r = map.findRegion(map.regionOf(v));
  return r ? r->values<float>(kClearanceLayer)[map.localIndex(v)] : -2.0f;
}

ClearanceOptions clearanceOptions() {
  ClearanceOptions o;
  o.range = 1.0;
  o.unknownFree = true;  // the obstacles are the voxels behind the plane alone
  return o;
}

}  // namespace

TEST_CASE("Clearance from a TSDF: sub-voxel on a plane, never above the EDT", "[tsdf][clearance]") {
  OccupancyMap edt = planeTsdf();
  computeClearanceCpu(edt, clearanceOptions());
  OccupancyMap map = edt;
  const TsdfClearanceStats stats = refineClearanceFromTsdf(map, 1.0);
  CHECK(stats.refined > 1000);
  const double cosTheta = std::abs(glm::dot(kNormal, kRay));
  uint64_t checked = 0, improved = 0;
  double worst = 0.0, worstEdt = 0.0;
  for (int x = 1; x < 47; ++x)
    for (int y = 1; y < 47; ++y)
      for (int z = 1; z < 39; ++z) {
        const float before = clearanceAt(edt, x, y, z), after = clearanceAt(map, x, y, z);
        CHECK((after <= before || before < 0.0f));  // never above the EDT
        const double delta = planeDistance(x, y, z);
        if (delta <= 0.0) continue;
        // The 7 voxels all inside the band (strictly): the refined ones.
        bool inBand = true;
        for (const glm::ivec3 o : {glm::ivec3(0), glm::ivec3(1, 0, 0), glm::ivec3(-1, 0, 0), glm::ivec3(0, 1, 0),
                                   glm::ivec3(0, -1, 0), glm::ivec3(0, 0, 1), glm::ivec3(0, 0, -1)})
          inBand = inBand && std::abs(planeDistance(x + o.x, y + o.y, z + o.z) / cosTheta / kResolution) < kBand - 1e-3;
        if (!inBand) continue;
        ++checked;
        worst = std::max(worst, std::abs(double(after) - delta));
        worstEdt = std::max(worstEdt, double(before) - delta);
        improved += after < before;
      }
  INFO("checked " << checked << " voxels, worst error " << worst / kResolution << " voxel (the EDT's: " << worstEdt / kResolution
                  << ")");
  CHECK(checked > 1000);
  CHECK(worst < 1e-4 * kResolution);
  CHECK(worstEdt > 0.3 * kResolution);  // what the refinement removed
  CHECK(improved > checked / 2);
}

TEST_CASE("Clearance from a TSDF: the GPU's clearance refined equals the CPU reference's", "[tsdf][clearance][gpu]") {
  OccupancyMap cpu = planeTsdf();
  computeClearanceCpu(cpu, clearanceOptions());
  refineClearanceFromTsdf(cpu, 1.0);
  Context ctx(vt::gpu().scheduler);
  Mapper mapper = Mapper::fromMap(ctx, planeTsdf(), {.backend = MapperBackend::Gpu});
  mapper.computeClearance(clearanceOptions());
  OccupancyMap gpu = mapper.map();
  refineClearanceFromTsdf(gpu, 1.0);
  REQUIRE(gpu.regions().size() == cpu.regions().size());
  uint64_t differ = 0;
  for (const auto& [key, region] : cpu.regions()) {
    const Region* other = gpu.findRegion(key);
    REQUIRE(other);
    const auto a = region.values<float>(kClearanceLayer), b = other->values<float>(kClearanceLayer);
    for (size_t i = 0; i < a.size(); ++i) differ += std::memcmp(&a[i], &b[i], 4) != 0;
  }
  CHECK(differ == 0);
}

TEST_CASE("Clearance from a TSDF: refused without its layers or the recorded truncation", "[tsdf][clearance]") {
  OccupancyMap plain;
  CHECK_THROWS_WITH(refineClearanceFromTsdf(plain, 1.0), Catch::Contains("no 'tsdf' layer"));
  OccupancyMap noClearance = planeTsdf();
  CHECK_THROWS_WITH(refineClearanceFromTsdf(noClearance, 1.0), Catch::Contains("no clearance layer"));
  OccupancyMap unrecorded = planeTsdf();
  computeClearanceCpu(unrecorded, clearanceOptions());
  unrecorded.setDerivedSettings(kTsdfLayer, "");
  CHECK_THROWS_WITH(refineClearanceFromTsdf(unrecorded, 1.0), Catch::Contains("does not record its truncation"));
}
