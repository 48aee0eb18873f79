// The staging ring's space management, without Vulkan.
#include <catch2/catch.hpp>

#include <deque>
#include <optional>

#include "support/gpu_fixture.hpp"  // vt::Rng
#include "voxen/host/error.hpp"
#include "voxen/host/ring_allocator.hpp"

using voxen::RingAllocator;

TEST_CASE("RingAllocator places allocations one after another, aligned", "[ring][logic]") {
  RingAllocator ring(1024);
  CHECK(ring.empty());
  CHECK(ring.capacity() == 1024);
  CHECK(ring.allocate(100, 1, 1) == std::optional<uint64_t>(0));
  CHECK(ring.allocate(100, 64, 1) == std::optional<uint64_t>(128));
  CHECK(ring.allocate(10, 256, 2) == std::optional<uint64_t>(256));
  CHECK(ring.allocate(1, 1, 2) == std::optional<uint64_t>(266));
  CHECK_FALSE(ring.empty());
  CHECK(ring.used() >= 100 + 100 + 10 + 1);
  CHECK(ring.used() <= 267);
  CHECK(ring.oldestTag() == 1);
}

TEST_CASE("RingAllocator wraps around and pads the end of the ring", "[ring][logic]") {
  RingAllocator ring(1000);
  REQUIRE(ring.allocate(400, 1, 1) == std::optional<uint64_t>(0));
  REQUIRE(ring.allocate(400, 1, 2) == std::optional<uint64_t>(400));
  CHECK(ring.used() == 800);
  // 300 bytes do not fit in [800, 1000) and [0, 400) is still in use.
  CHECK_FALSE(ring.allocate(300, 1, 3).has_value());
  ring.release(1);
  CHECK(ring.used() == 400);
  // Now they go to the start; [800, 1000) becomes padding owned by this allocation.
  REQUIRE(ring.allocate(300, 1, 3) == std::optional<uint64_t>(0));
  CHECK(ring.used() == 400 + 200 + 300);
  ring.release(2);
  CHECK(ring.used() == 500);  // the padding is still held: it belongs to tag 3
  // [300, 800) is free: exactly 500 bytes.
  REQUIRE(ring.allocate(500, 1, 4) == std::optional<uint64_t>(300));
  CHECK(ring.used() == 1000);
  CHECK_FALSE(ring.allocate(1, 1, 4).has_value());
  ring.release(3);  // returns [0, 300) and the padding [800, 1000)
  CHECK(ring.used() == 500);
  REQUIRE(ring.allocate(200, 1, 5) == std::optional<uint64_t>(800));  // the end of the ring again
  REQUIRE(ring.allocate(300, 1, 5) == std::optional<uint64_t>(0));    // then wraps without padding
  CHECK(ring.used() == 1000);
  CHECK_FALSE(ring.allocate(1, 1, 5).has_value());
  ring.release(5);
  CHECK(ring.empty());
  CHECK(ring.used() == 0);
  CHECK(ring.allocate(1000, 1, 6) == std::optional<uint64_t>(0));
}

TEST_CASE("RingAllocator alignment padding at the end forces a wrap", "[ring][logic]") {
  RingAllocator ring(1024);
  REQUIRE(ring.allocate(600, 1, 1) == std::optional<uint64_t>(0));
  REQUIRE(ring.allocate(100, 1, 2) == std::optional<uint64_t>(600));
  ring.release(1);
  // head is 700; aligned to 512 it would be 1024, past the end: the allocation wraps to 0.
  const auto offset = ring.allocate(64, 512, 3);
  REQUIRE(offset.has_value());
  CHECK(*offset == 0);
  ring.release(3);
  CHECK(ring.empty());
}

TEST_CASE("RingAllocator releases by tag, oldest first", "[ring][logic]") {
  RingAllocator ring(4096);
  REQUIRE(ring.allocate(100, 1, 1).has_value());
  REQUIRE(ring.allocate(200, 1, 2).has_value());
  REQUIRE(ring.allocate(300, 1, 2).has_value());
  REQUIRE(ring.allocate(400, 1, 7).has_value());
  CHECK(ring.used() == 1000);
  ring.release(0);
  CHECK(ring.used() == 1000);
  CHECK(ring.oldestTag() == 1);
  ring.release(1);
  CHECK(ring.used() == 900);
  CHECK(ring.oldestTag() == 2);
  ring.release(6);
  CHECK(ring.used() == 400);
  CHECK(ring.oldestTag() == 7);
  ring.release(7);
  CHECK(ring.empty());
  CHECK(ring.used() == 0);
}

TEST_CASE("RingAllocator reports a full ring and rejects oversized requests", "[ring][logic]") {
  RingAllocator ring(256);
  REQUIRE(ring.allocate(256, 1, 1) == std::optional<uint64_t>(0));
  CHECK_FALSE(ring.allocate(1, 1, 1).has_value());
  CHECK_FALSE(ring.allocate(1, 1, 2).has_value());
  ring.release(1);
  CHECK(ring.allocate(256, 16, 2) == std::optional<uint64_t>(0));
  CHECK_THROWS_AS(ring.allocate(257, 1, 3), voxen::Error);
  CHECK_THROWS_AS(RingAllocator(4).allocate(5, 1, 1), voxen::Error);
}

TEST_CASE("RingAllocator never hands out overlapping, misaligned or out-of-range space (random model)",
          "[ring][logic]") {
  struct Live {
    uint64_t offset, size, tag;
  };
  uint64_t wraps = 0, fulls = 0, successes = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    vt::Rng rng(seed);
    const uint64_t capacity = rng.range(64, 8192);
    RingAllocator ring(capacity);
    std::deque<Live> live;  // the reference: what the GPU may still be using
    uint64_t tag = 1, completed = 0;
    std::optional<uint64_t> lastOffset;
    for (int step = 0; step < 3000; ++step) {
      INFO("seed " << seed << " capacity " << capacity << " step " << step);
      const auto op = rng.range(0, 99);
      if (op < 65) {
        const uint64_t alignments[] = {1, 4, 16, 64, 256};
        const uint64_t alignment = alignments[rng.range(0, 4)];
        const uint64_t size = rng.chance(5) ? rng.range(1, capacity) : rng.range(1, std::max<uint64_t>(1, capacity / 6));
        const auto offset = ring.allocate(size, alignment, tag);
        if (!offset) {
          ++fulls;
          // A ring with nothing in flight must satisfy any request that fits.
          REQUIRE_FALSE(live.empty());
          continue;
        }
        ++successes;
        REQUIRE(*offset % alignment == 0);
        REQUIRE(*offset + size <= capacity);
        for (const Live& other : live) {
          const bool disjoint = *offset + size <= other.offset || other.offset + other.size <= *offset;
          INFO("new [" << *offset << ", " << *offset + size << ") vs live [" << other.offset << ", "
                       << other.offset + other.size << ") tag " << other.tag);
          REQUIRE(disjoint);
        }
        if (lastOffset && *offset < *lastOffset) ++wraps;
        lastOffset = *offset;
        live.push_back({*offset, size, tag});
        uint64_t liveBytes = 0;
        for (const Live& l : live) liveBytes += l.size;
        REQUIRE(ring.used() >= liveBytes);
        REQUIRE(ring.used() <= capacity);
      } else if (op < 85) {
        ++tag;  // a new submission
      } else {
        // Some submissions complete (never the one still being recorded).
        completed = std::min<uint64_t>(tag - 1, completed + rng.range(1, 3));
        ring.release(completed);
        while (!live.empty() && live.front().tag <= completed) live.pop_front();
        REQUIRE(ring.empty() == live.empty());
        if (live.empty()) REQUIRE(ring.used() == 0);
        if (!live.empty()) REQUIRE(ring.oldestTag() == live.front().tag);
      }
    }
  }
  // The model must really have exercised wrap-around and a full ring.
  CHECK(wraps > 1000);
  CHECK(fulls > 100);
  CHECK(successes > 10000);
}
