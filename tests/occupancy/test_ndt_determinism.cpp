// NDT-OM and NDT-TM maps are the same bit for bit from run to run: each voxel's free-space
// updates are applied in ray order by one invocation (ndt_miss_apply.comp) and its samples
// folded in input order (ndt_fold.comp), so no compare-and-swap or float atomic decides an
// order. The input is the grazing wall: thousands of beams of one batch pass through the
// same wall voxels, whose Gaussians give each beam a different free-space update.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "support/ndt_runs.hpp"
#include "voxen/check/ndt_comparison.hpp"
#include "voxen/testdata/grazing_wall.hpp"

namespace {

using namespace voxen;
using namespace vt::ndt;
namespace occupancy = vt::occupancy;

// Voxels (per layer) whose bytes differ between two maps of the same layout; a region one
// map lacks counts every voxel of it.
struct BitDifference {
  uint64_t regions = 0;        // regions compared
  uint64_t layerVoxels = 0;    // (layer, voxel) pairs whose bytes differ
  uint64_t occupancy = 0;      // voxels whose occupancy bits differ
  uint32_t largestUlps = 0;    // the largest occupancy difference in float steps (same sign)
};

BitDifference bitDifference(const OccupancyMap& a, const OccupancyMap& b) {
  REQUIRE(a.layout() == b.layout());
  BitDifference d;
  const uint64_t voxels = uint64_t(a.regionSize()) * a.regionSize() * a.regionSize();
  for (const auto& [key, region] : a.regions()) {
    ++d.regions;
    const Region* other = b.findRegion(key);
    for (const LayerId id : a.layout().ids()) {
      const auto& x = region.layers[id];
      if (!other) {
        d.layerVoxels += voxels;
        continue;
      }
      const auto& y = other->layers[id];
      REQUIRE(x.size() == y.size());
      const size_t stride = x.size() / voxels;
      for (uint64_t v = 0; v < voxels; ++v)
        d.layerVoxels += std::memcmp(x.data() + v * stride, y.data() + v * stride, stride) != 0;
    }
    if (!other) continue;
    for (uint64_t v = 0; v < voxels; ++v) {
      const uint32_t p = std::bit_cast<uint32_t>(region.occupancy()[v]);
      const uint32_t q = std::bit_cast<uint32_t>(other->occupancy()[v]);
      if (p == q) continue;
      ++d.occupancy;
      if ((p ^ q) >> 31 == 0 && std::isfinite(region.occupancy()[v]) && std::isfinite(other->occupancy()[v]))
        d.largestUlps = std::max(d.largestUlps, p > q ? p - q : q - p);
    }
  }
  for (const auto& [key, region] : b.regions())
    if (!a.findRegion(key)) d.layerVoxels += voxels * a.layout().ids().size();
  return d;
}

void requireSameBits(const occupancy::Run& a, const occupancy::Run& b) {
  const BitDifference d = bitDifference(a.map, b.map);
  INFO(d.regions << " regions; (layer, voxel) pairs that differ: " << d.layerVoxels << ", occupancy values that differ: "
                 << d.occupancy << " (at most " << d.largestUlps << " float steps apart)");
  CHECK(d.regions > 0);
  CHECK(d.layerVoxels == 0);
  CHECK(a.stats.voxelUpdates == b.stats.voxelUpdates);
}

}  // namespace

TEST_CASE("NDT-OM and NDT-TM: the same rays give the same map bits in every run, at each batch size",
          "[ndt][gpu][determinism]") {
  const std::vector<Ray> rays = grazingWallRays();  // 20 positions x 4000 beams grazing one wall
  const OccupancyModel model = OccupancyModel::octomap();
  for (NdtMode mode : {NdtMode::Om, NdtMode::Tm}) {
    for (uint32_t batch : {4000u, 16384u}) {
      INFO("NDT-" << (mode == NdtMode::Om ? "OM" : "TM") << ", batches of " << batch << " rays");
      const occupancy::Run first = runNdtGpu(rays, ndtOptions(mode), model, batch);
      REQUIRE(first.stats.droppedUpdates == 0);
      // Every listed free-space update fits the list: nothing went through the second walk.
      CHECK(first.stats.rewalkedSegments == 0);
      for (int run = 0; run < 2; ++run) requireSameBits(first, runNdtGpu(rays, ndtOptions(mode), model, batch));
    }
  }
}

// The CPU reference fed the same batches applies, per voxel, the free-space updates in ray
// order and then the hits in input order: the GPU's order. The GPU equals it in the
// integer layers (sample counts and sums, NDT-TM's hit and miss counts) and in every
// occupancy class; the float layers are equal up to the last bits because the formulas'
// exp, log and sqrt are the device's own (lavapipe's LLVM approximations, a GPU's special
// function units) and the shader compiler may fuse a multiply and an add. The tolerance:
// occupancy within 1e-4 log-odds (a few float steps per update, over a voxel's updates of
// a batch), the rest as compareNdtMaps states it.
TEST_CASE("NDT-OM and NDT-TM on the grazing wall: the GPU equals the CPU reference in the same order, up to "
          "the device's float functions",
          "[ndt][gpu][determinism]") {
  const std::vector<Ray> rays = grazingWallRays();
  const OccupancyModel model = OccupancyModel::octomap();
  const uint32_t batch = 4000;
  for (NdtMode mode : {NdtMode::Om, NdtMode::Tm}) {
    INFO("NDT-" << (mode == NdtMode::Om ? "OM" : "TM"));
    const occupancy::Run onCpu = runNdtCpu(rays, ndtOptions(mode), model, batch);
    const occupancy::Run onGpu = runNdtGpu(rays, ndtOptions(mode), model, batch);
    REQUIRE(onGpu.stats.droppedUpdates == 0);
    CHECK(onGpu.stats.voxelUpdates == onCpu.stats.voxelUpdates);
    const NdtComparison c = compareNdtMaps(onCpu.map, onGpu.map);
    INFO("observed " << c.observed << ", same class " << c.sameClass << ", with samples " << c.withSamples
                     << ", same mean " << c.sameMean << ", same TM counts " << c.sameCounts);
    CHECK(c.sameClass == c.observed);
    CHECK(c.sameMean == c.withSamples);
    if (mode == NdtMode::Tm) CHECK(c.sameCounts == c.observed);
    CHECK(c.shortfall() == "");
    float largest = 0.0f;
    uint64_t exact = 0, compared = 0;
    for (const auto& [key, region] : onCpu.map.regions()) {
      const Region* other = onGpu.map.findRegion(key);
      REQUIRE(other);
      for (size_t v = 0; v < region.occupancy().size(); ++v) {
        const float a = region.occupancy()[v], b = other->occupancy()[v];
        if (!std::isfinite(a) && !std::isfinite(b) && a == b) continue;  // unobserved in both
        ++compared;
        exact += std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
        largest = std::max(largest, std::abs(a - b));
      }
    }
    INFO(exact << " of " << compared << " observed voxels with the same occupancy bits; largest difference "
               << largest);
    CHECK(compared > 10000);
    CHECK(largest < 1e-4f);
  }
}

namespace {

// A block of 48 x 6 x 6 voxels (0.1 m) with a Gaussian in each (4 samples, rays from above),
// then 2,048 rays along x through the whole block, each crossing about 50 voxels with a
// Gaussian: at batches of 1,024 or 2,048 rays far more listed free-space updates than NDT's
// list holds (16 per ray of the batch capacity), so the list overflows in every batch of
// through rays. The rays pass the Gaussians at random offsets: every voxel gets updates of
// different sizes, and most stay above the lower clamp.
std::vector<Ray> overflowingBlockRays() {
  std::vector<Ray> rays;
  std::mt19937_64 rng(37);
  std::uniform_real_distribution<double> inVoxel(0.02, 0.08), across(0.01, 0.59);
  for (int x = 0; x < 48; ++x)
    for (int y = 0; y < 6; ++y)
      for (int z = 0; z < 6; ++z)
        for (int k = 0; k < 4; ++k) {
          Ray r;
          r.sample = {0.1 * x + inVoxel(rng), 0.1 * y + inVoxel(rng), 0.1 * z + inVoxel(rng)};
          r.origin = r.sample + glm::dvec3(0.0, 0.0, 1.0);
          rays.push_back(r);
        }
  for (int k = 0; k < 2048; ++k) {
    Ray r;
    r.origin = {-0.55, across(rng), across(rng)};
    r.sample = {5.35, across(rng), across(rng)};
    rays.push_back(r);
  }
  return rays;
}

}  // namespace

// When the free-space list overflows, the updates it could not hold are still applied in an
// order that does not depend on the GPU's scheduling (NdtStrategy: the whole chunk's updates
// summed exactly in integers and applied once per voxel), so the map stays the same bit for
// bit from run to run. Before, the unlisted updates were applied by compare-and-swap in
// whatever order the walk ran, and which updates were listed depended on that order too.
TEST_CASE("NDT-OM and NDT-TM: a batch whose free-space list overflows gives the same map bits in every run, close "
          "to the CPU reference",
          "[ndt][gpu][determinism]") {
  const std::vector<Ray> rays = overflowingBlockRays();
  const OccupancyModel model;
  for (NdtMode mode : {NdtMode::Om, NdtMode::Tm}) {
    for (uint32_t batch : {1024u, 2048u}) {
      INFO("NDT-" << (mode == NdtMode::Om ? "OM" : "TM") << ", batches of " << batch << " rays");
      // A 32 MiB cache: the overflow's passes run over every voxel of the cache's pools.
      const uint64_t cacheBytes = 32ull << 20;
      const occupancy::Run first = runNdtGpu(rays, ndtOptions(mode), model, batch, {}, cacheBytes);
      REQUIRE(first.stats.droppedUpdates == 0);
      CHECK(first.stats.rewalkedSegments > 0);  // the list overflowed
      for (int run = 0; run < 2; ++run)
        requireSameBits(first, runNdtGpu(rays, ndtOptions(mode), model, batch, {}, cacheBytes));
      // The CPU reference fed the same batches: the same classes, samples and counts, and
      // occupancy within 1e-4 (the device's float functions, and the overflowing batches'
      // exact sums against the reference's float additions in ray order).
      const occupancy::Run onCpu = runNdtCpu(rays, ndtOptions(mode), model, batch);
      CHECK(first.stats.voxelUpdates == onCpu.stats.voxelUpdates);
      const NdtComparison c = compareNdtMaps(onCpu.map, first.map);
      INFO("observed " << c.observed << ", same class " << c.sameClass << ", with samples " << c.withSamples
                       << ", same mean " << c.sameMean << ", same TM counts " << c.sameCounts);
      CHECK(c.sameClass == c.observed);
      CHECK(c.sameMean == c.withSamples);
      if (mode == NdtMode::Tm) CHECK(c.sameCounts == c.observed);
      float largest = 0.0f;
      uint64_t compared = 0, aboveClamp = 0;
      for (int x = 0; x < 48; ++x)
        for (int y = 0; y < 6; ++y)
          for (int z = 0; z < 6; ++z) {
            const float a = onCpu.map.value(VoxelCoord{x, y, z}), b = first.map.value(VoxelCoord{x, y, z});
            ++compared;
            aboveClamp += a > model.clampMin;
            largest = std::max(largest, std::abs(a - b));
          }
      INFO(compared << " block voxels, " << aboveClamp << " above the lower clamp; largest difference " << largest);
      CHECK(aboveClamp > compared / 2);  // the updates differ in size, most voxels are not saturated
      CHECK(largest < 1e-4f);
    }
  }
}
