// The exact 2D squared distance transform (engine/distance): the GPU passes equal the CPU
// reference bit for bit on random grids of odd shapes (one cell, one row, one column, sides
// that are no multiple of the workgroup), with no obstacle at all, with every cell an
// obstacle, on lines long enough to stress the envelope, and past the GPU's line limit (the
// CPU reference takes over); the CPU reference against brute force.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "voxen/distance/distance_transform_2d.hpp"
#include "voxen/gpu/distance/distance_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/testdata/split_mix.hpp"

namespace {

using namespace voxen;

std::vector<uint8_t> randomGrid(SplitMix& random, uint32_t w, uint32_t h, unsigned percent) {
  std::vector<uint8_t> obstacle(size_t(w) * h);
  for (auto& o : obstacle) o = random.chance(percent) ? uint8_t(1 + random.range(0, 254)) : 0;  // any non-zero byte
  return obstacle;
}

std::vector<uint64_t> bruteForce(const std::vector<uint8_t>& obstacle, uint32_t w, uint32_t h) {
  std::vector<uint64_t> d2(obstacle.size(), kNoObstacle);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      for (uint32_t oy = 0; oy < h; ++oy)
        for (uint32_t ox = 0; ox < w; ++ox)
          if (obstacle[size_t(oy) * w + ox]) {
            const int64_t dx = int64_t(x) - ox, dy = int64_t(y) - oy;
            d2[size_t(y) * w + x] = std::min(d2[size_t(y) * w + x], uint64_t(dx * dx + dy * dy));
          }
  return d2;
}

void requireGpuEqualsCpu(const std::vector<uint8_t>& obstacle, uint32_t w, uint32_t h) {
  INFO(w << " x " << h);
  const std::vector<uint64_t> cpu = squaredDistanceTransform2D(obstacle, w, h);
  DistanceTransformStats stats;
  const std::vector<uint64_t> gpu = squaredDistanceTransform2DGpu(vt::gpu().scheduler, obstacle, w, h, &stats);
  CHECK(stats.path == DistanceTransformPath::Gpu);
  REQUIRE(gpu.size() == cpu.size());
  size_t differ = 0, first = cpu.size();
  for (size_t i = 0; i < cpu.size(); ++i)
    if (gpu[i] != cpu[i]) first = differ++ ? first : i;
  INFO("first difference at cell " << first << " (x " << (first < cpu.size() ? first % w : 0) << ", y "
                                   << (first < cpu.size() ? first / w : 0) << ")");
  REQUIRE(differ == 0);
}

}  // namespace

TEST_CASE("The CPU distance transform equals brute force", "[distance2d]") {
  SplitMix random(11);
  for (int trial = 0; trial < 60; ++trial) {
    const uint32_t w = uint32_t(random.range(1, 29)), h = uint32_t(random.range(1, 23));
    const std::vector<uint8_t> obstacle = randomGrid(random, w, h, unsigned(random.range(0, 3)) * 7);  // 0: none at all
    INFO(w << " x " << h << ", trial " << trial);
    REQUIRE(squaredDistanceTransform2D(obstacle, w, h) == bruteForce(obstacle, w, h));
  }
  CHECK_THROWS_AS(squaredDistanceTransform2D(std::vector<uint8_t>(5), 2, 3), Error);
}

TEST_CASE("The GPU distance transform equals the CPU reference bit for bit", "[distance2d][gpu]") {
  SplitMix random(23);
  SECTION("random grids of odd shapes and densities") {
    const std::vector<std::pair<uint32_t, uint32_t>> shapes{{1, 1}, {1, 37}, {41, 1}, {2, 2}, {3, 65}, {65, 3},
                                                            {64, 64}, {257, 130}, {130, 257}, {333, 17}};
    for (const auto& [w, h] : shapes)
      for (unsigned percent : {1u, 5u, 30u, 90u}) requireGpuEqualsCpu(randomGrid(random, w, h, percent), w, h);
  }
  SECTION("no obstacle at all: every cell kNoObstacle") {
    for (const auto& [w, h] : std::vector<std::pair<uint32_t, uint32_t>>{{1, 1}, {7, 1}, {1, 9}, {100, 51}}) {
      const std::vector<uint64_t> d2 = squaredDistanceTransform2DGpu(vt::gpu().scheduler, std::vector<uint8_t>(size_t(w) * h), w, h);
      REQUIRE(std::all_of(d2.begin(), d2.end(), [](uint64_t v) { return v == kNoObstacle; }));
    }
  }
  SECTION("every cell an obstacle: all zero") {
    const std::vector<uint64_t> d2 = squaredDistanceTransform2DGpu(vt::gpu().scheduler, std::vector<uint8_t>(77 * 45, 1), 77, 45);
    REQUIRE(std::all_of(d2.begin(), d2.end(), [](uint64_t v) { return v == 0; }));
  }
  SECTION("one obstacle, one row with one, one column with one: long reaches and rows without obstacles") {
    std::vector<uint8_t> corner(size_t(300) * 200);
    corner[0] = 1;
    requireGpuEqualsCpu(corner, 300, 200);
    const std::vector<uint64_t> d2 = squaredDistanceTransform2DGpu(vt::gpu().scheduler, corner, 300, 200);
    CHECK(d2.back() == 299ull * 299 + 199ull * 199);
    std::vector<uint8_t> row(size_t(90) * 120), column(size_t(90) * 120);
    for (uint32_t x = 0; x < 90; ++x) row[size_t(60) * 90 + x] = 1;
    for (uint32_t y = 0; y < 120; ++y) column[size_t(y) * 90 + 44] = 1;
    requireGpuEqualsCpu(row, 90, 120);
    requireGpuEqualsCpu(column, 90, 120);
  }
  SECTION("a line at the GPU's limit, and one past it (the CPU reference takes over)") {
    const uint32_t n = gpu::kMaxDistanceLine;
    requireGpuEqualsCpu(randomGrid(random, n, 3, 1), n, 3);
    requireGpuEqualsCpu(randomGrid(random, 3, n, 1), 3, n);
    // Parabolas that each hide the last: the envelope's stack rises and falls along the column.
    std::vector<uint8_t> staircase(size_t(n) * 2);
    for (uint32_t y = 0; y < n; ++y) staircase[size_t(y) * 2 + (y % 3 == 0 ? 0 : 1)] = y % 5 == 0;
    requireGpuEqualsCpu(staircase, 2, n);
    const std::vector<uint8_t> longer = randomGrid(random, 2, n + 1, 1);
    DistanceTransformStats stats;
    const std::vector<uint64_t> d2 = squaredDistanceTransform2DGpu(vt::gpu().scheduler, longer, 2, n + 1, &stats);
    CHECK(stats.path == DistanceTransformPath::CpuReference);
    CHECK(d2 == squaredDistanceTransform2D(longer, 2, n + 1));
  }
  SECTION("an empty grid and a grid of the wrong size") {
    CHECK(squaredDistanceTransform2DGpu(vt::gpu().scheduler, std::vector<uint8_t>(), 0, 5).empty());
    CHECK_THROWS_AS(squaredDistanceTransform2DGpu(vt::gpu().scheduler, std::vector<uint8_t>(5), 2, 3), Error);
  }
  vt::flushGpu();
}
