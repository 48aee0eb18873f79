#pragma once
// Push-constant blocks of shaders/selftest/*.comp, shared by the self-test, `voxen bench
// core`, the samples and the tests. Buffer references are 8-byte device addresses
// (uint64_t); the offsets below are the GLSL std430 offsets of the push_constant blocks and
// are checked at compile time.
#include <cstddef>
#include <cstdint>

namespace voxen::selftest {

struct FillIotaPush {  // selftest/fill_iota.comp
  uint64_t dst;
  uint32_t count;
  uint32_t scale;
  uint32_t offset;
};
static_assert(offsetof(FillIotaPush, count) == 8 && offsetof(FillIotaPush, offset) == 16);

struct SaxpyPush {  // selftest/saxpy.comp
  uint64_t x;
  uint64_t y;
  uint32_t count;
  float a;
};
static_assert(offsetof(SaxpyPush, count) == 16 && offsetof(SaxpyPush, a) == 20);

struct SumU64Push {  // selftest/sum_u64.comp
  uint64_t y;
  uint64_t total;
  uint32_t count;
};
static_assert(offsetof(SumU64Push, count) == 16);

struct LoopProbePush {  // selftest/loop_probe.comp
  uint64_t result;
  uint32_t iterations;
};
static_assert(offsetof(LoopProbePush, iterations) == 8);

struct BoundedSumPush {  // selftest/bounded_sum.comp
  uint64_t src;
  uint64_t total;
  uint32_t count;
  uint32_t perInvocation;
};
static_assert(offsetof(BoundedSumPush, count) == 16 && offsetof(BoundedSumPush, perInvocation) == 20);

struct ShuffleXorPush {  // selftest/shuffle_xor.comp
  uint64_t src;
  uint64_t dst;
  uint32_t count;
};
static_assert(offsetof(ShuffleXorPush, count) == 16);

}  // namespace voxen::selftest
