// A pass of a program's own over the region cache (voxen/map/map_pass.hpp with
// map/map_pass.glsl): from a shader root outside the engine's tree it reads occupancy of each
// voxel and of its six neighbours, across region faces, negative keys and into regions that
// are not in the map, and writes a layer type registered by the test; the layer synced back
// into the host map equals the CPU reference voxel for voxel.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/map_pass.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/testdata/split_mix.hpp"

namespace {

// value = 16 x class (0 unobserved, 1 free, 2 occupied) + occupied face neighbours.
const char* kNeighbourShader = R"(#version 460
#extension GL_GOOGLE_include_directive : require
#include "map/map_pass.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { MapBinding map; float threshold; uint layer; } pc;

uint classOf(float v) { return !mapObserved(v) ? 0u : (v >= pc.threshold ? 2u : 1u); }

void main() {
  uint voxels = mapVoxelsPerRegion(pc.map);
  uint thread = gl_GlobalInvocationID.x;
  if (thread >= pc.map.regionCount * voxels) return;
  ivec4 region = mapPassRegion(pc.map, thread / voxels);
  uint local = thread % voxels;
  ivec3 voxel = mapVoxelOf(pc.map, region.xyz, local);
  uint occupied = 0u;
  for (int i = 0; i < 6; ++i) {
    ivec3 d = ivec3(0);
    d[i / 2] = (i % 2 == 0) ? 1 : -1;
    uint nLocal;
    int slot = mapFindVoxel(pc.map, voxel + d, nLocal);
    if (slot >= 0 && classOf(mapOccupancy(pc.map, slot, nLocal)) == 2u) ++occupied;
  }
  uint self = classOf(mapOccupancy(pc.map, region.w, local));
  UintArray(mapLayerPool(pc.map, pc.layer)).v[mapElement(pc.map, region.w, local)] = self * 16u + occupied;
}
)";

struct NeighbourPush {
  voxen::gpu::MapBinding map;
  float threshold;
  uint32_t layer;
};

voxen::LayerId neighbourLayer() {
  voxen::LayerType type;
  type.name = "test_neighbour_code";
  type.bytesPerVoxel = 4;
  type.elementBytes = 4;
  type.description = "16 x class + occupied face neighbours (test_map_pass.cpp)";
  voxen::LayerField field;
  field.name = "code";
  field.type = voxen::FieldType::U32;
  field.min = 0;
  field.max = 38;
  type.fields = {field};
  return voxen::registerLayer(type);
}

uint32_t classCode(const voxen::OccupancyMap& map, const voxen::VoxelCoord& v) {
  switch (map.classify(v)) {
    case voxen::VoxelClass::Unobserved: return 0;
    case voxen::VoxelClass::Free: return 1;
    case voxen::VoxelClass::Occupied: return 2;
  }
  return 0;
}

}  // namespace

TEST_CASE("A program's pass reads occupancy and writes its own layer through the region cache", "[map][mappass]") {
  auto& gpu = vt::gpu();
  vt::TempDir dir("map-pass");
  dir.write("test_pass/neighbours.comp", kNeighbourShader);
  voxen::ShaderLibrary library(gpu.device);
  library.addShaderRoot(dir.path());
  voxen::Scheduler scheduler(gpu.device, library, {.stagingBytes = 8 << 20, .transientBytes = 1 << 16, .batchesInFlight = 2});

  const voxen::LayerId layer = neighbourLayer();
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
      voxen::mapPass(binding, "test neighbours", *kernel, NeighbourPush{binding.gpu, model.thresholdValue(), layer.index()}),
      binding.voxels);
  cache.syncToMap();

  uint64_t checked = 0, occupiedSeen = 0;
  for (const voxen::RegionKey& key : keys) {
    const std::span<const uint32_t> got = std::as_const(map).findRegion(key)->values<uint32_t>(layer);
    REQUIRE(got.size() == 512);
    for (uint32_t i = 0; i < 512; ++i) {
      const voxen::VoxelCoord v = map.voxelOf(key, i);
      uint32_t occupied = 0;
      for (const auto& d : std::array<voxen::VoxelCoord, 6>{{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}})
        occupied += classCode(map, {v.x + d.x, v.y + d.y, v.z + d.z}) == 2;
      const uint32_t expected = classCode(map, v) * 16 + occupied;
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
  CHECK_THROWS_WITH(voxen::bindMapPass(gpu.scheduler, cache, std::span(three).first(1), {neighbourLayer()}),
                    Catch::Contains("'test_neighbour_code'") && Catch::Contains("does not have"));
  vt::flushGpu();
}
