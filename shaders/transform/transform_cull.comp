#version 460
// Culling, first pass: one invocation per live node (in level order) computes its world box
// from its local box and world matrix (the centre moved, the half-extent through the
// absolute linear part, as voxen::worldBox does), stores it for consumers, and flags the
// node visible unless the box is wholly outside one of the frustum's planes.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "transform_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { CullPush p; } pc;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Mat4Array { mat4 v[]; };

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.count) return;
  uint node = UintArray(pc.p.order).v[i];
  mat4 world = Mat4Array(pc.p.worlds).v[i + 1u];  // stored by slot: order position i + 1, contiguous
  Vec4Array boxes = Vec4Array(pc.p.boxes);
  vec4 lo = boxes.v[2u * node], hi = boxes.v[2u * node + 1u];
  vec3 centre = 0.5 * (lo.xyz + hi.xyz), halfSize = 0.5 * (hi.xyz - lo.xyz);
  vec3 c, e;
  for (int r = 0; r < 3; ++r) {
    precise float cr = world[0][r] * centre.x + world[1][r] * centre.y + world[2][r] * centre.z + world[3][r];
    precise float er = abs(world[0][r]) * halfSize.x + abs(world[1][r]) * halfSize.y + abs(world[2][r]) * halfSize.z;
    c[r] = cr;
    e[r] = er;
  }
  vec3 wlo = c - e, whi = c + e;
  Vec4Array boxOut = Vec4Array(pc.p.worldBoxes);
  boxOut.v[2u * node] = vec4(wlo, 0.0);
  boxOut.v[2u * node + 1u] = vec4(whi, 0.0);
  bool inside = true;
  Vec4Array planes = Vec4Array(pc.p.planes);
  for (int k = 0; k < 6; ++k) {
    vec4 p = planes.v[k];
    vec3 far = vec3(p.x >= 0.0 ? whi.x : wlo.x, p.y >= 0.0 ? whi.y : wlo.y, p.z >= 0.0 ? whi.z : wlo.z);
    precise float d = p.x * far.x + p.y * far.y + p.z * far.z + p.w;
    if (d < 0.0) inside = false;
  }
  UintArray(pc.p.flags).v[i] = inside ? 1u : 0u;
}
