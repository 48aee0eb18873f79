// The GPU stream compaction (engine/primitives) against a CPU reference on the shared
// lavapipe device (the scan's own tests: test_exclusive_scan.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <numeric>

#include "support/gpu_fixture.hpp"
#include "voxen/gpu/primitives/scan_tiles.h"
#include "voxen/host/error.hpp"
#include "voxen/primitives/exclusive_scan.hpp"
#include "voxen/primitives/stream_compaction.hpp"

namespace {

using namespace voxen;

constexpr uint32_t kSentinel = 0xdeadbeefu;
constexpr uint32_t kGroup = 64;  // compaction_probe.comp's workgroup size

struct Compacted {
  std::vector<uint32_t> indices;  // the first `total` entries
  uint32_t total = 0;
  std::array<uint32_t, 3> args{};
};

Compacted gpuCompact(StreamCompaction& compaction, const std::vector<uint32_t>& flags, uint32_t groupSize) {
  Scheduler& s = vt::gpu().scheduler;
  const uint32_t n = uint32_t(flags.size());
  Buffer flagBuffer(s.device(), "compaction flags", (n + 1) * 4), indexBuffer(s.device(), "compaction indices", (n + 1) * 4);
  Buffer totalBuffer(s.device(), "compaction total", 4), argBuffer(s.device(), "compaction args", 16);
  if (n) s.upload(flagBuffer, flags.data(), n * 4);
  s.fill(indexBuffer, kSentinel);
  s.fill(totalBuffer, kSentinel);
  s.fill(argBuffer, kSentinel);
  const BufferRange args = argBuffer.range(4, 12);  // not at the buffer's start
  compaction.record(flagBuffer, indexBuffer, n, totalBuffer, &args, groupSize);
  auto indices = s.readback<uint32_t>(indexBuffer).get();
  Compacted out;
  out.total = s.readback<uint32_t>(totalBuffer).get()[0];
  auto a = s.readback<uint32_t>(argBuffer).get();
  REQUIRE(a[0] == kSentinel);
  out.args = {a[1], a[2], a[3]};
  REQUIRE(out.total <= n);
  for (uint32_t i = out.total; i <= n; ++i) REQUIRE(indices[i] == kSentinel);  // untouched past total
  indices.resize(out.total);
  out.indices = std::move(indices);
  return out;
}

void requireCompacted(StreamCompaction& compaction, const std::vector<uint32_t>& flags, uint32_t groupSize = kGroup) {
  INFO("count " << flags.size() << ", groupSize " << groupSize);
  std::vector<uint32_t> expected;
  for (uint32_t i = 0; i < flags.size(); ++i)
    if (flags[i]) expected.push_back(i);
  const Compacted gpu = gpuCompact(compaction, flags, groupSize);
  REQUIRE(gpu.total == expected.size());
  REQUIRE(gpu.indices == expected);
  // The command: ceil(total / groupSize) workgroups, folded into y past 65,535.
  const uint32_t groups = (gpu.total + groupSize - 1) / groupSize, rows = std::max(1u, (groups + 65534u) / 65535u);
  CHECK(gpu.args[0] <= 65535u);
  CHECK(gpu.args[1] == rows);
  CHECK(gpu.args[0] == (groups + rows - 1) / rows);
  CHECK(uint64_t(gpu.args[0]) * gpu.args[1] >= groups);
  CHECK(gpu.args[2] == 1u);
}

}  // namespace

TEST_CASE("Stream compaction equals the CPU reference", "[primitives][gpu]") {
  StreamCompaction compaction(vt::gpu().scheduler);
  vt::Rng rng(17);
  for (uint32_t n : {0u, 1u, 63u, 64u, 65u, 4095u, 4096u, 4097u, 100003u, 1000000u}) {
    std::vector<uint32_t> random(n), none(n, 0u), all(n), alternating(n), sparse(n);
    for (uint32_t i = 0; i < n; ++i) {
      random[i] = rng.chance(40) ? rng.u32() | 1u : 0u;  // any nonzero value keeps
      all[i] = i + 1;
      alternating[i] = i % 2;
      sparse[i] = rng.chance(1) ? 0x80000000u : 0u;
    }
    requireCompacted(compaction, random);
    requireCompacted(compaction, none);
    requireCompacted(compaction, all);
    requireCompacted(compaction, alternating);
    requireCompacted(compaction, sparse);
  }
  std::vector<uint32_t> flags(5000);
  for (auto& f : flags) f = rng.chance(50);
  for (uint32_t groupSize : {1u, 7u, 256u}) requireCompacted(compaction, flags, groupSize);
  // More kept items than 65,535 workgroups cover: the command folds into y.
  std::vector<uint32_t> many(200000, 1u);
  requireCompacted(compaction, many, 1u);
}

TEST_CASE("A pass dispatched with the compaction's command runs over exactly the kept items", "[primitives][gpu]") {
  Scheduler& s = vt::gpu().scheduler;
  StreamCompaction compaction(s);
  auto probe = s.library().kernel("primitives/compaction_probe.comp");
  vt::Rng rng(3);
  for (uint32_t n : {0u, 1u, 64u, 65u, 4097u, 100003u}) {
    for (uint32_t percent : {0u, 3u, 50u, 100u}) {
      INFO("count " << n << ", kept " << percent << " %");
      std::vector<uint32_t> flags(n);
      for (auto& f : flags) f = rng.chance(percent);
      const uint32_t kept = uint32_t(std::count(flags.begin(), flags.end(), 1u));
      Buffer flagBuffer(s.device(), "probe flags", (n + 1) * 4), indexBuffer(s.device(), "probe indices", (n + 1) * 4);
      Buffer seen(s.device(), "probe seen", (n + 1) * 4), total(s.device(), "probe total", 4);
      Buffer args(s.device(), "probe args", 12), counters(s.device(), "probe counters", 8);
      if (n) s.upload(flagBuffer, flags.data(), n * 4);
      s.fill(seen, 0);
      s.fill(counters, 0);
      const BufferRange argRange = args.range();
      compaction.record(flagBuffer, indexBuffer, n, total, &argRange, kGroup);
      gpu::CompactionProbePush push{counters.range().address, total.range().address, indexBuffer.range().address,
                                    seen.range().address};
      s.dispatchIndirect({"compaction probe", probe.get(), {}, push,
                          {readsWrites(counters), reads(total), reads(indexBuffer), readsWrites(seen)}},
                         args);
      const auto c = s.readback<uint32_t>(counters).get();
      auto marks = s.readback<uint32_t>(seen).get();
      CHECK(c[1] == kept);                                      // invocations that had an item
      CHECK(c[0] == (kept + kGroup - 1) / kGroup * kGroup);     // launched: whole groups only
      marks.resize(n);
      REQUIRE(marks == flags);  // each kept item exactly once, nothing else
    }
  }
}

TEST_CASE("Stream compaction rejects bad arguments", "[primitives][gpu]") {
  Scheduler& s = vt::gpu().scheduler;
  StreamCompaction compaction(s);
  Buffer a(s.device(), "compaction bad a", 64), b(s.device(), "compaction bad b", 64), t(s.device(), "compaction bad t", 16);
  CHECK_THROWS_AS(compaction.record(a, b, 17, t), Error);
  CHECK_THROWS_AS(compaction.record(a, b, 4, t.range(0, 2)), Error);
  const BufferRange shortArgs = t.range(0, 8), oddArgs = t.range(2, 12);
  CHECK_THROWS_AS(compaction.record(a, b, 4, t, &shortArgs), Error);
  CHECK_THROWS_AS(compaction.record(a, b, 4, t, &oddArgs), Error);
  CHECK_THROWS_AS(compaction.record(a, b, 4, t, nullptr, 0), Error);
  s.finish();
}

// Not run by default: `voxen_tests "[.scan-bench]"`. Pass timestamps and wall time.
TEST_CASE("Compaction of 131072 and 1000000 flags and scans up to 2^24 items: speed", "[.scan-bench]") {
  Scheduler& s = vt::gpu().scheduler;
  auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  auto report = [&](const char* what, auto&& recordOnce) {
    std::vector<double> gpuMs, wallMs;
    for (int run = 0; run < 7; ++run) {
      s.finish();
      s.resetProfile();
      const auto start = std::chrono::steady_clock::now();
      recordOnce();
      s.finish();
      wallMs.push_back(vt::msSince(start));
      double t = 0;
      for (const auto& [name, p] : s.profile().passes()) t += p.totalMs;
      gpuMs.push_back(t);
    }
    std::printf("%s: GPU passes %.2f ms, wall %.2f ms (median of 7)\n", what, median(gpuMs), median(wallMs));
    for (const auto& [name, p] : s.profile().passes()) std::printf("  %-24s %8.3f ms\n", name.c_str(), p.totalMs);
  };
  StreamCompaction compaction(s);
  vt::Rng rng(1);
  for (uint32_t n : {131072u, 1000000u}) {
    std::vector<uint32_t> flags(n);
    for (auto& f : flags) f = rng.chance(30);
    Buffer f(s.device(), "bench flags", n * 4), idx(s.device(), "bench indices", n * 4), t(s.device(), "bench total", 4),
        a(s.device(), "bench args", 12);
    s.upload(f, flags.data(), n * 4);
    const BufferRange args = a.range();
    char what[64];
    std::snprintf(what, sizeof what, "compaction of %u flags", n);
    report(what, [&] { compaction.record(f, idx, n, t, &args); });
  }
  ExclusiveScan scan(s);
  // Around kSingleMaxItems: one workgroup below, tiles above.
  for (uint32_t n : {ExclusiveScan::kSingleMaxItems / 4, ExclusiveScan::kSingleMaxItems, ExclusiveScan::kSingleMaxItems + 1,
                     ExclusiveScan::kSingleMaxItems * 4, 1u << 24}) {
    Buffer src(s.device(), "bench scan", VkDeviceSize(n) * 4);
    s.fill(src, 1);
    char what[64];
    std::snprintf(what, sizeof what, "scan of %u items", n);
    report(what, [&] { scan.record(src, src, n); });
  }
}
