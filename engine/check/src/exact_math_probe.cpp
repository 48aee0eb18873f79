#include "voxen/check/exact_math_probe.hpp"

#include "voxen/gpu/selftest/exact_math_probe_push.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "voxen/host/buffer.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/testdata/split_mix.hpp"

namespace voxen {

namespace {

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
float value(uint32_t u) { return std::bit_cast<float>(u); }

// A float with a random sign and significand and a biased exponent field in [lo, hi].
uint32_t randomWithExponent(SplitMix& r, uint32_t lo, uint32_t hi) {
  return (r.u32() & 0x807fffffu) | (uint32_t(r.range(lo, hi)) << 23);
}

// `u` moved by up to `spread` representable floats either way (same sign).
uint32_t nudged(SplitMix& r, uint32_t u, uint32_t spread) {
  const int64_t moved = int64_t(u & 0x7fffffffu) + int64_t(r.range(0, 2 * spread)) - int64_t(spread);
  return (u & 0x80000000u) | uint32_t(std::clamp<int64_t>(moved, 0, 0x7f7fffff));
}

void addHardCases(std::vector<std::array<uint32_t, 2>>& out) {
  const std::vector<uint32_t> specials = {
      0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u,  // zeros, inf, NaN
      0x00000001u, 0x80000001u, 0x00000002u, 0x00000003u, 0x007fffffu, 0x00400000u, 0x00400001u,  // subnormals
      0x00800000u, 0x00800001u, 0x80800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f000000u, 0x7effffffu,  // extremes
      0x3f800000u, 0xbf800000u, 0x3f800001u, 0x3f7fffffu, 0x40000000u, 0x40400000u, 0x40a00000u,  // 1, 2, 3, 5
      0x3fffffffu, 0x3fb504f3u, 0x34000000u, 0x33800000u, 0x4b800000u, 0x4b7fffffu, 0x5f800000u,
      0x1f800000u, 0x3dcccccdu, 0x41200000u, 0x40490fdbu, 0x3eaaaaabu, 0x0000ffffu, 0x00ffffffu};
  for (uint32_t a : specials)
    for (uint32_t b : specials) out.push_back({a, b});
}

// a near q * b for q halfway between two floats of random exponent: quotients within a few
// ULP of a midpoint, where a few-ULP division error would round the wrong way.
std::array<uint32_t, 2> nearMidpointQuotient(SplitMix& r) {
  const uint32_t b = randomWithExponent(r, 100, 154) & 0x7fffffffu;
  const double mid = double(value(randomWithExponent(r, 110, 144) & 0x7fffffffu)) * (1.0 + 0x1p-24);
  const float a = float(mid * double(value(b)));
  return {nudged(r, bits(a), 2), b};
}

// a near m^2 for m halfway between two floats: roots near a midpoint (as `a`, any b).
std::array<uint32_t, 2> nearMidpointRoot(SplitMix& r) {
  const double m = double(value(randomWithExponent(r, 1, 253) & 0x7fffffffu)) * (1.0 + 0x1p-24);
  const double square = m * m;
  const float a = square > double(value(0x7f7fffffu)) ? value(0x7f7fffffu) : float(square);
  return {nudged(r, bits(a), 2), randomWithExponent(r, 1, 254)};
}

std::string hex(uint32_t u) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", u);
  return text;
}

bool sameBits(uint32_t device, float cpu) {
  return std::isnan(cpu) ? std::isnan(value(device)) : device == bits(cpu);
}

}  // namespace

std::vector<std::array<uint32_t, 2>> exactMathOperands(size_t randomCount, uint64_t seed) {
  std::vector<std::array<uint32_t, 2>> out;
  addHardCases(out);
  SplitMix r(seed);
  for (size_t i = 0; i < randomCount; ++i) {
    switch (i % 8) {
      case 0: out.push_back({r.u32(), r.u32()}); break;
      case 1: out.push_back({randomWithExponent(r, 0, 254), randomWithExponent(r, 0, 254)}); break;
      case 2: out.push_back({randomWithExponent(r, 0, r.chance(50) ? 0 : 30), randomWithExponent(r, 0, r.chance(50) ? 0 : 254)}); break;
      case 3: out.push_back({nudged(r, randomWithExponent(r, 0, 254) & 0xff800000u, 3), nudged(r, randomWithExponent(r, 0, 254) & 0xff800000u, 3)}); break;
      case 4: out.push_back({randomWithExponent(r, 200, 254), randomWithExponent(r, 0, 80)}); break;     // near or past overflow
      case 5: out.push_back({randomWithExponent(r, 0, 80), randomWithExponent(r, 150, 254)}); break;     // into the subnormals
      case 6: out.push_back(nearMidpointQuotient(r)); break;
      default: out.push_back(nearMidpointRoot(r)); break;
    }
  }
  return out;
}

namespace {

KernelVariant probeVariant(ExactMathProbeBuild build) {
  KernelVariant variant;
  if (build != ExactMathProbeBuild::AsShipped) variant.defines.push_back({"VOXEN_EXACT_MATH_EMULATE_FLUSH", "1"});
  if (build == ExactMathProbeBuild::FlushEmulatedUnguarded) variant.defines.push_back({"VOXEN_EXACT_MATH_NO_GUARD", "1"});
  return variant;
}

}  // namespace

ExactMathProbeResult probeExactMath(Scheduler& s, const std::vector<std::array<uint32_t, 2>>& operands, bool breakReference,
                                    ExactMathProbeBuild build) {
  ExactMathProbeResult result;
  result.cases = operands.size();
  constexpr size_t kChunk = size_t(1) << 20;
  const auto kernel = s.library().kernel("selftest/exact_math_probe.comp", probeVariant(build));
  Buffer in(s.device(), "exact math operands", kChunk * 8), out(s.device(), "exact math results", kChunk * 8);
  for (size_t begin = 0; begin < operands.size(); begin += kChunk) {
    const uint32_t n = uint32_t(std::min(kChunk, operands.size() - begin));
    s.upload(in.range(0, n * 8), operands.data() + begin, n * 8);
    s.dispatchThreads({"exact math probe", kernel.get(), {}, gpu::ExactMathProbePush{in.address(), out.address(), n},
                       {reads(in), writes(out)}},
                      n);
    const std::vector<std::array<uint32_t, 2>> back = s.readback<std::array<uint32_t, 2>>(out.range(0, n * 8)).get();
    for (uint32_t i = 0; i < n; ++i) {
      const float a = value(operands[begin + i][0]), b = value(operands[begin + i][1]);
      float quotient = a / b;
      if (breakReference && std::isfinite(quotient)) quotient = std::nextafter(quotient, INFINITY);
      const float root = std::sqrt(a);
      const bool divOk = sameBits(back[i][0], quotient), rootOk = sameBits(back[i][1], root);
      result.divisionMismatches += !divOk;
      result.rootMismatches += !rootOk;
      if (!divOk && result.firstMismatches.size() < 8)
        result.firstMismatches.push_back(hex(bits(a)) + " / " + hex(bits(b)) + ": device " + hex(back[i][0]) + " cpu " +
                                         hex(bits(quotient)));
      if (!rootOk && result.firstMismatches.size() < 8)
        result.firstMismatches.push_back("sqrt " + hex(bits(a)) + ": device " + hex(back[i][1]) + " cpu " + hex(bits(root)));
    }
  }
  return result;
}

}  // namespace voxen
