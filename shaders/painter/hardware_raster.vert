#version 460
// The hardware rasterizer's vertex stage: vertex 3t + k is corner k of triangle t of the
// painter's Triangle list (no vertex buffers), and the triangle's index goes on to the
// fragment stage.
#extension GL_GOOGLE_include_directive : require
#include "frame_types.glsl"
#include "hardware_raster.h"

layout(push_constant) uniform HardwareRasterPushBlock { HardwareRasterPush pc; };

layout(location = 0) flat out uint triangleId;

vec3 corner(Triangle tri, uint k) {
  if (k == 0u) return vec3(tri.p0[0], tri.p0[1], tri.p0[2]);
  if (k == 1u) return vec3(tri.p1[0], tri.p1[1], tri.p1[2]);
  return vec3(tri.p2[0], tri.p2[1], tri.p2[2]);
}

void main() {
  const uint t = uint(gl_VertexIndex) / 3u;
  const mat4 viewProj = mat4(pc.viewProj[0], pc.viewProj[1], pc.viewProj[2], pc.viewProj[3]);
  gl_Position = viewProj * vec4(corner(pc.triangles.v[t], uint(gl_VertexIndex) % 3u), 1.0);
  triangleId = t;
}
