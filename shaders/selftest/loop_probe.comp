#version 460
// Counts the iterations one invocation really runs of a loop asked to run `iterations`
// times. On lavapipe the count stops at its loop cap (docs/architecture.md); everywhere else it
// equals `iterations`. The `finished` flag is written after the loop, so a truncated loop
// is told apart from one that never ran.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "selftest_push.h"

layout(local_size_x = 1) in;

// No instance name: `pc` is the struct itself (selftest_push.h), its addresses cast where used.
layout(push_constant) uniform Push { LoopProbePush pc; };

void main() {
  uint count = 0u;
  for (uint i = 0u; i < pc.iterations; ++i) {
    count += 1u;
  }
  UintArray result = UintArray(pc.result);
  result.v[0] = count;
  result.v[1] = 1u;
}
