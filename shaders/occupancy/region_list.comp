#version 460
// Region discovery, second pass: one invocation per set entry appends each occupied entry
// to the list the host reads back (region key and set entry). Hundreds of regions per
// batch, so one atomic counter serves; the host sorts the list, so its order does not
// matter. When resolving (discovery_shared.h), it also writes the entry's cache slot.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "../map/region_table.glsl"
#include "discovery_shared.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { DiscoveryPush p; } pc;

void main() {
  uint i = voxenThreadIndex();
  if (i > pc.p.setMask) return;
  UintArray list = UintArray(pc.p.list);
  // Resolving: nothing is resident for a batch whose set overflowed (some rays' entries are
  // not theirs) or that follows one the host has not integrated yet; every entry, the
  // empty ones too, gets its slot table entry (an overflowing ray's entry 0 may be empty).
  bool deferAll = false;
  if (pc.p.resolve != 0u) {
    bool overflowed = list.v[kDiscoveryOverflow] != 0u;
    UintArray flag = UintArray(pc.p.deferFlag);
    if (overflowed) flag.v[0] = 1u;
    deferAll = overflowed || flag.v[0] != 0u;
  }
  uint64_t packed = Uint64Array(pc.p.set).v[i];
  if (packed == kEmptyRegionKey) {
    if (pc.p.resolve != 0u) UintArray(pc.p.entrySlots).v[i] = kNotInChunk;
    return;
  }
  uvec2 halves = unpackUint2x32(packed);
  uint mask = (1u << kDiscoveryFieldBits) - 1u;
  uvec3 field = uvec3(halves.x & mask, ((halves.x >> 21) | (halves.y << 11)) & mask, (halves.y >> 10) & mask);
  ivec3 key = ivec3(field) - ivec3(kDiscoveryBias) + pc.p.origin.xyz;
  uint entry = i;
  if (pc.p.resolve != 0u) {
    int slot = deferAll ? -1 : findRegionSlot(pc.p.table, pc.p.tableMask, pc.p.tableMaxProbe, key);
    UintArray(pc.p.entrySlots).v[i] = slot < 0 ? kNotInChunk : uint(slot);
    if (slot < 0) entry |= kDiscoveryMissBit;
  }
  uint at = atomicAdd(list.v[kDiscoveryCount], 1u);
  Uvec4Array(pc.p.list + 16ul).v[at] = uvec4(uvec3(key), entry);
}
