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
