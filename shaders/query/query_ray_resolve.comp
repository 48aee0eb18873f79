#version 460
// Each ray's answer: the hit of its lowest segment that has one (the walk's order), or no
// hit (ordinal kQueryNoHit).
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "query_shared.h"
#include "../occupancy/occupancy_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { QueryRaycastPush pc; };

void main() {
  uint r = voxenThreadIndex();
  QueryRaycastPush p = pc;
  if (r >= p.count) return;
  uint segment = UintArray(p.firstHit).v[r];
  Uvec4Array out_ = Uvec4Array(p.answers);
  if (segment == kQueryNoHit) {
    out_.v[2u * r] = uvec4(0u);
    out_.v[2u * r + 1u] = uvec4(kQueryNoHit, 0u, 0u, 0u);
    return;
  }
  // The ray's segmentBase (GpuRay word 8's high half).
  uint base = unpackUint2x32(Uint64Array(p.rays).v[r * 10u + 8u]).y;
  Uvec4Array hits = Uvec4Array(p.hits);
  out_.v[2u * r] = hits.v[2u * (base + segment)];
  out_.v[2u * r + 1u] = hits.v[2u * (base + segment) + 1u];
}
