// Push constants of shaders/selftest/*.comp, one definition for the shaders and for their
// users in C++ (the self-test, `voxen bench core`, the samples and the tests). Buffers are
// passed as device addresses (VOXEN_ADDRESS); the shaders cast them to the buffer-reference
// type they read or write.
#ifndef VOXEN_SELFTEST_SELFTEST_PUSH_H
#define VOXEN_SELFTEST_SELFTEST_PUSH_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

struct FillIotaPush {  // selftest/fill_iota.comp: dst[i] = i * scale + offset
  VOXEN_ADDRESS dst;   // uint per element
  uint count;
  uint scale;
  uint offset;
};
VOXEN_SHARED_ASSERT(offsetof(FillIotaPush, count) == 8 && offsetof(FillIotaPush, offset) == 16)

struct SaxpyPush {  // selftest/saxpy.comp: y[i] = a * float(x[i]) + y[i]
  VOXEN_ADDRESS x;  // uint per element
  VOXEN_ADDRESS y;  // float per element
  uint count;
  float a;
};
VOXEN_SHARED_ASSERT(offsetof(SaxpyPush, count) == 16 && offsetof(SaxpyPush, a) == 20)

struct SumU64Push {     // selftest/sum_u64.comp: total += sum of uint(y[i])
  VOXEN_ADDRESS y;      // float per element
  VOXEN_ADDRESS total;  // one uint64
  uint count;
};
VOXEN_SHARED_ASSERT(offsetof(SumU64Push, count) == 16)

struct LoopProbePush {   // selftest/loop_probe.comp
  VOXEN_ADDRESS result;  // [0] = iterations run, [1] = 1 once the loop exited
  uint iterations;
};
VOXEN_SHARED_ASSERT(offsetof(LoopProbePush, iterations) == 8)

struct BoundedSumPush {  // selftest/bounded_sum.comp: total += sum of src[i]
  VOXEN_ADDRESS src;     // uint per element
  VOXEN_ADDRESS total;   // one uint64
  uint count;
  uint perInvocation;
};
VOXEN_SHARED_ASSERT(offsetof(BoundedSumPush, count) == 16 && offsetof(BoundedSumPush, perInvocation) == 20)

struct ShuffleXorPush {  // selftest/shuffle_xor.comp: dst[i] = src[i ^ 1] within a subgroup
  VOXEN_ADDRESS src;     // uint per element
  VOXEN_ADDRESS dst;     // uint per element
  uint count;
};
VOXEN_SHARED_ASSERT(offsetof(ShuffleXorPush, count) == 16)

VOXEN_SHARED_END

#endif
