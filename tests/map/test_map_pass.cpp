// A pass of a program's own over the region cache (voxen/map/map_pass.hpp with
// map/map_pass.glsl): from a shader root outside the engine's tree it reads occupancy of each
// voxel and of its six neighbours, across region faces, negative keys and into regions that
// are not in the map, and writes a layer type registered by the test; the layer synced back
// into the host map equals the CPU reference voxel for voxel.
#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/neighbour_code_pass.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/map_pass.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/testdata/split_mix.hpp"

TEST_CASE("A program's pass reads occupancy and writes its own layer through the region cache", "[map][mappass]") {
  auto& gpu = vt::gpu();
  vt::TempDir dir("map-pass");
  dir.write("test_pass/neighbours.comp", vt::kNeighbourCodeShader);
  voxen::ShaderLibrary library(gpu.device);
  library.addShaderRoot(dir.path());
  voxen::Scheduler scheduler(gpu.device, library, {.stagingBytes = 8 << 20, .transientBytes = 1 << 16, .batchesInFlight = 2});

  const voxen::LayerId layer = vt::neighbourCodeLayer();
  voxen::OccupancyModel model;
  model.regionSize = 8;
  voxen::OccupancyMap map(model);
  // Regions side by side across zero (negative keys), one apart from the others, and
  // neighbours that are not in the map at all.
  const std::vector<voxen::RegionKey> keys = {{0, 0, 0}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}, {-1, -1, -1}, {3, 0, 0}};
  voxen::SplitMix random(22);
  for (const voxen::RegionKey& key : keys) {
    std::span<float> occupancy = map.region(key).occupancy();
    for (float& v : occupancy) {
      const uint64_t r = random.next() % 3;
      v = r == 0 ? voxen::kUnobserved : (r == 1 ? model.clampMin : model.clampMax);
    }
  }
  map.addLayer(layer);
  voxen::RegionCache cache(scheduler, map, 16 * voxen::RegionCache::bytesPerRegion(map));

  const voxen::MapPassBinding binding = voxen::bindMapPass(scheduler, cache, keys, {layer});
  CHECK(binding.voxels == keys.size() * 512);
  const auto kernel = library.kernel("test_pass/neighbours.comp");
  scheduler.dispatchThreads(
      voxen::mapPass(binding, "test neighbours", *kernel, vt::NeighbourCodePush{binding.gpu, model.thresholdValue(), layer.index()}),
      binding.voxels);
  cache.syncToMap();

  uint64_t checked = 0, occupiedSeen = 0;
  for (const voxen::RegionKey& key : keys) {
    const std::span<const uint32_t> got = std::as_const(map).findRegion(key)->values<uint32_t>(layer);
    REQUIRE(got.size() == 512);
    for (uint32_t i = 0; i < 512; ++i) {
      const voxen::VoxelCoord v = map.voxelOf(key, i);
      uint32_t occupied = 0;
      const uint32_t expected = vt::expectedNeighbourCode(map, v, occupied);
      INFO("region (" << key.x << "," << key.y << "," << key.z << ") voxel " << i);
      REQUIRE(got[i] == expected);
      occupiedSeen += occupied;
      ++checked;
    }
  }
  CHECK(checked == keys.size() * 512);
  CHECK(occupiedSeen > 0);
}

TEST_CASE("bindMapPass refuses more regions than the cache holds and layers the map lacks", "[map][mappass]") {
  auto& gpu = vt::gpu();
  voxen::OccupancyModel model;
  model.regionSize = 8;
  voxen::OccupancyMap map(model);
  voxen::RegionCache cache(gpu.scheduler, map, 2 * voxen::RegionCache::bytesPerRegion(map));
  const std::vector<voxen::RegionKey> three = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  CHECK_THROWS_WITH(voxen::bindMapPass(gpu.scheduler, cache, three, {}), Catch::Contains("3 regions") && Catch::Contains("2"));
  CHECK_THROWS_WITH(voxen::bindMapPass(gpu.scheduler, cache, std::span(three).first(1), {vt::neighbourCodeLayer()}),
                    Catch::Contains("'test_neighbour_code'") && Catch::Contains("does not have"));
  vt::flushGpu();
}
