#version 460
// Instanced boxes expanded into the painter's triangles (the layout and conventions:
// box_instances_shared.h). Two variants (spec constant 0):
//   expand (0): dispatched indirectly over the listed instances (workgroups of 64, e.g. the
//               transform tree's culling command), one invocation per listed instance writes
//               its 12 triangles; instances whose triangles would pass maxTriangles write none.
//   count  (1): one invocation writes triangleCount = (triangles written, instances dropped):
//               the rasterizer's triangle count. A separate direct dispatch, because an
//               indirect command of zero workgroups (nothing listed) runs no invocation at all.
// Positions are `precise` with the CPU reference's operation order
// (engine/painter/src/cpu_box_instances.cpp), so both give the same bits.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "frame_types.glsl"
#include "normal_encoding.glsl"
#include "box_instances_shared.h"

layout(local_size_x = kBoxGroupSize) in;
layout(constant_id = 0) const uint kCountPass = 0u;
layout(push_constant) uniform Push { BoxInstancesPush p; } pc;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Mat4Array { mat4 v[]; };

uint fittingInstances(uint listed, uint maxTriangles) { return min(listed, maxTriangles / kBoxTriangles); }

vec3 corner(mat4 m, vec4 lo, vec4 hi, uint i) {
  float x = (i & 1u) != 0u ? hi.x : lo.x;
  float y = (i & 2u) != 0u ? hi.y : lo.y;
  float z = (i & 4u) != 0u ? hi.z : lo.z;
  precise float wx = ((m[0].x * x + m[1].x * y) + m[2].x * z) + m[3].x;
  precise float wy = ((m[0].y * x + m[1].y * y) + m[2].y * z) + m[3].y;
  precise float wz = ((m[0].z * x + m[1].z * y) + m[2].z * z) + m[3].z;
  return vec3(wx, wy, wz);
}

Triangle makeTriangle(vec3 a, vec3 b, vec3 c, uint normal, uint color, uint id) {
  Triangle t;
  t.p0 = float[3](a.x, a.y, a.z);
  t.p1 = float[3](b.x, b.y, b.z);
  t.p2 = float[3](c.x, c.y, c.z);
  t.n0 = normal;
  t.n1 = normal;
  t.n2 = normal;
  t.color = color;
  t.cell = id;
  t.unused = uint[2](0u, 0u);
  return t;
}

void main() {
  BoxInstancesPush p = pc.p;  // read once (lane masks: docs/architecture.md)
  uint listed = UintArray(p.count).v[0];
  uint fitting = fittingInstances(listed, p.maxTriangles);
  if (kCountPass != 0u) {
    if (gl_GlobalInvocationID.x == 0u) {
      UintArray out_ = UintArray(p.triangleCount);
      out_.v[0] = fitting * kBoxTriangles;
      out_.v[1] = listed - fitting;
    }
    return;
  }
  uint k = gl_GlobalInvocationID.x;
  if (k >= fitting) return;
  uint id = UintArray(p.instances).v[k];
  mat4 m = Mat4Array(p.worlds).v[p.worldSlots != 0ul ? UintArray(p.worldSlots).v[id] : id];
  Vec4Array boxes = Vec4Array(p.boxes);
  vec4 lo = boxes.v[2u * id], hi = boxes.v[2u * id + 1u];
  uint color = UintArray(p.colors).v[id];
  precise float det = (m[0].x * ((m[1].y * m[2].z) - (m[2].y * m[1].z)) - m[1].x * ((m[0].y * m[2].z) - (m[2].y * m[0].z))) +
                      m[2].x * ((m[0].y * m[1].z) - (m[1].y * m[0].z));
  bool mirrored = det < 0.0;
  vec3 c[8];
  for (uint i = 0u; i < 8u; ++i) c[i] = corner(m, lo, hi, i);
  TriangleArray out_ = TriangleArray(p.triangles);
  for (uint f = 0u; f < 6u; ++f) {
    uint corners = boxFaceCorners(f);
    uint ia = corners & 15u, ib = (corners >> 4) & 15u, ic = (corners >> 8) & 15u, id4 = corners >> 12;
    if (mirrored) {
      uint t = ib;
      ib = id4;
      id4 = t;
    }
    vec3 a = c[ia], b = c[ib], cc = c[ic], d = c[id4];
    precise vec3 e1 = b - a;
    precise vec3 e2 = cc - a;
    precise float nx = e1.y * e2.z - e1.z * e2.y;
    precise float ny = e1.z * e2.x - e1.x * e2.z;
    precise float nz = e1.x * e2.y - e1.y * e2.x;
    uint normal = encodeNormal(vec3(nx, ny, nz));
    uint first = k * kBoxTriangles + 2u * f;
    out_.v[first] = makeTriangle(a, b, cc, normal, color, id);
    out_.v[first + 1u] = makeTriangle(a, cc, d, normal, color, id);
  }
}
