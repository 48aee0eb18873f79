// Buffer-reference types shared by every shader: Voxen passes buffers as 64-bit device
// addresses in push constants (docs/architecture.md, binding model), never as descriptors.
#ifndef VOXEN_COMMON_BUFFERS_GLSL
#define VOXEN_COMMON_BUFFERS_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require

layout(buffer_reference, std430, buffer_reference_align = 4) buffer UintArray { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer FloatArray { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Uint64Array { uint64_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Uvec2Array { uvec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Uvec4Array { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4Array { vec4 v[]; };

#endif
