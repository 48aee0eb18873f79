// What every phase of the painter's frame megakernel includes: the data layout
// (frame_types.glsl: frame_layout.h, whose comment states the grid, cell, block and triangle
// conventions, with its buffer-reference types), the push constant, and the octahedral
// normal encoding.
#ifndef VOXEN_PAINTER_COMMON_GLSL
#define VOXEN_PAINTER_COMMON_GLSL

#extension GL_GOOGLE_include_directive : require
#include "frame_types.glsl"

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

// Octahedral normal encoding (the same arithmetic as engine/painter/include/voxen/painter/normal_encoding.hpp).
uint encodeNormal(vec3 n) {
  precise vec3 a = abs(n);
  precise float l1 = a.x + a.y + a.z;
  vec2 p = l1 > 0.0 ? n.xy / l1 : vec2(0.0);
  if (n.z < 0.0) {
    vec2 s = vec2(p.x >= 0.0 ? 1.0 : -1.0, p.y >= 0.0 ? 1.0 : -1.0);
    p = (vec2(1.0) - abs(p.yx)) * s;
  }
  return packSnorm2x16(p);
}

vec3 decodeNormal(uint bits) {
  vec2 p = unpackSnorm2x16(bits);
  vec3 n = vec3(p, 1.0 - abs(p.x) - abs(p.y));
  if (n.z < 0.0) {
    vec2 s = vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    n.xy = (vec2(1.0) - abs(n.yx)) * s;
  }
  return normalize(n);
}

#endif
