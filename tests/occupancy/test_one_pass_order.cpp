// The one-pass order (UpdateOrder::OnePass, OHM's GPU order): each ray's misses and then its
// hit in one pass, the rays of a batch concurrently. With one ray per batch nothing is
// concurrent, so it must be the sequential CPU reference bit for bit, every layer included.
// On a lidar run it must apply every update (the same count as the reference), the layers
// whose updates commute exactly, and occupancy within the stated tolerance: only voxels that
// one ray of a batch hits and another misses may differ.
#include <catch2/catch.hpp>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/map/map_overlap.hpp"
#include "voxen/check/one_pass_tolerance.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

}  // namespace

TEST_CASE("The one-pass order with one ray per batch is the sequential order bit for bit", "[occupancy][gpu][order]") {
  std::vector<Ray> rays = smallLidarRun(1);
  rays.resize(300);
  const Run reference = runCpu(rays, {.order = UpdateOrder::Sequential});
  const Run gpu = runGpu(rays, {.order = UpdateOrder::OnePass}, {}, kAllLayers, {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1});
  CHECK(gpu.stats.batches == rays.size());
  requireIdentical(gpu, reference);
}

TEST_CASE("On a lidar run the one-pass order applies every update, and its occupancy is within tolerance",
          "[occupancy][gpu][order][lidar]") {
  const std::vector<Ray> rays = smallLidarRun(12);
  const Run reference = runCpu(rays, {.order = UpdateOrder::Sequential}, {}, kAllLayers, rays.size());
  const Run onePass = runGpu(rays, {.order = UpdateOrder::OnePass}, {}, kAllLayers,
                             {.cacheBytes = 128ull << 20, .maxRaysPerBatch = 131072});
  REQUIRE(onePass.stats.droppedUpdates == 0);
  CHECK(onePass.stats.voxelUpdates == reference.stats.voxelUpdates);
  const Comparison c = compareMaps(onePass.map, reference.map);
  INFO("voxels " << c.voxels << ", same bits " << c.sameBits);
  CHECK(c.voxels > 100000);
  CHECK(c.layerMismatches == 0);  // voxel mean, hit/miss counts, touch time: sums and maxima
  CHECK(c.traversalMismatches == 0);
  // The tolerance stated for lavapipe, where the tests run (one_pass_tolerance.hpp): a voxel
  // differs where a hit landed at another place among its misses.
  CHECK(double(c.sameBits) >= kOnePassToleranceLavapipe.minSameBitsShare * double(c.voxels));
  const double jaccard = occupiedJaccard(onePass.map, reference.map).jaccard();
  INFO("Jaccard " << jaccard);
  CHECK(jaccard >= kOnePassToleranceLavapipe.minOccupiedJaccard);
}
