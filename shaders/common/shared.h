// One definition for the structs and constants that C++ and GLSL share. A header written
// with these macros is included by the shaders (as GLSL, by relative path) and by the engine
// (as C++, as "voxen/gpu/<folder>/<name>.h"), so a layout is declared once and the two sides
// cannot drift apart.
//
// Rules for a shared header:
// - include guards, not #pragma once (GLSL has none); include this file first.
// - open with VOXEN_SHARED_BEGIN and close with VOXEN_SHARED_END: in C++ the declarations
//   live in namespace voxen::gpu, in GLSL at global scope.
// - constants as VOXEN_CONST(type, name, value), types: uint, int, float, uint64_t;
//   functions of plain arithmetic as VOXEN_FUNCTION uint name(uint a) { ... }, and
//   floating-point formulas as VOXEN_MATH (scalars and shared structs only; build structs
//   member by member, since the two languages construct them differently).
// - struct members of scalar types, uvec2/uvec4/ivec4/vec4, or vec3/ivec3 at a 16-byte
//   aligned offset followed by a 4-byte member (std430 gives vec3 16-byte alignment; the
//   C++ twin is 12 bytes): check sizes and offsets with VOXEN_SHARED_ASSERT, which is a
//   static_assert in C++ and nothing in GLSL.
#ifndef VOXEN_COMMON_SHARED_H
#define VOXEN_COMMON_SHARED_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>

namespace voxen::gpu {
using uint = uint32_t;
struct uvec2 { uint32_t x, y; };
struct ivec2 { int32_t x, y; };
struct vec3 { float x, y, z; };
struct ivec3 { int32_t x, y, z; };
struct uvec3 { uint32_t x, y, z; };
struct alignas(16) vec4 { float x, y, z, w; };
struct alignas(16) uvec4 { uint32_t x, y, z, w; };
struct alignas(16) ivec4 { int32_t x, y, z, w; };
}  // namespace voxen::gpu

#define VOXEN_SHARED_BEGIN namespace voxen::gpu {
#define VOXEN_SHARED_END }
#define VOXEN_CONST(type, name, value) inline constexpr type name = value;
#define VOXEN_SHARED_ASSERT(condition) static_assert(condition, #condition);
// A function both sides compute the same way (a layout's offsets): plain arithmetic only.
#define VOXEN_FUNCTION inline constexpr
// A formula both sides compute with floating-point math (exp, sqrt, ...): not constexpr.
#define VOXEN_MATH inline
// A buffer address member: a 64-bit device address in C++, a uint64_t in GLSL (shaders
// cast it to the buffer_reference type they need).
#define VOXEN_ADDRESS uint64_t
#else
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define VOXEN_SHARED_BEGIN
#define VOXEN_SHARED_END
#define VOXEN_CONST(type, name, value) const type name = value;
#define VOXEN_SHARED_ASSERT(condition)
#define VOXEN_FUNCTION
#define VOXEN_MATH
#define VOXEN_ADDRESS uint64_t
#endif

#endif
