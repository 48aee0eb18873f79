#version 460
// results[i] = (exactDiv(a, b), exactSqrt(a)) for operands[i] = (a, b), all as bits, so the
// caller compares the device's exact_math.glsl bit for bit with the CPU's float / and
// std::sqrt (in the flavour the device's shader library picks: plain or float64).
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "exact_math_probe_push.h"
#include "../common/dispatch.glsl"
#include "../common/exact_math.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { ExactMathProbePush pc; };

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.count) return;
  uvec2 ab = Uvec2Array(pc.operands).v[i];
  float a = uintBitsToFloat(ab.x), b = uintBitsToFloat(ab.y);
  Uvec2Array(pc.results).v[i] = uvec2(floatBitsToUint(exactDiv(a, b)), floatBitsToUint(exactSqrt(a)));
}
