// The TSDF's exact integer helpers on the device (tsdf_shared.h: tsdfFloorDivExact,
// tsdfRoundDivExact, tsdfIsqrt). They start from float estimates, which a GPU computes with its
// own rounding (Vulkan allows a division 2.5 ULP, a square root more), and must still land on
// the integer results, or the GPU's voxels part from the CPU reference's. The integration tests
// reach them only with the operands their scenes make, and test_tsdf.cpp checks them on the
// CPU; here the device computes them for random operands over their stated ranges and the
// edges, compared bit for bit with plain integer arithmetic.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "voxen/gpu/tsdf/tsdf_shared.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace {

using namespace voxen;

// results[3 i ..] = floorDivExact(a, b), roundDivExact(a, b), isqrt(n) for operands[3 i ..] = a, b, n.
const char* kProbe = R"(#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/buffers.glsl"
#include "tsdf/tsdf_shared.h"
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint64_t operands; uint64_t results; uint count; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  Uint64Array in_ = Uint64Array(pc.operands), out_ = Uint64Array(pc.results);
  int64_t a = int64_t(in_.v[3u * i]), b = int64_t(in_.v[3u * i + 1u]);
  out_.v[3u * i] = uint64_t(tsdfFloorDivExact(a, b));
  out_.v[3u * i + 1u] = uint64_t(tsdfRoundDivExact(a, b));
  out_.v[3u * i + 2u] = tsdfIsqrt(in_.v[3u * i + 2u]);
}
)";

struct ProbePush {
  uint64_t operands, results;
  uint32_t count, pad;
};

// floor(sqrt(n)) by bisection in 128-bit squares.
uint64_t plainIsqrt(uint64_t n) {
  uint64_t lo = 0, hi = uint64_t(1) << 32;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if ((unsigned __int128)mid * mid <= n)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace

TEST_CASE("The TSDF's exact divisions and square root give the integer results on the device", "[tsdf][gpu]") {
  auto& gpu = vt::gpu();
  vt::TempDir dir("tsdf-exact");
  dir.write("tsdf_probe/exact.comp", kProbe);
  ShaderLibrary library(gpu.device);
  library.addShaderRoot(dir.path());
  Scheduler scheduler(gpu.device, library, {.stagingBytes = 16 << 20, .transientBytes = 1 << 16, .batchesInFlight = 2});

  // (a, b): |a| < 2^62 and 0 < b < 2^62 (tsdf_shared.h states b > 0; the plain reference
  // floor division overflows past 2^62); n: any uint64.
  std::vector<uint64_t> operands;
  const auto add = [&](int64_t a, int64_t b, uint64_t n) { operands.insert(operands.end(), {uint64_t(a), uint64_t(b), n}); };
  std::mt19937_64 random(40);
  for (int i = 0; i < 100000; ++i) {
    const int64_t a = int64_t(random() >> (2 + random() % 62)) * (random() % 2 ? 1 : -1);
    const int64_t b = int64_t(random() >> (2 + random() % 62)) | 1;
    add(a, b, random() >> (random() % 64));
    add(a - a % b, b, uint64_t(i) * uint64_t(i));  // exact multiples, perfect squares and their neighbours
    add(a - a % b - 1, b, uint64_t(i) * uint64_t(i) - 1);
  }
  const int64_t big = (int64_t(1) << 62) - 1;
  for (const int64_t b : {int64_t(1), int64_t(2), int64_t(3), int64_t(65535), int64_t(65536), (int64_t(1) << 31) - 1,
                          int64_t(1) << 40, big})
    for (const int64_t a : {int64_t(0), int64_t(1), int64_t(-1), b - 1, -b + 1, big, -big, big / b * b, -(big / b * b)})
      add(a, b, ~uint64_t(0) - uint64_t(b));
  add(0, 1, ~uint64_t(0));
  add(0, 1, (uint64_t(1) << 32) * ((uint64_t(1) << 32) - 2) + 1);  // (2^32 - 1)^2

  const uint32_t count = uint32_t(operands.size() / 3);
  const uint64_t bytes = operands.size() * 8;
  Buffer in(gpu.device, "tsdf exact operands", bytes), out(gpu.device, "tsdf exact results", bytes);
  scheduler.upload(in.range(), operands.data(), bytes);
  const auto kernel = library.kernel("tsdf_probe/exact.comp");
  scheduler.dispatchThreads({"tsdf exact probe", kernel.get(), {}, ProbePush{in.address(), out.address(), count, 0},
                             {reads(in.range()), writes(out.range())}},
                            count);
  const std::vector<uint64_t> got = scheduler.readback<uint64_t>(out.range()).get();
  REQUIRE(got.size() == operands.size());
  uint64_t floorWrong = 0, roundWrong = 0, sqrtWrong = 0, roundChecked = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const int64_t a = int64_t(operands[3 * i]), b = int64_t(operands[3 * i + 1]);
    const uint64_t n = operands[3 * i + 2];
    floorWrong += int64_t(got[3 * i]) != gpu::tsdfFloorDiv(a, b);
    if (a < (int64_t(1) << 61) && a > -(int64_t(1) << 61)) {  // tsdfRoundDivExact's range
      roundWrong += int64_t(got[3 * i + 1]) != gpu::tsdfRoundDiv(a, b);
      ++roundChecked;
    }
    sqrtWrong += got[3 * i + 2] != plainIsqrt(n);
  }
  INFO(count << " operands (" << roundChecked << " in the rounding division's range); wrong: floor " << floorWrong << ", round "
             << roundWrong << ", sqrt " << sqrtWrong);
  CHECK(roundChecked > count / 2);
  CHECK(floorWrong == 0);
  CHECK(roundWrong == 0);
  CHECK(sqrtWrong == 0);
}
