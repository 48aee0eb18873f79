#include "voxen/selftest/self_test.hpp"

#include "voxen/gpu/selftest/selftest_push.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <random>

#include "voxen/host/buffer.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

namespace {

using gpu::BoundedSumPush;
using gpu::FillIotaPush;
using gpu::LoopProbePush;
using gpu::SaxpyPush;
using gpu::ShuffleXorPush;
using gpu::SumU64Push;

SelfTestCheck timed(const std::string& name, const std::function<std::string()>& body) {
  SelfTestCheck check{name};
  const auto start = std::chrono::steady_clock::now();
  try {
    check.detail = body();
    check.passed = check.detail.rfind("ok", 0) == 0;
  } catch (const std::exception& e) {
    check.detail = e.what();
  }
  check.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return check;
}

// iota -> saxpy -> subgroup sum with 64-bit atomics: right only if the derived barriers are.
std::string dependentChain(Scheduler& s, bool breakReference) {
  constexpr uint32_t n = 1u << 20;
  Device& device = s.device();
  ShaderLibrary& library = s.library();
  Buffer x(device, "selftest x", n * 4), y(device, "selftest y", n * 4), total(device, "selftest total", 8);
  std::vector<float> y0(n, 0.5f);
  s.upload(y, y0.data(), n * 4);
  s.fill(total, 0);
  s.dispatchThreads({"selftest iota", library.kernel("selftest/fill_iota.comp").get(), {}, FillIotaPush{x.address(), n, 3, 1},
                     {writes(x)}},
                    n);
  s.dispatchThreads({"selftest saxpy", library.kernel("selftest/saxpy.comp").get(), {},
                     SaxpyPush{x.address(), y.address(), n, 2.0f}, {reads(x), readsWrites(y)}},
                    n);
  s.dispatchThreads({"selftest sum", library.kernel("selftest/sum_u64.comp").get(), {},
                     SumU64Push{y.address(), total.address(), n}, {reads(y), readsWrites(total)}},
                    n);
  const uint64_t gpu = s.readback<uint64_t>(total).get().at(0);
  uint64_t cpu = 0;
  for (uint32_t i = 0; i < n; ++i) cpu += uint64_t(2.0f * float(i * 3 + 1) + 0.5f);
  cpu += breakReference;
  if (gpu != cpu) return "sum " + std::to_string(gpu) + " != CPU reference " + std::to_string(cpu);
  return "ok: " + std::to_string(n) + " elements, sum " + std::to_string(gpu);
}

std::string shuffle(Scheduler& s, bool breakReference) {
  constexpr uint32_t n = 4096;
  Buffer src(s.device(), "selftest shuffle src", n * 4), dst(s.device(), "selftest shuffle dst", n * 4);
  std::vector<uint32_t> values(n);
  std::mt19937 random(7);
  for (auto& v : values) v = random();
  s.upload(src, values.data(), n * 4);
  s.dispatchThreads({"selftest shuffle", s.library().kernel("selftest/shuffle_xor.comp").get(), {},
                     ShuffleXorPush{src.address(), dst.address(), n}, {reads(src), writes(dst)}},
                    n);
  const auto out = s.readback<uint32_t>(dst).get();
  values[1] ^= uint32_t(breakReference);  // lane 0's expected value
  for (uint32_t i = 0; i < n; ++i)
    if (out[i] != values[i ^ 1u]) return "lane " + std::to_string(i) + " got " + std::to_string(out[i]);
  return "ok: subgroup size " + std::to_string(s.device().info().subgroupSize);
}

std::string boundedLoop(Scheduler& s, bool breakReference) {
  constexpr uint32_t n = 1000000, perInvocation = 4096;
  Buffer src(s.device(), "selftest bounded src", n * 4), total(s.device(), "selftest bounded total", 8);
  std::vector<uint32_t> values(n);
  std::mt19937 random(11);
  uint64_t cpu = 0;
  for (auto& v : values) cpu += (v = random() & 0xffffu);
  s.upload(src, values.data(), n * 4);
  s.fill(total, 0);
  s.dispatchThreads({"selftest bounded sum", s.library().kernel("selftest/bounded_sum.comp").get(), {},
                     BoundedSumPush{src.address(), total.address(), n, perInvocation}, {reads(src), readsWrites(total)}},
                    (n + perInvocation - 1) / perInvocation);
  const uint64_t gpu = s.readback<uint64_t>(total).get().at(0);
  cpu += breakReference;
  if (gpu != cpu) return "sum " + std::to_string(gpu) + " != CPU reference " + std::to_string(cpu);
  return "ok: " + std::to_string(n) + " items, at most " + std::to_string(perInvocation) + " per invocation";
}

std::string stagingRoundTrip(Scheduler& s, bool breakReference) {
  // Larger than the default 64 MiB staging ring and of an odd size, so the ring wraps.
  const size_t bytes = (96ull << 20) + 12;
  Buffer buffer(s.device(), "selftest round trip", bytes);
  std::vector<std::byte> data(bytes);
  uint32_t state = 3;  // xorshift: cheap pseudo-random bytes, so the check costs little host time
  for (auto& b : data) {
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    b = std::byte(state);
  }
  s.upload(buffer, data.data(), bytes);
  const auto back = s.readback<std::byte>(buffer).get();
  data[bytes / 2] ^= std::byte(breakReference);
  if (back != data) return "bytes differ after upload and readback";
  return "ok: " + std::to_string(bytes) + " bytes";
}

}  // namespace

LoopCapProbe probeLoopCap(Scheduler& s, uint32_t requested) {
  Buffer result(s.device(), "loop probe", 8);
  s.fill(result, 0);
  s.dispatch({"loop probe", s.library().kernel("selftest/loop_probe.comp").get(), {1, 1, 1},
              LoopProbePush{result.address(), requested}, {writes(result)}});
  const auto out = s.readback<uint32_t>(result).get();
  return {requested, out[0], out[1] == 1};
}

std::vector<SelfTestCheck> runSelfTest(Scheduler& s, const SelfTestOptions& options) {
  const bool broken = options.breakReferences;
  std::vector<SelfTestCheck> checks;
  checks.push_back(timed("dependent passes (iota, saxpy, subgroup sum)", [&] { return dependentChain(s, broken); }));
  checks.push_back(timed("subgroup shuffle", [&] { return shuffle(s, broken); }));
  checks.push_back(timed("bounded per-invocation loop", [&] { return boundedLoop(s, broken); }));
  checks.push_back(timed("staging upload and readback", [&] { return stagingRoundTrip(s, broken); }));
  if (!options.withLoopCapProbe) return checks;
  checks.push_back(timed("loop cap probe", [&] {
    const LoopCapProbe probe = probeLoopCap(s);
    if (!probe.finished) return std::string("the probe's loop never exited");
    if (probe.truncated())
      return "ok: loops stop after " + std::to_string(probe.executed) + " iterations per invocation on this driver";
    return "ok: no loop cap below " + std::to_string(probe.requested) + " iterations";
  }));
  return checks;
}

}  // namespace voxen
