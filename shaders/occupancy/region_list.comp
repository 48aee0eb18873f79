#version 460
// Region discovery, second pass: one invocation per set entry appends each occupied entry
// to the list the host reads back (region key and set entry). Hundreds of regions per
// batch, so one atomic counter serves; the host sorts the list, so its order does not
// matter.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "discovery_shared.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { DiscoveryPush p; } pc;

void main() {
  uint i = voxenThreadIndex();
  if (i > pc.p.setMask) return;
  uint64_t packed = Uint64Array(pc.p.set).v[i];
  if (packed == kEmptyRegionKey) return;
  uvec2 halves = unpackUint2x32(packed);
  uint mask = (1u << kDiscoveryFieldBits) - 1u;
  uvec3 field = uvec3(halves.x & mask, ((halves.x >> 21) | (halves.y << 11)) & mask, (halves.y >> 10) & mask);
  ivec3 key = ivec3(field) - ivec3(kDiscoveryBias) + pc.p.origin.xyz;
  UintArray list = UintArray(pc.p.list);
  uint at = atomicAdd(list.v[kDiscoveryCount], 1u);
  Uvec4Array(pc.p.list + 16ul).v[at] = uvec4(uvec3(key), i);
}
