// The GPU exclusive scan (engine/primitives) against std::exclusive_scan on the shared
// lavapipe device: the one-workgroup path and the tiled path around their boundaries.
#include <catch2/catch.hpp>

#include <numeric>

#include "support/gpu_fixture.hpp"
#include "voxen/gpu/primitives/scan_tiles.h"
#include "voxen/host/error.hpp"
#include "voxen/primitives/exclusive_scan.hpp"

namespace {

using namespace voxen;

constexpr uint32_t kSentinel = 0xdeadbeefu;

// Scans n random values (some sums wrap) into another buffer, then in place at
// `inPlaceOffset` bytes into a buffer (4: not 16-byte aligned, the scalar load path), and
// compares both with std::exclusive_scan, the total with the sum, and the item after the
// last with the sentinel it was filled with.
void checkScan(ExclusiveScan& scan, vt::Rng& rng, uint32_t n, VkDeviceSize inPlaceOffset) {
  INFO("count " << n << ", in place at byte " << inPlaceOffset);
  Scheduler& s = vt::gpu().scheduler;
  std::vector<uint32_t> in(n);
  for (auto& v : in) v = rng.chance(10) ? rng.u32() : uint32_t(rng.next() % 1000);
  std::vector<uint32_t> expected(n);
  std::exclusive_scan(in.begin(), in.end(), expected.begin(), 0u);
  const uint32_t sum = std::accumulate(in.begin(), in.end(), 0u);
  const VkDeviceSize bytes = VkDeviceSize(n) * 4;
  Buffer src(s.device(), "scan src", bytes + 4), dst(s.device(), "scan dst", bytes + 4), total(s.device(), "scan total", 4);
  if (n) s.upload(src, in.data(), bytes);
  s.fill(dst, kSentinel);
  s.fill(total, kSentinel);
  const BufferRange totalRange = total.range();
  scan.record(src, dst, n, &totalRange);
  auto out = s.readback<uint32_t>(dst).get();
  CHECK(s.readback<uint32_t>(total).get()[0] == sum);
  CHECK(out[n] == kSentinel);
  out.resize(n);
  REQUIRE(out == expected);
  if (n == 0) return;
  Buffer shifted(s.device(), "scan in place", bytes + inPlaceOffset);
  const BufferRange r = shifted.range(inPlaceOffset, bytes);
  s.upload(r, in.data(), bytes);
  scan.record(r, r, n);
  REQUIRE(s.readback<uint32_t>(r).get() == expected);
}

}  // namespace

TEST_CASE("Exclusive scan equals the CPU prefix sum", "[primitives][gpu]") {
  ExclusiveScan scan(vt::gpu().scheduler);
  vt::Rng rng(5);
  for (uint32_t n : {0u, 1u, 255u, 4096u, 4097u, 100000u, 1u << 20}) checkScan(scan, rng, n, 0);
  Buffer big(vt::gpu().scheduler.device(), "scan big", 16);
  CHECK_THROWS_AS(scan.record(big, big, ExclusiveScan::kMaxItems + 1), Error);
  CHECK_THROWS_AS(scan.record(big, big, 5), Error);
}

TEST_CASE("Exclusive scan of many tiles equals std::exclusive_scan", "[primitives][gpu]") {
  ExclusiveScan scan(vt::gpu().scheduler);
  vt::Rng rng(11);
  const uint32_t single = ExclusiveScan::kSingleMaxItems, tile = gpu::kTileItems;
  for (uint32_t n : {single - 1, single, single + 1, single + tile - 1, single + tile, single + tile + 1, 1000003u, 1u << 22,
                     (1u << 22) + 1})
    checkScan(scan, rng, n, 4);
  checkScan(scan, rng, (1u << 24) + 3, 0);
}
