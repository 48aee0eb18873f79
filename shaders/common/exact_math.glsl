// Exactly rounded float division and square root, as the CPU references compute them (IEEE
// float: correctly rounded). Vulkan lets a driver's float division be off by 2.5 ULP and
// its square root inherit inversesqrt's error; lavapipe rounds exactly, NVIDIA does not, so
// a GPU result compared bit for bit with its CPU twin must divide and take roots here.
//
// The float64 flavour (VOXEN_FLOAT64=1, built for devices with shaderFloat64; see
// cmake/EmbedShaders.cmake and ShaderLibrary::float64) computes normal operands in double and
// rounds to float (subnormals: below). That is the correctly rounded float result:
// - for +, -, *, / and sqrt of floats, rounding the exact result first to double and then
//   to float equals rounding it once to float, because 53 >= 2 * 24 + 2 (double rounding is
//   innocuous);
// - the driver's double division and root are not exact either, but the quotient or root of
//   24-bit floats is never a float midpoint (a tie between two floats) and stays at least
//   about 2^-49 (relative) away from one, farther than a 2.5-ULP double error (2^-51.7): so
//   even the approximate double lies on the same side of every midpoint as the exact value,
//   and rounds to the same float.
// The plain flavour (no define, exact_math_plain.glsl) declares no Float64 and is correctly
// rounded on every device too, without doubles and without relying on denormal support: it
// takes the native quotient or root of the two significands (normal floats in [1, 4), so no
// flush can touch them) only as an estimate within Vulkan's few-ULP bound, then settles the
// 24-bit integer result exactly from its integer remainder (a*2^23 - q*b, or N - s*s) and
// rounds to nearest even by that remainder, building the result's bits itself (subnormal
// results, overflow to infinity, zeros, infinities and NaN included). Checked bit for bit
// against the CPU's float / and std::sqrt by tests/host/test_exact_math.cpp and by
// `voxen check`'s exact-math row on the device it runs on.
#ifndef VOXEN_COMMON_EXACT_MATH_GLSL
#define VOXEN_COMMON_EXACT_MATH_GLSL

#include "exact_math_plain.glsl"

#if defined(VOXEN_FLOAT64) && VOXEN_FLOAT64
// Subnormals go the plain flavour's way. NVIDIA's driver (580 on an H200, 2026-11-30) flushes
// a float subnormal to zero when it widens it to double: 0 / 2^-149 came out NaN (0 / 0),
// and `voxen check`'s exact-math row found 731,373 of 4.2 M quotients and roots wrong. Vulkan
// lets a driver flush denormals unless it advertises preserving them, so every subnormal
// operand, and every quotient below the smallest normal float (which narrowing could flush
// too), is settled in integers instead; the rest is exact in doubles as argued above.
// VOXEN_EXACT_MATH_EMULATE_FLUSH (a test-only variant of the probe) makes widening and
// narrowing flush as that driver does, so lavapipe, which keeps subnormals, tests this guard;
// VOXEN_EXACT_MATH_NO_GUARD drops the guard, so that test shows the emulation bites.
bool exactIsSubnormal(float x) {
  uint magnitude = floatBitsToUint(x) & 0x7fffffffu;
  return magnitude != 0u && magnitude < 0x800000u;
}
#if defined(VOXEN_EXACT_MATH_EMULATE_FLUSH) && VOXEN_EXACT_MATH_EMULATE_FLUSH
double exactWiden(float x) { return exactIsSubnormal(x) ? (x < 0.0 ? -0.0LF : 0.0LF) : double(x); }
float exactNarrow(double d) {
  float f = float(d);
  return exactIsSubnormal(f) ? uintBitsToFloat(floatBitsToUint(f) & 0x80000000u) : f;
}
#else
double exactWiden(float x) { return double(x); }
float exactNarrow(double d) { return float(d); }
#endif
// A macro, not a constant: a shader that includes this file but never divides must compile
// to the same SPIR-V in both flavours (cmake/EmbedShaders.cmake embeds only flavours that differ).
#if defined(VOXEN_EXACT_MATH_NO_GUARD) && VOXEN_EXACT_MATH_NO_GUARD
#define VOXEN_EXACT_MATH_GUARD false
#else
#define VOXEN_EXACT_MATH_GUARD true
#endif

float exactDiv(float a, float b) {
  if (VOXEN_EXACT_MATH_GUARD && (exactIsSubnormal(a) || exactIsSubnormal(b))) return exactDivIntegers(a, b);
  double q = exactWiden(a) / exactWiden(b);
  // 2^-126, the smallest normal float: below it the float result is subnormal.
  if (VOXEN_EXACT_MATH_GUARD && q != 0.0LF && abs(q) < 1.1754943508222875e-38LF) return exactDivIntegers(a, b);
  return exactNarrow(q);
}
// A root of a normal float is normal: only the operand needs the guard.
float exactSqrt(float x) {
  if (VOXEN_EXACT_MATH_GUARD && exactIsSubnormal(x)) return exactSqrtIntegers(x);
  return exactNarrow(sqrt(exactWiden(x)));
}
#else
float exactDiv(float a, float b) { return exactDivIntegers(a, b); }
float exactSqrt(float x) { return exactSqrtIntegers(x); }
#endif

vec3 exactDiv(vec3 a, float b) { return vec3(exactDiv(a.x, b), exactDiv(a.y, b), exactDiv(a.z, b)); }
vec3 exactDiv(vec3 a, vec3 b) { return vec3(exactDiv(a.x, b.x), exactDiv(a.y, b.y), exactDiv(a.z, b.z)); }

#endif
