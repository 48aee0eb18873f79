// SchedulerStats::firstDispatches counts the dispatches of pipelines the scheduler had not
// dispatched before (where lavapipe compiles them): what the benchmarks' warm-ups are
// checked against.
#include <catch2/catch.hpp>

#include "support/gpu_fixture.hpp"
#include "support/test_helpers.hpp"
#include "voxen/gpu/selftest/selftest_push.h"

TEST_CASE("firstDispatches counts each pipeline's first dispatch only", "[scheduler]") {
  auto& gpu = vt::gpu();
  // A scheduler of its own: the shared one has dispatched these kernels in other cases.
  voxen::Scheduler s(gpu.device, gpu.library);
  const auto* iota = vt::kernel("selftest/fill_iota.comp");
  const auto* bounded = vt::kernel("selftest/bounded_sum.comp");
  voxen::Buffer src(gpu.device, "first-dispatch-src", 64 * 4);
  voxen::Buffer total(gpu.device, "first-dispatch-total", 8);
  const voxen::Pass fill{.name = "first-dispatch-iota", .kernel = iota,
                         .push = voxen::gpu::FillIotaPush{src.address(), 64, 1, 0}, .uses = {voxen::writes(src)}};
  CHECK(s.stats().firstDispatches == 0);
  s.dispatchThreads(fill, 64);
  s.dispatchThreads(fill, 64);
  CHECK(s.stats().firstDispatches == 1);
  s.fill(total, 0u);
  s.dispatchThreads({.name = "first-dispatch-sum", .kernel = bounded,
                     .push = voxen::gpu::BoundedSumPush{src.address(), total.address(), 64, 1},
                     .uses = {voxen::reads(src), voxen::readsWrites(total)}},
                    64);
  s.finish();
  s.dispatchThreads(fill, 64);  // a later batch: still not a first
  s.finish();
  CHECK(s.stats().firstDispatches == 2);
  CHECK(s.stats().dispatches == 4);
}
