// The painter's data layout (frame_layout.h) with the buffer-reference types its addresses
// name: what any painter shader that reads the frame's buffers includes, the frame
// megakernel (through painter_common.glsl) and the hardware rasterizer's vertex stage alike.
#ifndef VOXEN_PAINTER_FRAME_TYPES_GLSL
#define VOXEN_PAINTER_FRAME_TYPES_GLSL

#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"

// Declared forward here, defined once frame_layout.h has declared what they hold.
layout(buffer_reference) buffer BlockArray;
layout(buffer_reference) buffer TriangleArray;
layout(buffer_reference) buffer FrameConstantsRef;

#include "frame_layout.h"

layout(buffer_reference, std430, buffer_reference_align = 16) buffer TriangleArray { Triangle v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer BlockArray { BlockInfo v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer FrameConstantsRef { FrameConstants v; };

#endif
