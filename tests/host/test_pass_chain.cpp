// Dependent passes whose result is only right when the derived barriers are right, and the
// barrier placement the scheduler logs for them.
#include <catch2/catch.hpp>

#include <bit>

#include "support/gpu_fixture.hpp"
#include "support/hazard_oracle.hpp"
#include "scheduler_log.hpp"
#include "voxen/gpu/selftest/selftest_push.h"
#include "voxen/host/error.hpp"

namespace {

constexpr VkPipelineStageFlags kCompute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;

using vt::dump;
using vt::find;
using vt::hasBits;
using vt::oracleView;

}  // namespace

TEST_CASE("fill_iota -> saxpy -> sum_u64 chains match the CPU reference", "[scheduler][passes]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  s.finish();
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  const auto* saxpy = vt::kernel("selftest/saxpy.comp");
  const auto* sum = vt::kernel("selftest/sum_u64.comp");

  const uint32_t n = 10007;  // not a multiple of the workgroup or subgroup size
  struct Params {
    uint32_t scale, offset;
    float a, y0;
  };
  const std::vector<Params> reps = {{1, 0, 2.0f, 1.0f}, {3, 17, 3.0f, 0.0f}, {2, 5, 1.0f, 7.0f}, {1, 1000, 4.0f, 2.0f}, {0, 9, 5.0f, 3.0f}};
  voxen::Buffer x(gpu.device, "chain-x", n * 4);
  voxen::Buffer y(gpu.device, "chain-y", n * 4);
  voxen::Buffer totals(gpu.device, "chain-totals", reps.size() * 8);

  s.setRecordingLog(true);
  s.clearRecordingLog();
  s.resetProfile();
  const auto before = s.stats();

  s.fill(totals, 0u);
  for (size_t r = 0; r < reps.size(); ++r) {
    const Params& p = reps[r];
    s.fill(y, std::bit_cast<uint32_t>(p.y0));
    s.dispatchThreads({.name = "chain-iota", .kernel = iota, .push = voxen::gpu::FillIotaPush{x.address(), n, p.scale, p.offset},
                       .uses = {voxen::writes(x)}},
                      n);
    s.dispatchThreads({.name = "chain-saxpy", .kernel = saxpy, .push = voxen::gpu::SaxpyPush{x.address(), y.address(), n, p.a},
                       .uses = {voxen::reads(x), voxen::readsWrites(y)}},
                      n);
    const auto total = totals.range(r * 8, 8);
    s.dispatchThreads({.name = "chain-sum", .kernel = sum, .push = voxen::gpu::SumU64Push{y.address(), total.address, n},
                       .uses = {voxen::reads(y), voxen::readsWrites(total)}},
                      n);
  }
  auto totalsBack = s.readback<uint64_t>(totals);
  auto yBack = s.readback<float>(y);
  auto xBack = s.readback<uint32_t>(x);
  const auto log = s.recordingLog();
  // Nothing was submitted in between: the whole chain is one batch.
  CHECK(s.stats().submissions == before.submissions);
  CHECK(s.stats().dispatches - before.dispatches == 3 * reps.size());

  // The CPU reference. All values are integers below 2^24, so float arithmetic is exact.
  std::vector<uint64_t> expectedTotals;
  std::vector<uint32_t> expectedX(n);
  std::vector<float> expectedY(n);
  for (const Params& p : reps) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; ++i) {
      expectedX[i] = i * p.scale + p.offset;
      expectedY[i] = p.a * float(expectedX[i]) + p.y0;
      total += uint64_t(uint32_t(expectedY[i]));
    }
    expectedTotals.push_back(total);
  }
  CHECK(totalsBack.get() == expectedTotals);
  CHECK(xBack.get() == expectedX);
  CHECK(yBack.get() == expectedY);

  // Barrier placement: every hazard in the log is covered by a barrier of the right kind.
  INFO("recording log:" << dump(log));
  const auto commands = oracleView(log);
  for (const auto& problem : vt::checkDirectBarriers(commands)) FAIL(problem);
  for (const auto& problem : vt::checkChains(commands)) FAIL(problem);
  // Every saxpy and sum runs right after its producer: a compute->compute barrier that
  // publishes shader writes must sit directly before it.
  size_t barriersInLog = 0;
  for (size_t i = 0; i < log.size(); ++i) {
    const auto& c = log[i];
    if (!c.barrierBefore.empty()) ++barriersInLog;
    if (c.name == "chain-saxpy" || c.name == "chain-sum") {
      INFO("command #" << i << " " << c.name);
      REQUIRE_FALSE(c.barrierBefore.empty());
      CHECK(hasBits(c.barrierBefore.srcStages, kCompute));
      CHECK(hasBits(c.barrierBefore.dstStages, kCompute));
      CHECK(hasBits(c.barrierBefore.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
      CHECK(hasBits(c.barrierBefore.dstAccess, VK_ACCESS_SHADER_READ_BIT));
    }
  }
  // The first iota writes a buffer nothing in this batch touched: no barrier.
  size_t firstIota = 0;
  REQUIRE(find(log, "chain-iota", &firstIota));
  CHECK(log[firstIota].barrierBefore.empty());
  CHECK(s.stats().barriers - before.barriers == barriersInLog);

  // Every pass was named in the profile, and timed where the device has timestamps.
  s.finish();
  const auto& passes = s.profile().passes();
  for (const char* name : {"chain-iota", "chain-saxpy", "chain-sum"}) {
    INFO(name);
    REQUIRE(passes.count(name));
    CHECK(passes.at(name).calls == reps.size());
    if (gpu.device.info().capabilities.timestamps) {
      CHECK(passes.at(name).timed);
      CHECK(passes.at(name).totalMs >= 0.0);
    }
  }
}

TEST_CASE("Independent passes get no barrier, dependent ones do", "[scheduler][passes]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  s.finish();
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  const auto* saxpy = vt::kernel("selftest/saxpy.comp");
  const uint32_t n = 1000;
  voxen::Buffer a(gpu.device, "indep-a", n * 4);
  voxen::Buffer b(gpu.device, "indep-b", n * 4);
  voxen::Buffer c(gpu.device, "indep-c", n * 4);
  voxen::Buffer y1(gpu.device, "indep-y1", n * 4);
  voxen::Buffer y2(gpu.device, "indep-y2", n * 4);

  s.setRecordingLog(true);
  s.clearRecordingLog();
  s.fill(y1, std::bit_cast<uint32_t>(1.0f));
  s.fill(y2, std::bit_cast<uint32_t>(2.0f));
  auto fillIota = [&](const char* name, voxen::Buffer& dst, uint32_t scale) {
    s.dispatchThreads({.name = name, .kernel = iota, .push = voxen::gpu::FillIotaPush{dst.address(), n, scale, 0}, .uses = {voxen::writes(dst)}}, n);
  };
  fillIota("iota-a", a, 1);
  fillIota("iota-b", b, 2);
  fillIota("iota-c", c, 3);
  s.dispatchThreads({.name = "saxpy-a-y1", .kernel = saxpy, .push = voxen::gpu::SaxpyPush{a.address(), y1.address(), n, 2.0f},
                     .uses = {voxen::reads(a), voxen::readsWrites(y1)}},
                    n);
  s.dispatchThreads({.name = "saxpy-b-y2", .kernel = saxpy, .push = voxen::gpu::SaxpyPush{b.address(), y2.address(), n, 3.0f},
                     .uses = {voxen::reads(b), voxen::readsWrites(y2)}},
                    n);
  // Overwrite a while nothing reads it any more except the finished saxpy: write-after-read.
  fillIota("iota-a-again", a, 5);
  auto aBack = s.readback<uint32_t>(a);
  auto y1Back = s.readback<float>(y1);
  auto y2Back = s.readback<float>(y2);
  auto cBack = s.readback<uint32_t>(c);
  const auto log = s.recordingLog();
  INFO("recording log:" << dump(log));

  for (const char* name : {"iota-a", "iota-b", "iota-c"}) {
    const auto* command = find(log, name);
    REQUIRE(command);
    INFO(name);
    CHECK(command->barrierBefore.empty());
    CHECK(command->stage == kCompute);
  }
  const auto* first = find(log, "saxpy-a-y1");
  REQUIRE(first);
  REQUIRE_FALSE(first->barrierBefore.empty());
  CHECK(hasBits(first->barrierBefore.srcStages, kCompute | VK_PIPELINE_STAGE_TRANSFER_BIT));  // iota and fill
  CHECK(hasBits(first->barrierBefore.srcAccess, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT));
  CHECK(hasBits(first->barrierBefore.dstStages, kCompute));
  const auto commands = oracleView(log);
  for (const auto& problem : vt::checkDirectBarriers(commands)) FAIL(problem);
  for (const auto& problem : vt::checkChains(commands)) FAIL(problem);
  for (const auto& problem : vt::checkNoSpuriousBarriers(commands)) FAIL(problem);

  std::vector<uint32_t> expectedA(n), expectedC(n);
  std::vector<float> expectedY1(n), expectedY2(n);
  for (uint32_t i = 0; i < n; ++i) {
    expectedA[i] = 5 * i;
    expectedC[i] = 3 * i;
    expectedY1[i] = 2.0f * float(i) + 1.0f;
    expectedY2[i] = 3.0f * float(2 * i) + 2.0f;
  }
  CHECK(aBack.get() == expectedA);
  CHECK(cBack.get() == expectedC);
  CHECK(y1Back.get() == expectedY1);
  CHECK(y2Back.get() == expectedY2);
}

TEST_CASE("Readers of the same data need one barrier, not one each", "[scheduler][passes]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  s.finish();
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  const auto* saxpy = vt::kernel("selftest/saxpy.comp");
  const uint32_t n = 512;
  voxen::Buffer x(gpu.device, "rar-x", n * 4);
  voxen::Buffer y1(gpu.device, "rar-y1", n * 4);
  voxen::Buffer y2(gpu.device, "rar-y2", n * 4);
  s.setRecordingLog(true);
  s.clearRecordingLog();
  s.dispatchThreads({.name = "rar-iota-y1", .kernel = iota, .push = voxen::gpu::FillIotaPush{y1.address(), n, 0, 0}, .uses = {voxen::writes(y1)}}, n);
  s.dispatchThreads({.name = "rar-iota-y2", .kernel = iota, .push = voxen::gpu::FillIotaPush{y2.address(), n, 0, 0}, .uses = {voxen::writes(y2)}}, n);
  s.dispatchThreads({.name = "rar-iota-x", .kernel = iota, .push = voxen::gpu::FillIotaPush{x.address(), n, 1, 0}, .uses = {voxen::writes(x)}}, n);
  s.dispatchThreads({.name = "rar-saxpy-1", .kernel = saxpy, .push = voxen::gpu::SaxpyPush{x.address(), y1.address(), n, 1.0f},
                     .uses = {voxen::reads(x), voxen::readsWrites(y1)}},
                    n);
  s.dispatchThreads({.name = "rar-saxpy-2", .kernel = saxpy, .push = voxen::gpu::SaxpyPush{x.address(), y2.address(), n, 2.0f},
                     .uses = {voxen::reads(x), voxen::readsWrites(y2)}},
                    n);
  const auto log = s.recordingLog();
  INFO("recording log:" << dump(log));
  const auto* first = find(log, "rar-saxpy-1");
  const auto* second = find(log, "rar-saxpy-2");
  REQUIRE(first);
  REQUIRE(second);
  CHECK_FALSE(first->barrierBefore.empty());
  // The barrier before the first reader already published x and y2 to compute shaders.
  CHECK(second->barrierBefore.empty());
  const auto commands = oracleView(log);
  for (const auto& problem : vt::checkDirectBarriers(commands)) FAIL(problem);
  s.finish();
}

TEST_CASE("An oversized dispatch throws before anything is recorded", "[scheduler][passes]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  voxen::Buffer buffer(gpu.device, "oversized-target", 256);
  s.setRecordingLog(true);
  s.clearRecordingLog();
  const auto before = s.stats();
  const auto& max = gpu.device.info().maxComputeWorkGroupCount;
  voxen::Pass pass{.name = "oversized", .kernel = iota, .push = voxen::gpu::FillIotaPush{buffer.address(), 64, 1, 0},
                   .uses = {voxen::writes(buffer)}};
  int tried = 0;
  for (int axis = 0; axis < 3; ++axis) {
    if (max[axis] == UINT32_MAX) continue;
    voxen::Pass p = pass;
    p.groups = {1, 1, 1};
    p.groups[axis] = max[axis] + 1;
    INFO("axis " << axis);
    CHECK_THROWS_AS(s.dispatch(p), voxen::Error);
    ++tried;
  }
  // Through dispatchThreads, which folds groups past the x limit into y: one workgroup
  // more than x * y can hold.
  CHECK_THROWS_AS(s.dispatchThreads(pass, (uint64_t(max[0]) * max[1] + 1) * 64), voxen::Error);
  CHECK_THROWS_AS(s.dispatchThreads(pass, uint64_t(1) << 62), voxen::Error);
  CHECK(tried > 0);
  CHECK(s.stats().dispatches == before.dispatches);
  CHECK(s.recordingLog().empty());

  // The scheduler still works afterwards.
  s.dispatchThreads(pass, 64);
  const auto got = vt::readBack<uint32_t>(s, buffer);
  for (uint32_t i = 0; i < 64; ++i) REQUIRE(got[i] == i);
  CHECK(s.stats().dispatches == before.dispatches + 1);
}

TEST_CASE("dispatchThreads past the x limit folds into y and runs every thread once", "[scheduler][passes]") {
  auto& gpu = vt::gpu();
  auto& s = gpu.scheduler;
  const uint64_t maxX = gpu.device.info().maxComputeWorkGroupCount[0];
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  const auto* bounded = vt::kernel("selftest/bounded_sum.comp");
  const uint32_t local = iota->localSize().x;
  REQUIRE(local == 64);
  // Past the x limit where the device has one we can reach; otherwise a plain large launch.
  const uint64_t wanted = maxX * local + 1000;
  const uint32_t n = uint32_t(std::min<uint64_t>(wanted, 5u << 20));
  INFO("threads " << n << ", max x groups " << maxX);
  voxen::Buffer x(gpu.device, "fold-x", uint64_t(n) * 4);
  voxen::Buffer total(gpu.device, "fold-total", 8);
  s.setRecordingLog(true);
  s.clearRecordingLog();
  s.fill(x, 0xffffffffu);
  s.fill(total, 0u);
  s.dispatchThreads({.name = "fold-iota", .kernel = iota, .push = voxen::gpu::FillIotaPush{x.address(), n, 1, 0}, .uses = {voxen::writes(x)}}, n);
  // One item per invocation: a thread run twice or never changes the exact sum.
  s.dispatchThreads({.name = "fold-sum", .kernel = bounded, .push = voxen::gpu::BoundedSumPush{x.address(), total.address(), n, 1},
                     .uses = {voxen::reads(x), voxen::readsWrites(total)}},
                    n);
  auto xBack = s.readback<uint32_t>(x);
  auto totalBack = s.readback<uint64_t>(total);
  const auto values = xBack.get();
  REQUIRE(values.size() == n);
  for (uint32_t i = 0; i < n; ++i)
    if (values[i] != i) FAIL("x[" << i << "] = " << values[i] << " (a thread did not run)");
  CHECK(totalBack.get().at(0) == uint64_t(n) * (n - 1) / 2);
  s.finish();
}
