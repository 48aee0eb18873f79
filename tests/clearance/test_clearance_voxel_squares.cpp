// The exact clearance in voxel squares (one scale on every axis, issue 37): the integer lower
// envelope against an exhaustive minimum; the CPU reference and the GPU against the nearest
// obstacle found by exhaustive search, bit for bit (the metres of a squared voxel distance D
// are float(step * sqrt(D)) in double, within the range when at most the range as a float);
// the GPU's float64 and plain shader flavours giving the same bits, in voxel squares and on
// scaled axes; and the voxel squares' shaders free of doubles.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <vector>

#include "support/clearance_reference.hpp"
#include "support/gpu_fixture.hpp"
#include "support/plain_flavour_gpu.hpp"
#include "voxen/clearance/distance_envelope.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/clearance/voxel_squares.hpp"
#include "voxen/host/embedded_shaders.hpp"

namespace {

using namespace voxen;
using namespace vt::clearance;

struct Random {
  uint64_t state;
  uint32_t next() { return uint32_t((state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33); }
  uint32_t below(uint32_t n) { return next() % n; }
};

// min over p of (q - p)^2 + f[p] over the f[p] within maxSquared, by trying every p.
std::vector<uint32_t> exhaustiveEnvelope(const std::vector<uint32_t>& f, uint32_t maxSquared) {
  const int n = int(f.size());
  std::vector<uint32_t> d(f.size(), gpu::kNoVoxelSquare);
  for (int q = 0; q < n; ++q) {
    uint64_t best = UINT64_MAX;
    for (int p = 0; p < n; ++p)
      if (f[size_t(p)] <= maxSquared) best = std::min<uint64_t>(best, uint64_t((q - p) * (q - p)) + f[size_t(p)]);
    if (best <= maxSquared) d[size_t(q)] = uint32_t(best);
  }
  return d;
}

TEST_CASE("Clearance: the integer lower envelope equals the exhaustive minimum on random lines", "[clearance]") {
  Random random{11};
  size_t lines = 0, finite = 0;
  for (int n : {1, 2, 3, 7, 64, 115, 512})
    for (uint32_t maxSquared : {0u, 4u, 100u, 2500u, 57600u})
      for (int density : {1, 10, 50, 100})  // percent of the line's values that are obstacles' squares
        for (int trial = 0; trial < 6; ++trial) {
          std::vector<uint32_t> f(static_cast<size_t>(n));
          for (uint32_t& v : f) {
            if (int(random.below(100)) >= density) {
              v = random.below(2) ? gpu::kNoVoxelSquare : maxSquared + 1 + random.below(1000);  // none within range
            } else {
              // Small values often (ties between parabolas), any value within the range sometimes.
              v = random.below(3) ? random.below(std::min(maxSquared, 9u) + 1) : random.below(maxSquared + 1);
              ++finite;
            }
          }
          std::vector<uint32_t> d(f.size());
          std::vector<SquaresScratch> scratch(f.size() + 1);
          squaredDistanceEnvelope(f.data(), d.data(), n, maxSquared, scratch.data());
          const std::vector<uint32_t> want = exhaustiveEnvelope(f, maxSquared);
          INFO("n " << n << ", maxSquared " << maxSquared << ", density " << density << "%, trial " << trial);
          REQUIRE(d == want);
          ++lines;
        }
  CHECK(lines == 7 * 5 * 4 * 6);
  CHECK(finite > 10000);
}

TEST_CASE("Clearance: a squared voxel distance's metres and the range's largest square", "[clearance]") {
  OccupancyModel model;
  model.resolution = 0.1;
  ClearanceOptions options;
  options.range = 0.9;
  const std::optional<VoxelSquares> squares = voxelSquares(model, options);
  REQUIRE(squares);
  CHECK(squares->maxSquared == 81);  // 0.9 m is 9 voxels: at the range is within it
  REQUIRE(squares->metres.size() == 82);
  CHECK(squares->metres[0] == 0.0f);
  CHECK(squares->metres[25] == 0.5f);
  CHECK(squares->metres[81] == 0.9f);
  CHECK(squares->metres[2] == float(0.1 * std::sqrt(2.0)));
  options.axisScale = {2.0, 2.0, 2.0};  // one scale on every axis: still squares, of 0.2 m voxels
  REQUIRE(voxelSquares(model, options));
  CHECK(voxelSquares(model, options)->maxSquared == 20);  // sqrt(20) * 0.2 = 0.894 m, sqrt(21) * 0.2 = 0.917 m
  options.axisScale = {1.0, 1.0, 0.5};  // scaled axes: weighted float squares instead
  CHECK_FALSE(voxelSquares(model, options));
}

// A map of 3 x 3 x 3 free regions at 0.1 m with random obstacles and unobserved voxels.
OccupancyMap randomObstacleMap(uint64_t seed) {
  OccupancyMap map = freeMap(0.1, {-1, -1, -1}, {1, 1, 1});
  Random random{seed};
  auto voxel = [&] { return VoxelCoord{int(random.below(96)) - 32, int(random.below(96)) - 32, int(random.below(96)) - 32}; };
  for (int i = 0; i < 300; ++i) setOccupied(map, voxel());
  for (int i = 0; i < 150; ++i) {
    const VoxelCoord v = voxel();
    map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = kUnobserved;
  }
  return map;
}

// The clearance of every voxel of region `key` from the nearest obstacle's squared voxel
// distance, found by trying every voxel of the padding box; the metres by the definition.
std::vector<float> exhaustiveSquaresClearance(const OccupancyMap& map, const RegionKey& key, const ClearanceOptions& options) {
  const int n = map.regionSize();
  const int pad = options.padding(map.model()).x;
  const double step = map.model().resolution * options.axisScale.x;
  std::vector<float> out(size_t(n) * n * n);
  const glm::i64vec3 origin = glm::i64vec3(key.x, key.y, key.z) * int64_t(n);
  const int size = n + 2 * pad;
  std::vector<uint8_t> obstacle(size_t(size) * size * size);
  for (int z = 0; z < size; ++z)
    for (int y = 0; y < size; ++y)
      for (int x = 0; x < size; ++x)
        obstacle[size_t(x + size * (y + size * z))] = obstacleAt(map, origin + glm::i64vec3(x - pad, y - pad, z - pad), options);
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        int best = INT32_MAX;
        for (int dz = -pad; dz <= pad; ++dz)
          for (int dy = -pad; dy <= pad; ++dy)
            for (int dx = -pad; dx <= pad; ++dx)
              if (obstacle[size_t((x + pad + dx) + size * ((y + pad + dy) + size * (z + pad + dz)))])
                best = std::min(best, dx * dx + dy * dy + dz * dz);
        const float metres = best == INT32_MAX ? INFINITY : float(step * std::sqrt(double(best)));
        out[size_t(x + n * (y + n * z))] = metres <= float(options.range) ? metres : kNoObstacleInRange;
      }
  return out;
}

// Voxels of region `key` whose clearance bits differ from `want`.
size_t bitsDiffering(const OccupancyMap& map, const RegionKey& key, const std::vector<float>& want) {
  const std::span<const float> got = map.findRegion(key)->values<float>(clearanceLayer());
  size_t differing = 0;
  for (size_t i = 0; i < want.size(); ++i) differing += std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want[i]);
  return differing;
}

// Voxels of every region whose clearance bits differ between two maps of the same regions.
size_t bitsDiffering(const OccupancyMap& a, const OccupancyMap& b) {
  size_t differing = 0;
  for (const auto& [key, region] : a.regions()) {
    const std::span<const float> x = region.values<float>(clearanceLayer());
    const std::span<const float> y = b.findRegion(key)->values<float>(clearanceLayer());
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i) differing += std::bit_cast<uint32_t>(x[i]) != std::bit_cast<uint32_t>(y[i]);
  }
  return differing;
}

TEST_CASE("Clearance CPU in voxel squares equals the exhaustive nearest obstacle bit for bit on random obstacles",
          "[clearance]") {
  for (uint64_t seed : {3u, 29u}) {
    const OccupancyMap base = randomObstacleMap(seed);
    for (bool unknownFree : {false, true}) {
      ClearanceOptions options;
      options.range = 0.9;
      options.unknownFree = unknownFree;
      OccupancyMap map = base;
      computeClearanceCpu(map, options, std::vector<RegionKey>{{0, 0, 0}});
      INFO("seed " << seed << ", unknown free " << unknownFree);
      CHECK(bitsDiffering(map, {0, 0, 0}, exhaustiveSquaresClearance(map, {0, 0, 0}, options)) == 0);
    }
  }
}

TEST_CASE("Clearance GPU in voxel squares equals the exhaustive nearest obstacle and the CPU reference bit for bit, "
          "in the float64 and the plain shader flavour",
          "[clearance][gpu]") {
  vt::PlainFlavourGpu plain;
  ShaderLibrary& plainLibrary = plain.library;
  Scheduler& plainScheduler = plain.scheduler;
  REQUIRE_FALSE(plainLibrary.float64());
  // lavapipe has shaderFloat64: the shared device runs the float64 flavour where one exists.
  REQUIRE(vt::gpu().library.float64() == vt::gpu().device.info().capabilities.shaderFloat64);

  const OccupancyMap base = randomObstacleMap(5);
  // One scale on every axis (voxel squares, with the range at a whole number of voxels and
  // not), then scaled axes (weighted float squares, exact divisions and roots).
  for (int variant = 0; variant < 3; ++variant) {
    ClearanceOptions options;
    options.range = variant == 1 ? 0.77 : 0.9;
    options.unknownFree = variant == 1;
    if (variant == 2) options.axisScale = {1.0, 1.0, 0.5};
    INFO("variant " << variant);
    OccupancyMap cpu = base, exact = base, plain = base;
    computeClearanceCpu(cpu, options);
    CHECK(GpuClearance(vt::gpu().scheduler, exact, options).compute().regions == 27);
    CHECK(GpuClearance(plainScheduler, plain, options).compute().regions == 27);
    CHECK(bitsDiffering(cpu, exact) == 0);
    CHECK(bitsDiffering(cpu, plain) == 0);
    if (variant < 2) CHECK(bitsDiffering(exact, {0, 0, 0}, exhaustiveSquaresClearance(exact, {0, 0, 0}, options)) == 0);
  }
}

TEST_CASE("The voxel squares' clearance shaders have no float64 flavour: no double in any per-voxel loop",
          "[clearance][shaders][logic]") {
  const ShaderDefines squares{{"CLEARANCE_VOXEL_SQUARES", "1"}};
  for (const char* path : {"clearance/clearance_seed.comp", "clearance/clearance_envelope.comp"}) {
    INFO(path);
    const EmbeddedFile* withFloat64 = detail::findEmbeddedFlavour(path, squares, true);
    REQUIRE(withFloat64);
    // The float64 build's SPIR-V is the plain one's (it divides and roots nothing), so only
    // the plain one is embedded, and a device with shaderFloat64 runs it too.
    CHECK(std::string(withFloat64->path) == std::string(path) + "?CLEARANCE_VOXEL_SQUARES=1");
  }
  // The weighted float envelope (scaled axes) still divides exactly: it keeps its flavour.
  const EmbeddedFile* weighted = detail::findEmbeddedFlavour("clearance/clearance_envelope.comp", {}, true);
  REQUIRE(weighted);
  CHECK(std::string(weighted->path) == "clearance/clearance_envelope.comp?VOXEN_FLOAT64=1");
}

}  // namespace
