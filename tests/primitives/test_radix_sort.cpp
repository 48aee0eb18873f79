// The GPU radix sort and exclusive scan (engine/primitives) against std::stable_sort and a
// CPU prefix sum on the shared lavapipe device. Values are the input index, so any
// reordering of equal keys (an unstable scatter) shows up as a mismatch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

#include "support/gpu_fixture.hpp"
#include "voxen/host/error.hpp"
#include "voxen/primitives/exclusive_scan.hpp"
#include "voxen/primitives/radix_sort.hpp"

namespace {

using namespace voxen;

constexpr uint32_t kGuard = 64;             // items after `count` that the sort must not touch
constexpr uint32_t kSentinel = 0xdeadbeefu;

struct Pairs {
  std::vector<uint32_t> keys, values;
};

uint32_t maskOf(uint32_t keyBits) { return keyBits >= 32 ? 0xffffffffu : (1u << keyBits) - 1u; }

Pairs cpuSort(const Pairs& in, uint32_t keyBits) {
  const uint32_t mask = maskOf(keyBits);
  std::vector<uint32_t> order(in.keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return (in.keys[a] & mask) < (in.keys[b] & mask); });
  Pairs out;
  for (uint32_t i : order) out.keys.push_back(in.keys[i]), out.values.push_back(in.values[i]);
  return out;
}

// Sorts on the GPU through buffers with kGuard sentinel items past `count`, checks the
// sentinels survived and returns the first `count` pairs.
Pairs gpuSort(RadixSort& sort, const Pairs& in, uint32_t keyBits) {
  Scheduler& s = vt::gpu().scheduler;
  const uint32_t n = uint32_t(in.keys.size());
  std::vector<uint32_t> keys(in.keys), values(in.values);
  keys.resize(n + kGuard, kSentinel);
  values.resize(n + kGuard, kSentinel);
  Buffer keyBuffer(s.device(), "radix test keys", keys.size() * 4), valueBuffer(s.device(), "radix test values", values.size() * 4);
  s.upload(keyBuffer, keys.data(), keys.size() * 4);
  s.upload(valueBuffer, values.data(), values.size() * 4);
  sort.record(keyBuffer, valueBuffer, n, keyBits);
  auto keysBack = s.readback<uint32_t>(keyBuffer);
  auto valuesBack = s.readback<uint32_t>(valueBuffer);
  Pairs out{keysBack.get(), valuesBack.get()};
  for (uint32_t i = n; i < n + kGuard; ++i) {
    REQUIRE(out.keys[i] == kSentinel);
    REQUIRE(out.values[i] == kSentinel);
  }
  out.keys.resize(n);
  out.values.resize(n);
  return out;
}

Pairs indexed(std::vector<uint32_t> keys) {
  Pairs p{std::move(keys), {}};
  p.values.resize(p.keys.size());
  std::iota(p.values.begin(), p.values.end(), 0u);
  return p;
}

// Keys drawn from `distinct` values spread over keyBits bits (many duplicates when distinct
// is small), with random bits above keyBits that the sort must ignore and carry along.
Pairs randomPairs(vt::Rng& rng, uint32_t n, uint32_t keyBits, uint32_t distinct, bool highBits) {
  std::vector<uint32_t> palette(distinct);
  for (auto& p : palette) p = rng.u32() & maskOf(keyBits);
  std::vector<uint32_t> keys(n);
  for (auto& k : keys) k = palette[rng.next() % distinct] | (highBits ? rng.u32() & ~maskOf(keyBits) : 0u);
  return indexed(std::move(keys));
}

void requireSorted(RadixSort& sort, const Pairs& in, uint32_t keyBits) {
  INFO("count " << in.keys.size() << ", keyBits " << keyBits << ", passes " << RadixSort::passCount(keyBits));
  const Pairs gpu = gpuSort(sort, in, keyBits);
  const Pairs cpu = cpuSort(in, keyBits);
  size_t firstMismatch = 0;
  while (firstMismatch < cpu.keys.size() && gpu.keys[firstMismatch] == cpu.keys[firstMismatch] &&
         gpu.values[firstMismatch] == cpu.values[firstMismatch])
    ++firstMismatch;
  INFO("first mismatch at " << firstMismatch);
  REQUIRE(gpu.keys == cpu.keys);
  REQUIRE(gpu.values == cpu.values);
}

}  // namespace

TEST_CASE("Radix sort equals std::stable_sort for random keys with duplicates", "[primitives][gpu]") {
  RadixSort sort(vt::gpu().scheduler, 200000);
  vt::Rng rng(42);
  for (uint32_t keyBits : {1u, 4u, 5u, 17u, 27u, 32u})
    for (uint32_t n : {1u, 2u, 1023u, 1024u, 1025u, 4097u, 131072u}) {
      requireSorted(sort, randomPairs(rng, n, keyBits, 37, false), keyBits);
      requireSorted(sort, randomPairs(rng, n, keyBits, 1u << 20, true), keyBits);
    }
  requireSorted(sort, randomPairs(rng, 200000, 27, 5000, true), 27);
  requireSorted(sort, randomPairs(rng, 123457, 32, 1u << 30, false), 32);
  requireSorted(sort, randomPairs(rng, 100003, 9, 300, true), 9);  // 3 passes of 3 bits, rounded up to 4
}

// The item count read on the device (NDT's free-space updates: the GPU knows how many it
// listed, the host only the list's capacity): the first `device` pairs are sorted, the pairs
// after them up to the host's bound are left as they were.
TEST_CASE("Radix sort with a device-side count sorts that many pairs and leaves the rest", "[primitives][gpu]") {
  Scheduler& s = vt::gpu().scheduler;
  const uint32_t bound = 3 * 4096 + 100;  // four tiles
  RadixSort sort(s, bound);
  vt::Rng rng(7);
  for (uint32_t device : {0u, 1u, 4095u, 4097u, 9000u, bound}) {
    INFO("device count " << device << " of at most " << bound);
    const Pairs in = randomPairs(rng, bound, 19, 1000, true);
    Buffer keys(s.device(), "radix test keys", bound * 4), values(s.device(), "radix test values", bound * 4);
    Buffer count(s.device(), "radix test count", 4);
    s.upload(keys, in.keys.data(), bound * 4);
    s.upload(values, in.values.data(), bound * 4);
    s.upload(count, &device, 4);
    const BufferRange countWord = count.range();
    sort.record(keys, values, bound, 19, &countWord);
    const std::vector<uint32_t> keysBack = s.readback<uint32_t>(keys).get(), valuesBack = s.readback<uint32_t>(values).get();
    Pairs head{{in.keys.begin(), in.keys.begin() + device}, {in.values.begin(), in.values.begin() + device}};
    const Pairs sorted = cpuSort(head, 19);
    CHECK(std::equal(sorted.keys.begin(), sorted.keys.end(), keysBack.begin()));
    CHECK(std::equal(sorted.values.begin(), sorted.values.end(), valuesBack.begin()));
    CHECK(std::equal(in.keys.begin() + device, in.keys.end(), keysBack.begin() + device));
    CHECK(std::equal(in.values.begin() + device, in.values.end(), valuesBack.begin() + device));
  }
}

TEST_CASE("Radix sort pass counts cover the key bits with digits of at most 8 bits", "[primitives]") {
  CHECK(RadixSort::passCount(1) == 2);
  CHECK(RadixSort::passCount(4) == 2);
  CHECK(RadixSort::passCount(5) == 2);
  CHECK(RadixSort::passCount(9) == 2);
  CHECK(RadixSort::passCount(16) == 2);
  CHECK(RadixSort::passCount(17) == 3);
  CHECK(RadixSort::passCount(24) == 3);
  CHECK(RadixSort::passCount(25) == 4);
  CHECK(RadixSort::passCount(27) == 4);
  CHECK(RadixSort::passCount(32) == 4);
  CHECK_THROWS_AS(RadixSort::passCount(0), Error);
  CHECK_THROWS_AS(RadixSort::passCount(33), Error);
}

TEST_CASE("Radix sort of sorted, reverse sorted and equal keys", "[primitives][gpu]") {
  RadixSort sort(vt::gpu().scheduler, 150000);
  for (uint32_t n : {1u, 1023u, 1025u, 150000u}) {
    std::vector<uint32_t> ascending(n), descending(n), equal(n, 0x2a5u), fewDescending(n);
    for (uint32_t i = 0; i < n; ++i) {
      ascending[i] = i * 97u;
      descending[i] = (n - i) * 131u;
      fewDescending[i] = 15u - (i * 16u / n);  // long runs of equal keys, runs in descending order
    }
    for (uint32_t keyBits : {4u, 17u, 27u, 32u}) {
      requireSorted(sort, indexed(ascending), keyBits);
      requireSorted(sort, indexed(descending), keyBits);
      requireSorted(sort, indexed(equal), keyBits);
      requireSorted(sort, indexed(fewDescending), keyBits);
    }
  }
}

// An unstable scatter (ranks from atomics, or ranks not in thread order) reorders equal keys:
// with every key equal and values = input index, the output must be the input unchanged,
// across tile boundaries and with a partial last tile; with two interleaved keys, each key's
// values must stay increasing.
TEST_CASE("Radix sort keeps equal keys in input order", "[primitives][gpu]") {
  RadixSort sort(vt::gpu().scheduler, 70000);
  const uint32_t n = 70000;
  for (uint32_t keyBits : {1u, 8u, 32u}) {
    const Pairs in = indexed(std::vector<uint32_t>(n, 1u));
    const Pairs out = gpuSort(sort, in, keyBits);
    REQUIRE(out.values == in.values);
  }
  vt::Rng rng(9);
  std::vector<uint32_t> keys(n);
  for (auto& k : keys) k = rng.chance(50) ? 3u : 12u;
  const Pairs out = gpuSort(sort, indexed(keys), 4);
  uint32_t threes = 0;
  for (uint32_t i = 0; i < n; ++i) threes += keys[i] == 3u;
  for (uint32_t i = 1; i < n; ++i) {
    REQUIRE(out.keys[i - 1] <= out.keys[i]);
    if (out.keys[i - 1] == out.keys[i]) REQUIRE(out.values[i - 1] < out.values[i]);
  }
  REQUIRE(out.keys[threes - 1] == 3u);
  REQUIRE(out.keys[threes] == 12u);
}

TEST_CASE("Radix sort of nothing records nothing; bad arguments throw", "[primitives][gpu]") {
  Scheduler& s = vt::gpu().scheduler;
  RadixSort sort(s, 1000);
  Buffer keys(s.device(), "radix empty keys", 4096), values(s.device(), "radix empty values", 4096);
  const uint64_t dispatches = s.stats().dispatches;
  sort.record(keys, values, 0, 32);
  CHECK(s.stats().dispatches == dispatches);
  CHECK_THROWS_AS(sort.record(keys, values, 1001, 32), Error);
  CHECK_THROWS_AS(sort.record(keys, values, 10, 0), Error);
  CHECK_THROWS_AS(sort.record(keys, values, 10, 33), Error);
  CHECK_THROWS_AS(sort.record(keys.range(0, 16), values, 10, 8), Error);  // range holds 4 items
  CHECK_THROWS_AS(RadixSort(s, RadixSort::kMaxItemsLimit + 1), Error);
  sort.record(keys, values, 1000, 12);
  CHECK(s.stats().dispatches == dispatches + 3 * RadixSort::passCount(12));  // count, scan, scatter
  s.finish();
  RadixSort none(s, 0);
  none.record(keys, values, 0, 5);
}

// Not run by default: `voxen_tests "[.radix-bench]"`. GPU time from the pass timestamps and
// wall time around submit + wait, against std::stable_sort on the same pairs.
TEST_CASE("Radix sort speed for 131072 pairs of 24- and 27-bit keys", "[.radix-bench]") {
  Scheduler& s = vt::gpu().scheduler;
  const uint32_t n = 131072;
  for (const uint32_t keyBits : {24u, 27u}) {
    vt::Rng rng(1);
    const Pairs in = randomPairs(rng, n, keyBits, 1u << 27, false);
    RadixSort sort(s, n);
    Buffer keys(s.device(), "bench keys", n * 4), values(s.device(), "bench values", n * 4);
    std::vector<double> gpuMs, wallMs, cpuMs;
    for (int run = 0; run < 9; ++run) {
      s.upload(keys, in.keys.data(), n * 4);
      s.upload(values, in.values.data(), n * 4);
      s.finish();
      s.resetProfile();
      const auto start = std::chrono::steady_clock::now();
      sort.record(keys, values, n, keyBits);
      s.finish();
      wallMs.push_back(vt::msSince(start));
      double total = 0;
      for (const auto& [name, t] : s.profile().passes()) total += t.totalMs;
      gpuMs.push_back(total);
      if (run == 8) {  // warm: the first run also compiles the pipelines
        std::printf("pass breakdown of the last run:\n");
        for (const auto& [name, t] : s.profile().passes()) std::printf("  %-22s %3llu calls %8.3f ms\n", name.c_str(), (unsigned long long)t.calls, t.totalMs);
      }
      const auto cpuStart = std::chrono::steady_clock::now();
      const Pairs cpu = cpuSort(in, keyBits);
      cpuMs.push_back(vt::msSince(cpuStart));
      if (run == 0) {
        REQUIRE(s.readback<uint32_t>(keys).get() == cpu.keys);
        REQUIRE(s.readback<uint32_t>(values).get() == cpu.values);
      }
    }
    // std::stable_sort directly on (key, value) pairs, the usual CPU way.
    std::vector<double> pairMs;
    for (int run = 0; run < 9; ++run) {
      std::vector<std::pair<uint32_t, uint32_t>> pairs(n);
      for (uint32_t i = 0; i < n; ++i) pairs[i] = {in.keys[i], in.values[i]};
      const auto start = std::chrono::steady_clock::now();
      std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      pairMs.push_back(vt::msSince(start));
    }
    auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
    std::printf("radix sort %u pairs, %u bits: GPU passes %.2f ms, wall %.2f ms (median of 9); "
                "std::stable_sort index+gather %.2f ms, on pairs %.2f ms\n",
                n, keyBits, median(gpuMs), median(wallMs), median(cpuMs), median(pairMs));
  }
}

namespace {

// Sorts (uint64 key, index) pairs on the GPU and against std::stable_sort by the low keyBits.
void requireSorted64(RadixSort64& sort, const std::vector<uint64_t>& keys, uint32_t keyBits) {
  Scheduler& s = vt::gpu().scheduler;
  const uint32_t n = uint32_t(keys.size());
  INFO("count " << n << ", keyBits " << keyBits);
  const uint64_t mask = keyBits >= 64 ? ~0ull : (1ull << keyBits) - 1;
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return (keys[a] & mask) < (keys[b] & mask); });
  std::vector<uint64_t> expectedKeys(n);
  for (uint32_t i = 0; i < n; ++i) expectedKeys[i] = keys[order[i]];
  std::vector<uint64_t> k(keys);
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  k.resize(n + kGuard, 0x0123456789abcdefull);
  v.resize(n + kGuard, kSentinel);
  Buffer keyBuffer(s.device(), "radix64 test keys", k.size() * 8), valueBuffer(s.device(), "radix64 test values", v.size() * 4);
  s.upload(keyBuffer, k.data(), k.size() * 8);
  s.upload(valueBuffer, v.data(), v.size() * 4);
  sort.record(keyBuffer, valueBuffer, n, keyBits);
  auto keysBack = s.readback<uint64_t>(keyBuffer).get();
  auto valuesBack = s.readback<uint32_t>(valueBuffer).get();
  for (uint32_t i = n; i < n + kGuard; ++i) {
    REQUIRE(keysBack[i] == 0x0123456789abcdefull);
    REQUIRE(valuesBack[i] == kSentinel);
  }
  keysBack.resize(n);
  valuesBack.resize(n);
  REQUIRE(valuesBack == order);
  REQUIRE(keysBack == expectedKeys);
}

}  // namespace

TEST_CASE("Radix sort of 64-bit keys equals std::stable_sort", "[primitives][gpu]") {
  RadixSort64 sort(vt::gpu().scheduler, 150000);
  vt::Rng rng(64);
  for (uint32_t n : {1u, 2u, 4095u, 4097u, 100003u}) {
    std::vector<uint64_t> random(n), highOnly(n), few(n);
    for (uint32_t i = 0; i < n; ++i) {
      random[i] = (uint64_t(rng.u32()) << 32) | rng.u32();
      highOnly[i] = (uint64_t(rng.next() % 50) << 32) | 0x77u;  // equal low halves: only the high 32 bits differ
      few[i] = (uint64_t(rng.next() % 3) << 40) | (rng.next() % 3);  // many duplicates
    }
    for (uint32_t keyBits : {64u, 45u, 33u, 32u, 12u}) {
      requireSorted64(sort, random, keyBits);
      requireSorted64(sort, few, keyBits);
    }
    requireSorted64(sort, highOnly, 64);
    requireSorted64(sort, highOnly, 38);
  }
  Scheduler& s = vt::gpu().scheduler;
  Buffer k(s.device(), "radix64 bad keys", 64), v(s.device(), "radix64 bad values", 64);
  CHECK_THROWS_AS(sort.record(k, v, 4, 0), Error);
  CHECK_THROWS_AS(sort.record(k, v, 4, 65), Error);
  CHECK_THROWS_AS(sort.record(k, v, 9, 64), Error);  // 72 bytes of keys
  CHECK_THROWS_AS(sort.record(k, v, 150001, 64), Error);
  sort.record(k, v, 0, 64);
}

// Not run by default (memory and minutes on lavapipe): `voxen_tests "[.big]"`.
TEST_CASE("Radix sort of 2^24 + 5 pairs", "[.big]") {
  const uint32_t n = (1u << 24) + 5;
  RadixSort sort(vt::gpu().scheduler, n);
  vt::Rng rng(24);
  const auto start = std::chrono::steady_clock::now();
  requireSorted(sort, randomPairs(rng, n, 32, 1u << 30, false), 32);
  std::printf("radix sort of %u pairs, 32 bits: %.0f ms with the CPU reference\n", n, vt::msSince(start));
}
