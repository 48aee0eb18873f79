// Mapper ergonomics (issue 38, item 6): a program's own pass on the Mapper's map
// (Mapper::runPass, chunks and halos inside) against the CPU reference, the same for any
// chunking; an empty (default-constructed) Mapper that says so; and load() into a Mapper.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <utility>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/neighbour_code_pass.hpp"
#include "support/temp_dir.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/map_pass.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/mapper.hpp"
#include "voxen/testdata/split_mix.hpp"

namespace {

using namespace voxen;
using Catch::Matchers::Contains;

LayerId neighbourLayer() { return vt::neighbourCodeLayer(); }

// The test's shader root, added once to the fixture's library (every Context here shares
// it) and kept until the process ends, as the library keeps the root.
void addTestShaders(ShaderLibrary& library) {
  static vt::TempDir dir("mapper-pass");
  static const bool added = [&] {
    dir.write("test_mapper_pass/neighbours.comp", vt::kNeighbourCodeShader);
    library.addShaderRoot(dir.path());
    return true;
  }();
  (void)added;
}

struct NeighbourPass : MapPass {
  float threshold = 0;
  uint32_t halo = 1;
  std::string kernelName = "test_mapper_pass/neighbours.comp";
  uint64_t pushes = 0;
  std::string name() const override { return "test neighbours"; }
  std::string kernel() const override { return kernelName; }
  std::vector<LayerId> writtenLayers() const override { return {neighbourLayer()}; }
  uint32_t haloVoxels() const override { return halo; }
  PushConstants pushConstants(const gpu::MapBinding& map) override {
    ++pushes;
    return vt::NeighbourCodePush{map, threshold, neighbourLayer().index()};
  }
};

// Voxels whose code differs from the CPU reference; `occupiedSeen` counts occupied neighbours.
uint64_t wrongCodes(const OccupancyMap& map, uint64_t& occupiedSeen) {
  uint64_t wrong = 0;
  occupiedSeen = 0;
  for (const auto& [key, region] : map.regions()) {
    const std::span<const uint32_t> got = region.values<uint32_t>(neighbourLayer());
    for (uint32_t i = 0; i < got.size(); ++i) {
      uint32_t occupied = 0;
      wrong += got[i] != vt::expectedNeighbourCode(map, map.voxelOf(key, i), occupied);
      occupiedSeen += occupied;
    }
  }
  return wrong;
}

// Rays from near the origin to random points up to 2.5 m away: a few hundred small regions.
std::vector<Ray> randomRays(uint64_t seed, size_t count) {
  SplitMix random(seed);
  std::vector<Ray> rays(count);
  auto unit = [&] { return double(random.next() % 1000000) / 1000000.0; };
  for (Ray& ray : rays) {
    ray.origin = {0.05, 0.05, 0.05};
    ray.sample = {5.0 * unit() - 2.5, 5.0 * unit() - 2.5, 3.0 * unit() - 1.5};
  }
  return rays;
}

MapperOptions smallRegions(MapperBackend backend, uint64_t cacheBytes) {
  MapperOptions o;
  o.model.resolution = 0.1;
  o.model.regionSize = 8;
  o.run.backend = backend;
  o.run.gpu.cacheBytes = cacheBytes;
  return o;
}

uint64_t bytesPerRegionWithLayer(const OccupancyModel& model) {
  OccupancyMap probe(model);
  probe.addLayer(neighbourLayer());
  return RegionCache::bytesPerRegion(probe);
}

}  // namespace

TEST_CASE("Mapper::runPass runs a program's pass over the map in chunks with halos, as the CPU reference",
          "[api][mapper][mappass]") {
  Context ctx(vt::gpu().scheduler);
  addTestShaders(ctx.shaders());
  const uint64_t perRegion = bytesPerRegionWithLayer(smallRegions(MapperBackend::CpuReference, 0).model);
  const std::vector<Ray> rays = randomRays(38, 4000);

  // 40 slots: a region with its 26 neighbours fits, the map (hundreds of regions) does not.
  Mapper chunked(ctx, smallRegions(MapperBackend::CpuReference, 40 * perRegion));
  chunked.integrate(rays);
  NeighbourPass pass;
  pass.threshold = chunked.map().model().thresholdValue();
  const MapPassStats stats = chunked.runPass(pass);
  const OccupancyMap& map = chunked.map();
  INFO("regions " << stats.regions << ", chunks " << stats.chunks << ", neighbour loads " << stats.neighbourLoads);
  REQUIRE(map.regions().size() > 100);
  CHECK(stats.regions == map.regions().size());
  CHECK(stats.chunks > 3);
  CHECK(stats.neighbourLoads > 0);
  CHECK(pass.pushes == stats.chunks);
  CHECK(stats.voxels == stats.regions * map.voxelsPerRegion());
  uint64_t occupiedSeen = 0;
  CHECK(wrongCodes(map, occupiedSeen) == 0);
  CHECK(occupiedSeen > 0);

  SECTION("one chunk with a cache for the whole map: the same layer") {
    Mapper whole(ctx, smallRegions(MapperBackend::CpuReference, (map.regions().size() + 8) * perRegion));
    whole.integrate(rays);
    NeighbourPass once;
    once.threshold = pass.threshold;
    CHECK(whole.runPass(once).chunks == 1);
    for (const auto& [key, region] : map.regions())
      REQUIRE(whole.map().findRegion(key)->layers[neighbourLayer()] == region.layers[neighbourLayer()]);
  }
  SECTION("a cache too small for a region and its halo is refused, naming the setting") {
    Mapper tiny(ctx, smallRegions(MapperBackend::CpuReference, 8 * perRegion));
    tiny.integrate(rays);
    CHECK_THROWS_WITH(tiny.runPass(pass), Contains("GpuIntegratorOptions::cacheBytes") && Contains("haloVoxels"));
  }
  SECTION("an unknown kernel is refused by name") {
    NeighbourPass missing;
    missing.kernelName = "test_mapper_pass/no_such_pass.comp";
    CHECK_THROWS_WITH(chunked.runPass(missing), Contains("no_such_pass"));
  }
}

TEST_CASE("A GPU Mapper keeps mapping after its own pass, and its map stays the CPU reference's",
          "[api][mapper][mappass]") {
  Context ctx(vt::gpu().scheduler);
  addTestShaders(ctx.shaders());
  Mapper gpu(ctx, smallRegions(MapperBackend::Gpu, 32ull << 20));
  Mapper cpu(ctx, smallRegions(MapperBackend::CpuReference, 32ull << 20));
  NeighbourPass pass;
  pass.threshold = gpu.map().model().thresholdValue();
  gpu.integrate(randomRays(1, 3000));
  cpu.integrate(randomRays(1, 3000));
  gpu.runPass(pass);
  cpu.runPass(pass);
  gpu.integrate(randomRays(2, 3000));  // a new integrator on a map that has the pass's layer
  cpu.integrate(randomRays(2, 3000));
  const OccupancyMap& g = gpu.map();
  const OccupancyMap& c = cpu.map();
  REQUIRE(g.regions().size() == c.regions().size());
  for (const auto& [key, region] : c.regions()) {
    const Region* other = g.findRegion(key);
    REQUIRE(other);
    REQUIRE(other->layers[kOccupancyLayer] == region.layers[kOccupancyLayer]);
  }
  // Regions the second scan made have zero codes; those the pass ran on kept theirs.
  uint64_t occupiedSeen = 0;
  CHECK(wrongCodes(g, occupiedSeen) > 0);
  gpu.runPass(pass);
  CHECK(wrongCodes(gpu.map(), occupiedSeen) == 0);
  CHECK(gpu.latestSnapshot().map().layout().has(neighbourLayer()) == false);  // published before the pass
  CHECK(gpu.snapshot().map().layout().has(neighbourLayer()));
}

TEST_CASE("An empty Mapper says so, and gets a map by assignment", "[api][mapper]") {
  Mapper mapper;
  CHECK(mapper.empty());
  CHECK_THROWS_WITH(mapper.stats(), Contains("empty") && Contains("Mapper::load(context, path)"));
  CHECK_THROWS_AS(mapper.latestSnapshot(), Error);
  Context ctx(vt::gpu().scheduler);
  mapper = Mapper(ctx, smallRegions(MapperBackend::Gpu, 32ull << 20));
  CHECK_FALSE(mapper.empty());
  mapper.integrate(randomRays(3, 500));
  CHECK(mapper.stats().integration.rays == 500);
  Mapper moved = std::move(mapper);
  CHECK(mapper.empty());  // NOLINT: moved from on purpose
  CHECK_FALSE(moved.empty());
}

TEST_CASE("Mapper::load replaces the map in the Mapper, and keeps it when the file fails", "[api][mapper]") {
  Context ctx(vt::gpu().scheduler);
  vt::TempDir dir("mapper-load");
  const std::filesystem::path file = dir.path() / "source.vxm";
  {
    Mapper source(ctx, smallRegions(MapperBackend::CpuReference, 32ull << 20));
    source.integrate(randomRays(4, 2000));
    source.save(file);
  }
  const OccupancyMap expected = loadMap(file);

  Mapper mapper(ctx, smallRegions(MapperBackend::Gpu, 32ull << 20));
  mapper.integrate(randomRays(5, 700));
  const uint64_t before = mapper.snapshot().version();
  const OccupancyMap::Counts counts = mapper.stats().counts;

  const std::filesystem::path broken = dir.path() / "broken.vxm";
  dir.write("broken.vxm", "not a map");
  CHECK_THROWS_WITH(mapper.load(broken), Contains("broken.vxm"));
  CHECK(mapper.stats().counts.occupied == counts.occupied);
  CHECK(mapper.stats().integration.rays == 700);

  mapper.load(file);
  CHECK(mapper.stats().integration.rays == 0);
  REQUIRE(mapper.map().regions().size() == expected.regions().size());
  for (const auto& [key, region] : expected.regions())
    REQUIRE(mapper.map().findRegion(key)->layers[kOccupancyLayer] == region.layers[kOccupancyLayer]);
  const MapSnapshot snapshot = mapper.latestSnapshot();
  CHECK(snapshot.version() > before);
  CHECK(snapshot.map().regions().size() == expected.regions().size());
  // It maps on from the file's map, on the GPU, as a Mapper loaded by Mapper::load does.
  Mapper reference = Mapper::load(ctx, file, smallRegions(MapperBackend::CpuReference, 32ull << 20).run);
  mapper.integrate(randomRays(6, 1000));
  reference.integrate(randomRays(6, 1000));
  for (const auto& [key, region] : reference.map().regions())
    REQUIRE(mapper.map().findRegion(key)->layers[kOccupancyLayer] == region.layers[kOccupancyLayer]);
}

TEST_CASE("Mapper::load drops what described the old map: the clearance's baseline, and checks decay's layer",
          "[api][mapper]") {
  Context ctx(vt::gpu().scheduler);
  vt::TempDir dir("mapper-load-clearance");
  const std::filesystem::path file = dir.path() / "other.vxm";
  {
    Mapper source(ctx, smallRegions(MapperBackend::CpuReference, 32ull << 20));
    source.integrate(randomRays(7, 2000));
    source.save(file);
  }
  ClearanceOptions clearance;
  clearance.range = 0.4;
  Mapper mapper(ctx, smallRegions(MapperBackend::Gpu, 32ull << 20));
  mapper.integrate(randomRays(8, 2000));
  mapper.computeClearance(clearance);  // leaves a baseline of this map
  mapper.load(file);
  mapper.computeClearance(clearance);  // out-of-date regions of the file's map: all of them
  Mapper reference = Mapper::load(ctx, file, smallRegions(MapperBackend::CpuReference, 32ull << 20).run);
  reference.computeClearance(clearance);
  REQUIRE(mapper.map().regions().size() == reference.map().regions().size());
  for (const auto& [key, region] : reference.map().regions())
    REQUIRE(mapper.map().findRegion(key)->layers[clearanceLayer()] == region.layers[clearanceLayer()]);

  MapperOptions decaying = smallRegions(MapperBackend::Gpu, 32ull << 20);
  decaying.run.decaySeconds = 1.0;
  Mapper forgetting(ctx, decaying);
  forgetting.integrate(randomRays(9, 300));
  CHECK_THROWS_WITH(forgetting.load(file), Contains("other.vxm") && Contains("touch-time layer"));
  CHECK(forgetting.stats().integration.rays == 300);
}
