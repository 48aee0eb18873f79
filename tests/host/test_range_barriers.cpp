// Barriers per byte range: passes on disjoint parts of one buffer run without a barrier
// between them; overlapping parts still get one. Results and the recording log together.
#include <catch2/catch.hpp>

#include "scheduler_log.hpp"
#include "support/gpu_fixture.hpp"
#include "voxen/gpu/selftest/selftest_push.h"

TEST_CASE("Passes on disjoint ranges of one buffer get no barrier, overlapping ones do", "[scheduler][ranges]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  s.finish();
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  const auto* bounded = vt::kernel("selftest/bounded_sum.comp");
  voxen::Buffer data(gpu.device, "ranges-data", 4096);  // 1024 uint32
  voxen::Buffer totals(gpu.device, "ranges-totals", 16);
  auto writeIota = [&](const char* name, uint32_t firstWord, uint32_t words, uint32_t scale, uint32_t offset) {
    const voxen::BufferRange range = data.range(firstWord * 4, words * 4);
    s.dispatchThreads({.name = name, .kernel = iota, .push = voxen::gpu::FillIotaPush{range.address, words, scale, offset},
                       .uses = {voxen::writes(range)}},
                      words);
  };
  auto sum = [&](const char* name, uint32_t firstWord, uint32_t words, uint32_t slot) {
    const voxen::BufferRange range = data.range(firstWord * 4, words * 4);
    const voxen::BufferRange total = totals.range(slot * 8, 8);
    s.dispatchThreads({.name = name, .kernel = bounded, .push = voxen::gpu::BoundedSumPush{range.address, total.address, words, 1},
                       .uses = {voxen::reads(range), voxen::readsWrites(total)}},
                      words);
  };

  s.setRecordingLog(true);
  s.clearRecordingLog();
  s.fill(totals, 0u);
  writeIota("ranges-w0", 0, 256, 1, 0);        // words [0, 256)
  writeIota("ranges-w1", 256, 256, 1, 1000);   // [256, 512): disjoint from w0
  sum("ranges-sum-both", 128, 256, 0);         // [128, 384): overlaps both writes
  writeIota("ranges-w2", 512, 256, 1, 5000);   // [512, 768): disjoint from everything so far
  writeIota("ranges-w3", 350, 50, 0, 7);       // [350, 400): partly over what sum-both reads
  sum("ranges-sum-w2", 512, 256, 1);           // reads w2, whose write no barrier published yet
  auto totalsBack = s.readback<uint64_t>(totals);
  auto dataBack = s.readback<uint32_t>(data.range(0, 768 * 4));
  const auto log = s.recordingLog();
  INFO("recording log:" << vt::dump(log));

  auto barrierBefore = [&](const char* name) {
    const auto* command = vt::find(log, name);
    REQUIRE(command);
    return command->barrierBefore;
  };
  CHECK(barrierBefore("ranges-w0").empty());
  CHECK(barrierBefore("ranges-w1").empty());
  const voxen::Barrier both = barrierBefore("ranges-sum-both");  // read-after-write of two ranges
  REQUIRE_FALSE(both.empty());
  CHECK(vt::hasBits(both.srcAccess, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT));  // iota and the fill
  CHECK(barrierBefore("ranges-w2").empty());
  const voxen::Barrier war = barrierBefore("ranges-w3");  // write-after-read on a partial overlap
  REQUIRE_FALSE(war.empty());
  CHECK(vt::hasBits(war.srcStages, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT));
  CHECK_FALSE(barrierBefore("ranges-sum-w2").empty());
  for (const auto& problem : vt::oracleProblems(log)) FAIL(problem);

  // The CPU reference: the sum saw w0 and w1, not w3, which ran after it.
  std::vector<uint32_t> expected(768);
  for (uint32_t i = 0; i < 256; ++i) expected[i] = i, expected[256 + i] = 1000 + i, expected[512 + i] = 5000 + i;
  uint64_t expectedBoth = 0, expectedW2 = 0;
  for (uint32_t i = 128; i < 384; ++i) expectedBoth += expected[i];
  for (uint32_t i = 512; i < 768; ++i) expectedW2 += expected[i];
  for (uint32_t i = 350; i < 400; ++i) expected[i] = 7;
  CHECK(totalsBack.get() == std::vector<uint64_t>{expectedBoth, expectedW2});
  CHECK(dataBack.get() == expected);
}

TEST_CASE("Uploads and readbacks of disjoint ranges need no barrier between them", "[scheduler][ranges]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  s.finish();
  voxen::Buffer buffer(gpu.device, "ranges-transfers", 1024);
  s.setRecordingLog(true);
  s.clearRecordingLog();
  const std::vector<uint32_t> first(64, 1), second(64, 2);
  s.upload(buffer.range(0, 256), first.data(), 256);
  s.upload(buffer.range(256, 256), second.data(), 256);  // disjoint: no write-after-write
  s.fill(buffer.range(512, 512), 3u);
  auto back = s.readback<uint32_t>(buffer.range(0, 512));  // waits for both uploads, not the fill's bytes
  const auto log = s.recordingLog();
  INFO("recording log:" << vt::dump(log));
  REQUIRE(log.size() == 4);
  CHECK(log[1].barrierBefore.empty());
  CHECK(log[2].barrierBefore.empty());
  CHECK_FALSE(log[3].barrierBefore.empty());
  for (const auto& problem : vt::oracleProblems(log)) FAIL(problem);
  std::vector<uint32_t> expected(first);
  expected.insert(expected.end(), second.begin(), second.end());
  CHECK(back.get() == expected);
}
