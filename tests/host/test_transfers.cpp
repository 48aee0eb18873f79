// Uploads, readbacks, fills, copies and transient memory through the scheduler.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>

#include "support/gpu_fixture.hpp"
#include "voxen/gpu/selftest/selftest_push.h"
#include "voxen/host/error.hpp"

namespace {

std::vector<uint8_t> randomBytes(size_t n, uint64_t seed) {
  vt::Rng rng(seed);
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = uint8_t(rng.next() >> 56);
  return bytes;
}

std::vector<uint32_t> randomWords(size_t n, uint64_t seed) {
  vt::Rng rng(seed);
  std::vector<uint32_t> words(n);
  for (auto& w : words) w = rng.u32();
  return words;
}

// Fails naming the first word that differs, rather than printing millions of values.
void requireSameWords(const std::vector<uint32_t>& got, const std::vector<uint32_t>& expected) {
  REQUIRE(got.size() == expected.size());
  const auto mismatch = std::mismatch(got.begin(), got.end(), expected.begin());
  if (mismatch.first != got.end())
    FAIL("first mismatch at word " << (mismatch.first - got.begin()) << ": got " << *mismatch.first << ", expected "
                                   << *mismatch.second);
}

}  // namespace

TEST_CASE("Upload and readback round trip", "[scheduler][transfer]") {
  auto& s = vt::gpu().scheduler;
  voxen::Buffer buffer(vt::gpu().device, "roundtrip", 64 * 1024);

  SECTION("small") {
    const std::vector<uint32_t> values = {1, 2, 3, 0xdeadbeef, 0, 42, 0xffffffff, 7};
    s.upload(buffer.range(0, values.size() * 4), std::span<const uint32_t>(values));
    auto future = s.readback<uint32_t>(buffer.range(0, values.size() * 4));
    CHECK(future.valid());
    s.finish();
    CHECK(future.ready());
    CHECK(future.get() == values);
    CHECK_FALSE(future.valid());  // handed over once, like std::future
    // A range that is not a whole number of elements is refused.
    CHECK_THROWS(s.readback<uint32_t>(buffer.range(0, 6)));
  }
  SECTION("odd sizes and offsets") {
    // Fill everything with a known pattern, then overwrite odd byte ranges.
    std::vector<uint8_t> model = randomBytes(buffer.size(), 1);
    s.upload(buffer.range(), model.data(), model.size());
    const std::pair<size_t, size_t> pieces[] = {{0, 1}, {1, 3}, {5, 7}, {13, 1}, {255, 257}, {4097, 4095}, {60001, 5535}};
    uint64_t seed = 100;
    for (const auto& [offset, size] : pieces) {
      const auto bytes = randomBytes(size, seed++);
      s.upload(buffer.range(offset, size), bytes.data(), bytes.size());
      std::memcpy(model.data() + offset, bytes.data(), size);
    }
    // Read back the odd pieces on their own, and the whole buffer.
    std::vector<voxen::Future<uint8_t>> futures;
    for (const auto& [offset, size] : pieces) futures.push_back(s.readback<uint8_t>(buffer.range(offset, size)));
    auto whole = s.readback<uint8_t>(buffer.range());
    for (size_t i = 0; i < futures.size(); ++i) {
      const auto [offset, size] = pieces[i];
      const auto got = futures[i].get();
      INFO("piece at " << offset << " of " << size << " bytes");
      REQUIRE(got.size() == size);
      CHECK(std::equal(got.begin(), got.end(), model.begin() + offset));
    }
    CHECK(whole.get() == model);
  }
  SECTION("several batches in flight") {
    std::vector<voxen::Future<uint32_t>> futures;
    std::vector<std::vector<uint32_t>> expected;
    for (uint32_t round = 0; round < 6; ++round) {
      auto values = randomWords(1000 + round * 17, round + 7);
      auto range = buffer.range(round * 8192, values.size() * 4);
      s.upload(range, std::span<const uint32_t>(values));
      futures.push_back(s.readback<uint32_t>(range));
      expected.push_back(values);
      s.submit();
    }
    // Collected in reverse order: each future must hold its own batch's data.
    for (size_t i = futures.size(); i-- > 0;) CHECK(futures[i].get() == expected[i]);
  }
}

TEST_CASE("The staging ring wraps around under large transfers", "[scheduler][transfer]") {
  auto& gpu = vt::gpu();
  voxen::Scheduler s(gpu.device, gpu.library,
                     voxen::SchedulerOptions{.stagingBytes = 1 << 20, .transientBytes = 1 << 16, .batchesInFlight = 2});
  constexpr size_t kBig = 8u << 20;
  voxen::Buffer big(gpu.device, "staging-wrap-big", kBig);
  voxen::Buffer small(gpu.device, "staging-wrap-small", 4096);
  for (uint64_t round = 0; round < 3; ++round) {
    INFO("round " << round);
    const auto data = randomWords(kBig / 4, 1000 + round);
    const auto tiny = randomWords(1 + round * 5, 2000 + round);
    s.upload(small.range(0, tiny.size() * 4), std::span<const uint32_t>(tiny));
    auto tinyBack = s.readback<uint32_t>(small.range(0, tiny.size() * 4));
    s.upload(big.range(), std::span<const uint32_t>(data));
    const auto tiny2 = randomWords(333, 3000 + round);
    s.upload(small.range(2048, tiny2.size() * 4), std::span<const uint32_t>(tiny2));
    auto back = s.readback<uint32_t>(big.range());
    auto tiny2Back = s.readback<uint32_t>(small.range(2048, tiny2.size() * 4));
    requireSameWords(back.get(), data);
    CHECK(tinyBack.get() == tiny);
    CHECK(tiny2Back.get() == tiny2);
  }
  s.finish();
  CHECK(s.stats().stagingWaits > 0);
  CHECK(s.stats().uploadedBytes >= 3 * kBig);
  CHECK(s.stats().readBackBytes >= 3 * kBig);
  WARN("1 MiB staging ring, 3 x 8 MiB each way: " << s.stats().stagingWaits << " staging waits, "
                                                   << s.stats().submissions << " submissions");
}

TEST_CASE("Scheduler::fill writes a 32-bit pattern", "[scheduler][transfer]") {
  auto& s = vt::gpu().scheduler;
  voxen::Buffer buffer(vt::gpu().device, "fill-target", 4096);
  s.fill(buffer, 0x01020304u);
  s.fill(buffer.range(256, 512), 0xdeadbeefu);
  s.fill(buffer.range(4092, 4), 7u);
  const auto got = vt::readBack<uint32_t>(s, buffer);
  REQUIRE(got.size() == 1024);
  for (size_t i = 0; i < got.size(); ++i) {
    const uint32_t expected = i == 1023 ? 7u : (i >= 64 && i < 192) ? 0xdeadbeefu : 0x01020304u;
    if (got[i] != expected) FAIL("word " << i << " is " << got[i] << ", expected " << expected);
  }
}

TEST_CASE("Scheduler::copy copies between buffers and ranges", "[scheduler][transfer]") {
  auto& s = vt::gpu().scheduler;
  voxen::Buffer a(vt::gpu().device, "copy-src", 8192);
  voxen::Buffer b(vt::gpu().device, "copy-dst", 8192);
  const auto values = randomWords(2048, 77);
  s.upload(a, std::span<const uint32_t>(values));
  s.fill(b, 0u);
  s.copy(a.range(400, 1000), b.range(3000, 1000));
  s.copy(a.range(0, 8), b.range(0, 8));
  // Copy within the destination after the first copies landed (a read-after-write on b).
  s.copy(b.range(3000, 16), b.range(8000, 16));
  const auto got = vt::readBack<uint32_t>(s, b);
  std::vector<uint32_t> expected(2048, 0u);
  std::memcpy(expected.data() + 750, values.data() + 100, 1000);
  std::memcpy(expected.data(), values.data(), 8);
  std::memcpy(expected.data() + 2000, expected.data() + 750, 16);
  CHECK(got == expected);
}

TEST_CASE("Scheduler::transient gives aligned, disjoint scratch space", "[scheduler][transfer]") {
  auto& s = vt::gpu().scheduler;
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  const uint32_t n = 3000;
  auto t1 = s.transient(n * 4);
  auto t2 = s.transient(n * 4, 1024);
  auto t3 = s.transient(12, 16);
  CHECK(t1.size >= n * 4);
  CHECK(t2.size >= n * 4);
  CHECK(t1.address % 256 == 0);
  CHECK(t2.address % 1024 == 0);
  CHECK(t3.address % 16 == 0);
  CHECK(t1.address != 0);
  auto disjoint = [](const voxen::BufferRange& x, const voxen::BufferRange& y) {
    return x.address + x.size <= y.address || y.address + y.size <= x.address;
  };
  CHECK(disjoint(t1, t2));
  CHECK(disjoint(t1, t3));
  CHECK(disjoint(t2, t3));
  // From here on use exactly the requested sizes.
  t1.size = n * 4;
  t2.size = n * 4;
  t3.size = 12;
  // Write both on the GPU, then read both: overlapping space would mix the two patterns.
  s.dispatchThreads(voxen::Pass{.name = "transient-iota-1", .kernel = iota,
                                .push = voxen::gpu::FillIotaPush{t1.address, n, 1, 0}, .uses = {voxen::writes(t1)}},
                    n);
  s.dispatchThreads(voxen::Pass{.name = "transient-iota-2", .kernel = iota,
                                .push = voxen::gpu::FillIotaPush{t2.address, n, 2, 1000000}, .uses = {voxen::writes(t2)}},
                    n);
  const uint32_t three[3] = {9, 8, 7};
  s.upload(t3, three, sizeof three);
  auto r1 = s.readback<uint32_t>(t1);
  auto r2 = s.readback<uint32_t>(t2);
  auto r3 = s.readback<uint32_t>(t3);
  const auto v1 = r1.get(), v2 = r2.get(), v3 = r3.get();
  REQUIRE(v1.size() >= n);
  REQUIRE(v2.size() >= n);
  for (uint32_t i = 0; i < n; ++i) {
    if (v1[i] != i) FAIL("t1[" << i << "] = " << v1[i]);
    if (v2[i] != 2 * i + 1000000) FAIL("t2[" << i << "] = " << v2[i]);
  }
  CHECK(v3 == std::vector<uint32_t>{9, 8, 7});
}

TEST_CASE("A buffer destroyed while recorded or in-flight work uses it stays alive until the GPU is done",
          "[scheduler][transfer][memory]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  s.finish();
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  voxen::Buffer keep(gpu.device, "lifetime-keep", 4096);
  const uint64_t bytesBefore = gpu.device.memoryStats().totalBytes();
  const uint32_t n = 1024;
  {
    // Recorded, not yet submitted, when the buffer dies.
    voxen::Buffer doomed(gpu.device, "lifetime-doomed", n * 4);
    s.fill(doomed, 5u);
    s.dispatchThreads({.name = "lifetime-iota", .kernel = iota, .push = voxen::gpu::FillIotaPush{doomed.address(), n, 1, 0},
                       .uses = {voxen::writes(doomed)}},
                      n);
    s.copy(doomed.range(0, 4096), keep.range());
  }
  auto back = s.readback<uint32_t>(keep);
  const auto got = back.get();
  for (uint32_t i = 0; i < n; ++i)
    if (got[i] != i) FAIL("keep[" << i << "] = " << got[i]);
  {
    // Submitted and maybe still running when the buffer dies.
    voxen::Buffer doomed(gpu.device, "lifetime-doomed-2", n * 4);
    s.dispatchThreads({.name = "lifetime-iota", .kernel = iota, .push = voxen::gpu::FillIotaPush{doomed.address(), n, 2, 0},
                       .uses = {voxen::writes(doomed)}},
                      n);
    s.submit();
  }
  s.finish();
  // Everything was released once the GPU finished.
  for (const auto& e : gpu.device.memoryStats().entries()) CHECK(e.name.rfind("lifetime-doomed", 0) != 0);
  CHECK(gpu.device.memoryStats().totalBytes() == bytesBefore);
}

// The largest live buffer of the device whose name is `name` (0 when none).
static uint64_t largestBufferNamed(const std::string& name) {
  uint64_t largest = 0;
  for (const voxen::MemoryEntry& e : vt::gpu().device.memoryStats().entries())
    if (e.name == name) largest = std::max(largest, e.bytes);
  return largest;
}

TEST_CASE("The staging ring starts small and grows for transfers larger than it, which come back whole",
          "[scheduler][transfer][memory]") {
  auto& gpu = vt::gpu();
  const uint64_t before = largestBufferNamed("staging ring");  // the shared scheduler's
  voxen::Scheduler s(gpu.device, gpu.library,
                     voxen::SchedulerOptions{.stagingBytes = 8 << 20, .transientBytes = 1 << 16, .batchesInFlight = 2,
                                             .initialStagingBytes = 64 << 10});
  constexpr size_t kBig = 4u << 20;
  voxen::Buffer big(gpu.device, "staging-grow-big", kBig);
  // A small readback first: it fits the first ring and is recorded before the ring grows.
  const auto tiny = randomWords(100, 77);
  voxen::Buffer small(gpu.device, "staging-grow-small", 4096);
  s.upload(small.range(0, tiny.size() * 4), std::span<const uint32_t>(tiny));
  auto tinyBack = s.readback<uint32_t>(small.range(0, tiny.size() * 4));
  const auto data = randomWords(kBig / 4, 4242);
  s.upload(big.range(), std::span<const uint32_t>(data));
  requireSameWords(s.readback<uint32_t>(big.range()).get(), data);
  CHECK(tinyBack.get() == tiny);
  s.finish();
  // Grown past its start, never past its maximum (the shared scheduler's ring is another).
  const uint64_t ring = largestBufferNamed("staging ring");
  CHECK(ring > (64u << 10));
  CHECK((ring <= (8u << 20) || ring == before));
}

TEST_CASE("Transient scratch grows for a batch that asks for more, and earlier ranges stay valid",
          "[scheduler][transfer][memory]") {
  auto& gpu = vt::gpu();
  voxen::Scheduler s(gpu.device, gpu.library,
                     voxen::SchedulerOptions{.stagingBytes = 1 << 20, .transientBytes = 4 << 20, .batchesInFlight = 2,
                                             .initialTransientBytes = 64 << 10});
  // Both ranges in one batch: the first from the starting scratch, the second grows it.
  const voxen::BufferRange first = s.transient(32 << 10);
  s.fill(first, 0x11111111u);
  const voxen::BufferRange second = s.transient(1 << 20);
  s.fill(second, 0x22222222u);
  CHECK(first.buffer != second.buffer);
  auto a = s.readback<uint32_t>(first);
  auto b = s.readback<uint32_t>(second);
  auto av = a.get(), bv = b.get();
  CHECK(std::all_of(av.begin(), av.end(), [](uint32_t v) { return v == 0x11111111u; }));
  CHECK(std::all_of(bv.begin(), bv.end(), [](uint32_t v) { return v == 0x22222222u; }));
  // Past the maximum is still an error that names the setting.
  CHECK_THROWS_WITH(s.transient(5 << 20), Catch::Contains("SchedulerOptions::transientBytes"));
  s.finish();
}

TEST_CASE("readbackInto lands in the caller's memory, in chunks across batches, and a dropped ticket waits",
          "[scheduler][transfer]") {
  auto& s = vt::gpu().scheduler;
  // Larger than a quarter of the ring's maximum, so the readback is split into chunks that
  // span several batches.
  const size_t words = (size_t(40) << 20) / 4;
  voxen::Buffer buffer(vt::gpu().device, "readback into", words * 4);
  const std::vector<uint32_t> model = randomWords(words, 31);
  s.upload(buffer.range(), model.data(), words * 4);

  SECTION("waited for") {
    std::vector<uint32_t> into(words, 0u);
    voxen::ReadbackTicket ticket = s.readbackInto(buffer.range(), std::span<uint32_t>(into));
    CHECK(ticket.valid());
    s.finish();
    CHECK(ticket.ready());  // the same test of completion as Future::ready()
    ticket.wait();
    CHECK_FALSE(ticket.valid());
    requireSameWords(into, model);
    CHECK_THROWS_AS(ticket.wait(), std::logic_error);
  }
  SECTION("a part of a buffer into a part of the caller's memory") {
    std::vector<uint32_t> into(100, 0xFFFFFFFFu);
    auto ticket = s.readbackInto(buffer.range(4 * 1000, 4 * 50), std::span<uint32_t>(into).subspan(10, 50));
    ticket.wait();
    for (size_t i = 0; i < 100; ++i) CHECK(into[i] == (i >= 10 && i < 60 ? model[1000 + i - 10] : 0xFFFFFFFFu));
  }
  SECTION("the ticket destroyed unwaited: its destructor waits, so the memory is complete") {
    std::vector<uint32_t> into(words, 0u);
    { auto dropped = s.readbackInto(buffer.range(), std::span<uint32_t>(into)); }
    requireSameWords(into, model);
  }
  SECTION("a moved ticket carries the wait; assigning over one waits for it first") {
    std::vector<uint32_t> first(words, 0u), second(words, 0u);
    voxen::ReadbackTicket ticket = s.readbackInto(buffer.range(), std::span<uint32_t>(first));
    voxen::ReadbackTicket moved = std::move(ticket);
    CHECK_FALSE(ticket.valid());
    moved = s.readbackInto(buffer.range(), std::span<uint32_t>(second));
    requireSameWords(first, model);  // complete: the assignment waited for it
    moved.wait();
    requireSameWords(second, model);
  }
  SECTION("a destination of another size is refused, naming the buffer") {
    std::vector<uint32_t> small(10);
    CHECK_THROWS_WITH(s.readbackInto(buffer.range(), std::span<uint32_t>(small)),
                      Catch::Contains("readback of 'readback into' (41943040 bytes) into a destination of 40 bytes"));
    // A range that is not a whole number of elements, as readback<T> refuses it (one check).
    CHECK_THROWS_WITH(s.readbackInto(buffer.range(0, 6), std::span<uint32_t>(small).first(1)),
                      Catch::Contains("size is not a multiple of the element (4 bytes)"));
    CHECK_THROWS_WITH(s.readback<uint32_t>(buffer.range(0, 6)), Catch::Contains("size is not a multiple of the element"));
  }
}

// The scheduler is not thread-safe; its rule (scheduler.hpp) lets threads take turns under a
// lock they share, tickets included. Catch's assertions are not thread-safe either: each
// thread notes its first mismatch, checked once they joined.
TEST_CASE("Readback tickets under the scheduler's thread rule: threads taking turns read back into their own memory; "
          "a ticket waited for or dropped on another thread than its issuer's",
          "[scheduler][transfer][threads]") {
  auto& s = vt::gpu().scheduler;
  constexpr int kThreads = 4, kRounds = 12;
  const size_t words = 300007;  // a little over 1 MiB a thread, an odd number of words
  voxen::Buffer buffer(vt::gpu().device, "readback threads", kThreads * words * 4);
  const std::vector<uint32_t> model = randomWords(kThreads * words, 57);
  s.upload(buffer.range(), model.data(), model.size() * 4);
  s.finish();
  std::mutex schedulerLock;  // the callers' lock of the thread rule

  SECTION("each thread issues readbacks into its own memory and waits for them or drops them") {
    std::vector<std::string> failures(kThreads);
    auto worker = [&](int t) {
      std::vector<uint32_t> into(words);
      for (int round = 0; round < kRounds && failures[t].empty(); ++round) {
        // A different part of the thread's words each round.
        const size_t first = size_t(round) * 997, count = words - first - size_t(round) * 13;
        std::fill(into.begin(), into.end(), 0xDEADBEEFu);
        voxen::ReadbackTicket ticket;
        {
          std::lock_guard lock(schedulerLock);
          ticket = s.readbackInto(buffer.range((t * words + first) * 4, count * 4), std::span<uint32_t>(into).first(count));
          // Half the readbacks are submitted by their issuer, the others by whichever thread
          // waits next (its wait completes them too).
          if (round % 2) s.submit();
        }
        std::this_thread::yield();
        {
          std::lock_guard lock(schedulerLock);
          if (round % 3 == 2)
            ticket = voxen::ReadbackTicket();  // dropped: assigning over it waits
          else
            ticket.wait();
        }
        for (size_t i = 0; i < words; ++i) {
          const uint32_t expected = i < count ? model[t * words + first + i] : 0xDEADBEEFu;
          if (into[i] != expected) {
            failures[t] = "thread " + std::to_string(t) + ", round " + std::to_string(round) + ": word " +
                          std::to_string(i) + " is " + std::to_string(into[i]) + ", expected " + std::to_string(expected);
            break;
          }
        }
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
    for (std::thread& thread : threads) thread.join();
    for (const std::string& failure : failures) CHECK(failure == "");
  }

  SECTION("tickets issued on this thread are waited for and dropped on another while this one records more") {
    std::vector<std::vector<uint32_t>> into(kThreads, std::vector<uint32_t>(words, 0u));
    std::vector<voxen::ReadbackTicket> tickets;
    {
      std::lock_guard lock(schedulerLock);
      for (int t = 0; t < kThreads; ++t)
        tickets.push_back(s.readbackInto(buffer.range(t * words * 4, words * 4), std::span<uint32_t>(into[t])));
    }
    std::thread waiter([&] {
      for (size_t t = 0; t < tickets.size(); ++t) {
        std::lock_guard lock(schedulerLock);
        if (t % 2)
          tickets[t].wait();
        else
          tickets[t] = voxen::ReadbackTicket();
      }
    });
    std::vector<uint32_t> more(kThreads * words, 0u);
    for (int round = 0; round < 4; ++round) {
      std::lock_guard lock(schedulerLock);
      s.readbackInto(buffer.range(), std::span<uint32_t>(more)).wait();
    }
    waiter.join();
    for (const auto& ticket : tickets) CHECK_FALSE(ticket.valid());
    for (int t = 0; t < kThreads; ++t)
      requireSameWords(into[t], std::vector<uint32_t>(model.begin() + t * words, model.begin() + (t + 1) * words));
    s.finish();
  }
}
