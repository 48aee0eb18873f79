// Large host copies split over threads (the staging ring's copies in and out).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "voxen/host/parallel_copy.hpp"
#include "voxen/host/thread_start.hpp"

namespace {

std::vector<std::byte> pattern(size_t n, unsigned seed) {
  std::vector<std::byte> bytes(n);
  uint32_t state = seed * 2654435761u + 1u;
  for (auto& b : bytes) {
    state = state * 1664525u + 1013904223u;
    b = std::byte(state >> 24);
  }
  return bytes;
}

// The first byte where the two differ (their size when none): Catch would print megabytes.
size_t firstDifference(const std::byte* a, const std::byte* b, size_t n) {
  return size_t(std::mismatch(a, a + n, b).first - a);
}

}  // namespace

TEST_CASE("parallelCopy copies every byte, for any size and thread count", "[scheduler][transfer][parallel-copy]") {
  // Sizes below the threshold, at it, and odd sizes above it whose parts end mid-page.
  for (size_t bytes : {size_t(0), size_t(1), size_t(4095), voxen::kParallelCopyMinBytes - 1, voxen::kParallelCopyMinBytes,
                       voxen::kParallelCopyMinBytes * 3 + 12345}) {
    const std::vector<std::byte> source = pattern(bytes, unsigned(bytes % 97));
    for (unsigned threads : {0u, 1u, 2u, 3u, 7u}) {
      std::vector<std::byte> destination(bytes + 2, std::byte{0x5A});
      voxen::parallelCopy(destination.data() + 1, source.data(), bytes, threads);
      INFO(bytes << " bytes on " << threads << " threads");
      CHECK(destination.front() == std::byte{0x5A});
      CHECK(destination.back() == std::byte{0x5A});  // nothing written past the end
      CHECK(firstDifference(destination.data() + 1, source.data(), bytes) == bytes);
    }
  }
}

TEST_CASE("parallelCopy finishes the copy on the calling thread when the system refuses threads",
          "[scheduler][transfer][parallel-copy]") {
  const size_t bytes = voxen::kParallelCopyMinBytes * 2 + 1;
  const std::vector<std::byte> source = pattern(bytes, 3);
  std::vector<std::byte> destination(bytes);
  voxen::detail::setThreadStartLimitForTesting(1);  // one of the three helpers starts
  voxen::parallelCopy(destination.data(), source.data(), bytes, 4);
  voxen::detail::setThreadStartLimitForTesting(std::nullopt);
  CHECK(firstDifference(destination.data(), source.data(), bytes) == bytes);
}
