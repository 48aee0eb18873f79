// What every phase of the painter's frame megakernel includes: the data layout
// (frame_types.glsl: frame_layout.h, whose comment states the grid, cell, block and triangle
// conventions, with its buffer-reference types), the push constant, and the octahedral
// normal encoding (normal_encoding.glsl).
#ifndef VOXEN_PAINTER_COMMON_GLSL
#define VOXEN_PAINTER_COMMON_GLSL

#extension GL_GOOGLE_include_directive : require
#include "frame_types.glsl"
#include "normal_encoding.glsl"

// No instance name: `pc` is the PainterPush itself (pc.frame, pc.param).
layout(push_constant) uniform PainterPushBlock { PainterPush pc; };

// The frame's constants, read whole: a phase takes them once into a local (they do not
// change during a frame), so no vec4 member is read piecewise through the reference (on
// lavapipe, reading .xyz and then .w of one member gave .x for .w).
FrameConstants frameConstants() { return pc.frame.v; }

// The workgroup's index in a dispatch of engine/painter's dispatchPhase, which folds long
// launches into y like Scheduler::dispatchThreads: a folded launch has a few groups past
// the count asked for, and every phase skips them.
#define painterGroupIndex() (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x)

#endif
