// Work other than dispatches recorded through the scheduler (Scheduler::record): barriers
// from its declared uses, timing and logging like a pass, and binary semaphores attached
// to a submission.
#include <catch2/catch.hpp>

#include <volk.h>

#include "scheduler_log.hpp"
#include "support/gpu_fixture.hpp"
#include "support/test_helpers.hpp"
#include "voxen/host/error.hpp"
#include "voxen/gpu/selftest/selftest_push.h"

TEST_CASE("A recorded command gets barriers from its declared uses and is timed like a pass", "[scheduler][commands]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  s.finish();
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  const uint32_t n = 512;
  voxen::Buffer src(gpu.device, "command-src", n * 4);
  voxen::Buffer dst(gpu.device, "command-dst", n * 4);
  s.setRecordingLog(true);
  s.clearRecordingLog();
  s.resetProfile();
  const auto before = s.stats();
  s.dispatchThreads({.name = "command-iota", .kernel = iota, .push = voxen::gpu::FillIotaPush{src.address(), n, 3, 1},
                     .uses = {voxen::writes(src)}},
                    n);
  // The caller's own transfer: a copy the scheduler knows only by its declared uses.
  bool recorded = false;
  s.record({.name = "command-copy",
            .stages = VK_PIPELINE_STAGE_TRANSFER_BIT,
            .uses = {voxen::reads(src), voxen::writes(dst)},
            .record = [&](VkCommandBuffer cmd) {
              const VkBufferCopy region{0, 0, n * 4};
              vkCmdCopyBuffer(cmd, src.handle(), dst.handle(), 1, &region);
              recorded = true;
            }});
  CHECK(recorded);
  auto back = s.readback<uint32_t>(dst);
  const auto log = s.recordingLog();
  INFO("recording log:" << vt::dump(log));
  const auto* copy = vt::find(log, "command-copy");
  REQUIRE(copy);
  CHECK(copy->stage == VK_PIPELINE_STAGE_TRANSFER_BIT);
  REQUIRE_FALSE(copy->barrierBefore.empty());
  CHECK(vt::hasBits(copy->barrierBefore.srcStages, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT));
  CHECK(vt::hasBits(copy->barrierBefore.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
  CHECK(vt::hasBits(copy->barrierBefore.dstAccess, VK_ACCESS_TRANSFER_READ_BIT));
  // The readback after it waits for the command's write.
  CHECK_FALSE(log.back().barrierBefore.empty());
  for (const auto& problem : vt::oracleProblems(log)) FAIL(problem);

  std::vector<uint32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = 3 * i + 1;
  CHECK(back.get() == expected);
  CHECK(s.stats().commands - before.commands == 1);
  s.finish();
  REQUIRE(s.profile().passes().count("command-copy"));
  CHECK(s.profile().passes().at("command-copy").calls == 1);
  if (gpu.device.info().capabilities.timestamps) CHECK(s.profile().passes().at("command-copy").timed);
}

TEST_CASE("A recorded command must name its stages and record something", "[scheduler][commands]") {
  auto& s = vt::gpu().scheduler;
  CHECK_THAT(vt::errorOf([&] { s.record({.name = "no-stage", .record = [](VkCommandBuffer) {}}); }),
             Catch::Contains("no pipeline stage"));
  CHECK_THAT(vt::errorOf([&] { s.record({.name = "no-callback", .stages = VK_PIPELINE_STAGE_TRANSFER_BIT}); }),
             Catch::Contains("records nothing"));
  CHECK_THAT(vt::errorOf([&] {
               s.record({.name = "null-buffer", .stages = VK_PIPELINE_STAGE_TRANSFER_BIT,
                         .uses = {voxen::reads(voxen::BufferRange{})}, .record = [](VkCommandBuffer) {}});
             }),
             Catch::Contains("null buffer"));
}

TEST_CASE("Binary semaphores attached to submissions order one batch after another", "[scheduler][commands]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  s.finish();
  VkSemaphore semaphore = VK_NULL_HANDLE;
  const VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VOXEN_VK_CHECK(vkCreateSemaphore(gpu.device.handle(), &info, nullptr, &semaphore));
  voxen::Buffer buffer(gpu.device, "semaphore-target", 256);
  const auto before = s.stats();
  // A batch with nothing but the signal is still sent, so the wait below is satisfied.
  s.signalSemaphoreOnSubmit(semaphore);
  s.submit();
  s.waitSemaphoreOnSubmit(semaphore, VK_PIPELINE_STAGE_TRANSFER_BIT);
  s.fill(buffer, 9u);
  s.signalSemaphoreOnSubmit(semaphore);
  s.submit();
  s.waitSemaphoreOnSubmit(semaphore, VK_PIPELINE_STAGE_TRANSFER_BIT);
  CHECK(vt::readBack<uint32_t>(s, buffer) == std::vector<uint32_t>(64, 9u));
  CHECK(s.stats().submissions - before.submissions == 3);
  s.finish();
  vkDestroySemaphore(gpu.device.handle(), semaphore, nullptr);
  CHECK_THROWS_AS(s.signalSemaphoreOnSubmit(VK_NULL_HANDLE), voxen::Error);
  CHECK_THROWS_AS(s.waitSemaphoreOnSubmit(semaphore, 0), voxen::Error);
}
