#version 460
// Counts the iterations one invocation really runs of a loop asked to run `iterations`
// times. On lavapipe the count stops at its loop cap (DESIGN.md); everywhere else it
// equals `iterations`. The `finished` flag is written after the loop, so a truncated loop
// is told apart from one that never ran.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"

layout(local_size_x = 1) in;

layout(push_constant) uniform Push {
  UintArray result;  // [0] = iterations run, [1] = 1 once the loop exited
  uint iterations;
} pc;

void main() {
  uint count = 0u;
  for (uint i = 0u; i < pc.iterations; ++i) {
    count += 1u;
  }
  pc.result.v[0] = count;
  pc.result.v[1] = 1u;
}
