// StreamedInput: per-batch inputs written straight into host-visible device memory (or
// through the staging ring), reused only after the batch that read them completed.
#include <catch2/catch.hpp>

#include "support/gpu_fixture.hpp"
#include "voxen/gpu/selftest/selftest_push.h"
#include "voxen/host/streamed_input.hpp"

namespace {

// Runs `batches` batches; batch b writes n_b floats valued (b + 1) * (i % 7) through the
// input and sums them on the GPU into totals[b]. With only two buffers and one submission
// per batch, every third write lands in a buffer a submitted batch may still be reading:
// writing the 0.8 MB takes the host far less time than the GPU takes to sum them, so
// without the wait for that batch the sums come out wrong. One batch outgrows the buffer.
std::vector<uint64_t> sumBatches(voxen::StreamedInput::Path path, uint32_t batches, std::vector<uint64_t>& expected,
                                 bool& direct) {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  const auto* sum = vt::kernel("selftest/sum_u64.comp");
  const uint32_t usual = 200000, larger = 300000;
  voxen::StreamedInput input(s, "streamed test input", usual * 4, 2, path);
  voxen::Buffer totals(gpu.device, "streamed test totals", batches * 8ull);
  s.fill(totals, 0u);
  expected.assign(batches, 0);
  for (uint32_t b = 0; b < batches; ++b) {
    const uint32_t n = b == 5 ? larger : usual - 13 * b;
    std::vector<float> values(n);
    for (uint32_t i = 0; i < n; ++i) {
      values[i] = float((b + 1) * (i % 7));
      expected[b] += (b + 1) * (i % 7);
    }
    const voxen::BufferRange range = input.write(values.data(), values.size() * 4);
    const auto total = totals.range(b * 8ull, 8);
    s.dispatchThreads({.name = "streamed-sum", .kernel = sum, .push = voxen::gpu::SumU64Push{range.address, total.address, n},
                       .uses = {voxen::reads(range), voxen::readsWrites(total)}},
                      n);
    input.submitted(s.submit());
  }
  direct = input.direct();
  return s.readback<uint64_t>(totals.range()).get();
}

}  // namespace

TEST_CASE("StreamedInput hands every batch its own data, written directly where memory allows", "[scheduler][streamed]") {
  std::vector<uint64_t> expected;
  bool direct = false;
  const auto totals = sumBatches(voxen::StreamedInput::Path::Auto, 12, expected, direct);
  CHECK(totals == expected);
  // lavapipe's device memory is host-visible and coherent, so the direct path is the one
  // under test there; other devices may take either.
  if (vt::gpu().device.info().isLavapipe()) CHECK(direct);
}

TEST_CASE("StreamedInput through the staging ring gives the same results", "[scheduler][streamed]") {
  std::vector<uint64_t> expected;
  bool direct = true;
  const auto totals = sumBatches(voxen::StreamedInput::Path::StagingRing, 12, expected, direct);
  CHECK_FALSE(direct);
  CHECK(totals == expected);
}

TEST_CASE("StreamedInput refuses end() without begin() and writes past what was begun", "[scheduler][streamed]") {
  voxen::StreamedInput input(vt::gpu().scheduler, "streamed misuse", 1024, 2);
  CHECK_THROWS_WITH(input.end(16), Catch::Contains("end() without begin()"));
  input.begin(64);
  CHECK_THROWS_WITH(input.begin(64), Catch::Contains("begin() twice"));
  CHECK_THROWS_WITH(input.end(65), Catch::Contains("65 bytes written past the 64 begun"));
}

TEST_CASE("StreamedInput grown while being written keeps what was written", "[scheduler][streamed]") {
  // A producer that does not know its size starts small and grows mid-write (the occupancy
  // ray batches): the GPU must see every value written before and after the growth.
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  const auto* sum = vt::kernel("selftest/sum_u64.comp");
  const auto path = GENERATE(voxen::StreamedInput::Path::Auto, voxen::StreamedInput::Path::StagingRing);
  voxen::StreamedInput input(s, "grown test input", 1024, 2, path);
  voxen::Buffer totalBuffer(gpu.device, "grown test total", 8);
  const voxen::BufferRange total = totalBuffer.range();
  s.fill(total, 0u);
  const uint32_t first = 256, n = 100000;  // 1 KiB begun, then grown twice
  uint64_t expected = 0;
  auto* values = reinterpret_cast<float*>(input.begin(first * 4));
  for (uint32_t i = 0; i < first; ++i) values[i] = float(i % 11), expected += i % 11;
  values = reinterpret_cast<float*>(input.grow(4096 * 4, first * 4));
  for (uint32_t i = first; i < 4096; ++i) values[i] = float(i % 11), expected += i % 11;
  values = reinterpret_cast<float*>(input.grow(n * 4, 4096 * 4));
  for (uint32_t i = 4096; i < n; ++i) values[i] = float(i % 11), expected += i % 11;
  const voxen::BufferRange range = input.end(n * 4);
  CHECK(range.size == n * 4);
  s.dispatchThreads({.name = "streamed-sum", .kernel = sum, .push = voxen::gpu::SumU64Push{range.address, total.address, n},
                     .uses = {voxen::reads(range), voxen::readsWrites(total)}},
                    n);
  input.submitted(s.submit());
  CHECK(s.readback<uint64_t>(total).get() == std::vector<uint64_t>{expected});
  // Growing outside begin() ... end() is a usage error, not a silent write.
  CHECK_THROWS_WITH(input.grow(8, 0), Catch::Contains("grow() without begin()"));
}
