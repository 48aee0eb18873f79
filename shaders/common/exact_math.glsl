// Exactly rounded float division and square root, as the CPU references compute them (IEEE
// float: correctly rounded). Vulkan lets a driver's float division be off by 2.5 ULP and
// its square root inherit inversesqrt's error; lavapipe rounds exactly, NVIDIA does not, so
// a GPU result compared bit for bit with its CPU twin must divide and take roots here.
//
// The float64 flavour (VOXEN_FLOAT64=1, built for devices with shaderFloat64; see
// cmake/EmbedShaders.cmake and ShaderLibrary::float64) computes in double and rounds to
// float. That is the correctly rounded float result:
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

#if defined(VOXEN_FLOAT64) && VOXEN_FLOAT64
float exactDiv(float a, float b) { return float(double(a) / double(b)); }
float exactSqrt(float x) { return float(sqrt(double(x))); }
#else
#include "exact_math_plain.glsl"
#endif

vec3 exactDiv(vec3 a, float b) { return vec3(exactDiv(a.x, b), exactDiv(a.y, b), exactDiv(a.z, b)); }
vec3 exactDiv(vec3 a, vec3 b) { return vec3(exactDiv(a.x, b.x), exactDiv(a.y, b.y), exactDiv(a.z, b.z)); }

#endif
