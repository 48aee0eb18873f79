// Dispatches sized on the GPU: one pass writes the workgroup counts, an indirect dispatch
// reads them, and the scheduler places the indirect-command barrier between the two.
#include <catch2/catch.hpp>

#include <numeric>

#include "scheduler_log.hpp"
#include "support/gpu_fixture.hpp"
#include "support/test_helpers.hpp"
#include "voxen/gpu/selftest/selftest_push.h"

namespace {

constexpr VkPipelineStageFlags kCompute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags kIndirect = VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;

}  // namespace

TEST_CASE("dispatchIndirect runs the workgroup counts an earlier pass wrote", "[scheduler][indirect]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  s.finish();
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  const auto* bounded = vt::kernel("selftest/bounded_sum.comp");
  const uint32_t n = 1000;
  voxen::Buffer src(gpu.device, "indirect-src", n * 4);
  voxen::Buffer total(gpu.device, "indirect-total", 8);
  // The counts sit at byte 16 of a buffer whose bytes 32..63 another pass writes meanwhile.
  voxen::Buffer args(gpu.device, "indirect-args", 64);
  const voxen::BufferRange counts = args.range(16, 12);
  const voxen::BufferRange neighbour = args.range(32, 32);

  s.setRecordingLog(true);
  s.clearRecordingLog();
  s.resetProfile();
  const auto before = s.stats();
  s.fill(total, 0u);
  s.dispatchThreads({.name = "indirect-iota-src", .kernel = iota, .push = voxen::gpu::FillIotaPush{src.address(), n, 1, 0},
                     .uses = {voxen::writes(src)}},
                    n);
  // The counts, computed on the GPU: (2, 3, 4) = i + 2 for i < 3.
  s.dispatchThreads({.name = "indirect-write-counts", .kernel = iota,
                     .push = voxen::gpu::FillIotaPush{counts.address, 3, 1, 2}, .uses = {voxen::writes(counts)}},
                    3);
  s.dispatchThreads({.name = "indirect-write-neighbour", .kernel = iota,
                     .push = voxen::gpu::FillIotaPush{neighbour.address, 8, 0, 77}, .uses = {voxen::writes(neighbour)}},
                    8);
  // Each invocation adds src[voxenThreadIndex()]: x and y index the 2 * 64 x 3 = 384 first
  // values, and z = 4 runs each of them four times.
  s.dispatchIndirect({.name = "indirect-sum", .kernel = bounded,
                      .push = voxen::gpu::BoundedSumPush{src.address(), total.address(), n, 1},
                      .uses = {voxen::reads(src), voxen::readsWrites(total)}},
                     counts);
  auto totalBack = s.readback<uint64_t>(total);
  auto argsBack = s.readback<uint32_t>(args.range(16, 48));
  const auto log = s.recordingLog();
  INFO("recording log:" << vt::dump(log));

  const auto argValues = argsBack.get();
  REQUIRE(argValues.size() == 12);
  CHECK(std::vector<uint32_t>(argValues.begin(), argValues.begin() + 3) == std::vector<uint32_t>{2, 3, 4});
  for (size_t i = 4; i < 12; ++i) CHECK(argValues[i] == 77);
  // The CPU reference, from the counts the GPU wrote.
  const uint64_t threadsXY = uint64_t(argValues[0]) * 64 * argValues[1];
  uint64_t expected = 0;
  for (uint64_t i = 0; i < std::min<uint64_t>(threadsXY, n); ++i) expected += i;
  expected *= argValues[2];
  CHECK(totalBack.get().at(0) == expected);
  CHECK(expected == 4 * (383 * 384 / 2));

  // The counts' writer and its neighbour touch disjoint bytes of one buffer: no barrier.
  const auto* neighbourPass = vt::find(log, "indirect-write-neighbour");
  REQUIRE(neighbourPass);
  CHECK(neighbourPass->barrierBefore.empty());
  // The indirect dispatch waits for the counts as indirect-command reads.
  const auto* indirect = vt::find(log, "indirect-sum");
  REQUIRE(indirect);
  CHECK(indirect->stage == (kCompute | kIndirect));
  const voxen::Barrier& b = indirect->barrierBefore;
  REQUIRE_FALSE(b.empty());
  CHECK(vt::hasBits(b.srcStages, kCompute));
  CHECK(vt::hasBits(b.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
  CHECK(vt::hasBits(b.dstStages, kIndirect));
  CHECK(vt::hasBits(b.dstAccess, VK_ACCESS_INDIRECT_COMMAND_READ_BIT));
  bool readsCounts = false;
  for (const auto& a : indirect->accesses)
    readsCounts |= a.resource == uint64_t(args.handle()) && a.offset == 16 && a.size == 12 && a.read && !a.write;
  CHECK(readsCounts);
  for (const auto& problem : vt::oracleProblems(log)) FAIL(problem);

  CHECK(s.stats().dispatches - before.dispatches == 4);
  CHECK(s.stats().indirectDispatches - before.indirectDispatches == 1);
  s.finish();
  REQUIRE(s.profile().passes().count("indirect-sum"));
  CHECK(s.profile().passes().at("indirect-sum").calls == 1);
  if (gpu.device.info().capabilities.timestamps) CHECK(s.profile().passes().at("indirect-sum").timed);
}

TEST_CASE("dispatchIndirect with zero groups runs nothing", "[scheduler][indirect]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  voxen::Buffer target(gpu.device, "indirect-zero-target", 256);
  voxen::Buffer args(gpu.device, "indirect-zero-args", 12);
  const uint32_t counts[3] = {0, 1, 1};
  s.fill(target, 5u);
  s.upload(args.range(), counts, sizeof(counts));
  s.dispatchIndirect({.name = "indirect-zero", .kernel = iota, .push = voxen::gpu::FillIotaPush{target.address(), 64, 1, 0},
                      .uses = {voxen::writes(target)}},
                     args);
  CHECK(vt::readBack<uint32_t>(s, target) == std::vector<uint32_t>(64, 5u));
}

TEST_CASE("dispatchIndirect rejects misplaced arguments", "[scheduler][indirect]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  voxen::Buffer args(gpu.device, "indirect-bad-args", 64);
  const auto before = s.stats();
  const voxen::Pass pass{.name = "indirect-bad", .kernel = iota};
  CHECK_THAT(vt::errorOf([&] { s.dispatchIndirect(pass, args.range(2, 12)); }), Catch::Contains("4-byte aligned"));
  CHECK_THAT(vt::errorOf([&] { s.dispatchIndirect(pass, args.range(0, 8)); }), Catch::Contains("12 bytes"));
  CHECK_THAT(vt::errorOf([&] { s.dispatchIndirect(pass, voxen::BufferRange{}); }), Catch::Contains("no argument buffer"));
  CHECK(s.stats().dispatches == before.dispatches);
}
