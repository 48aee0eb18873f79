// How the query passes read the map: a voxel's region through the query's lookup for the
// resident chunk (query_shared.h QueryMapPush), its voxels from the region cache's pools.
#ifndef VOXEN_QUERY_MAP_GLSL
#define VOXEN_QUERY_MAP_GLSL

#include "../common/buffers.glsl"
#include "../map/region_table.glsl"
#include "../map/layer_table.h"
#include "query_shared.h"

// What a voxel's region is for this chunk.
const int kRegionResident = 0;   // in a cache slot: read it
const int kRegionElsewhere = 1;  // in the map, resident in another chunk: undecided here
const int kRegionAbsent = 2;     // not in the map: every voxel unobserved

QueryMapPush gMap;
UintArray gPool;  // the layer's pool, as 32-bit words
ivec3 gLastRegion;
int gLastSlot = -1;
int gLastState = -1;

void queryMapBegin(QueryMapPush map) {
  gMap = map;
  gPool = UintArray(Uint64Array(map.layers).v[map.layer]);
  gLastState = -1;
}

// The region's value in the chunk's lookup: a slot, kQueryElsewhere, or -1 (not in the map).
int lookupRegion(ivec3 region) {
  if (gMap.gridDimX != 0u) {
    ivec3 r = region - ivec3(gMap.gridLoX, gMap.gridLoY, gMap.gridLoZ);
    uvec3 dims = uvec3(gMap.gridDimX, gMap.gridDimY, gMap.gridDimZ);
    if (any(lessThan(r, ivec3(0))) || any(greaterThanEqual(uvec3(r), dims))) return -1;
    return int(UintArray(gMap.lookup).v[uint(r.x) + dims.x * (uint(r.y) + dims.y * uint(r.z))]);
  }
  // region_table.glsl's probing, but an entry's negative value (kQueryElsewhere) is a
  // value here: only -1 marks an empty entry.
  TableArray entries = TableArray(gMap.lookup);
  uint i = hashRegion(region) & gMap.hashMask;
  for (uint probe = 0u; probe <= gMap.hashProbe; ++probe) {
    ivec4 e = entries.v[i];
    if (e.w == -1) return -1;
    if (e.xyz == region) return e.w;
    i = (i + 1u) & gMap.hashMask;
  }
  return -1;
}

// The region's state and slot, looked up once per region a walk or a point enters.
int regionState(ivec3 region, out int slot) {
  if (gLastState >= 0 && region == gLastRegion) {
    slot = gLastSlot;
    return gLastState;
  }
  slot = lookupRegion(region);
  int state = slot >= 0 ? kRegionResident : (slot == kQueryElsewhere ? kRegionElsewhere : kRegionAbsent);
  gLastRegion = region;
  gLastSlot = slot;
  gLastState = state;
  return state;
}

// Word index of a voxel in a resident slot (voxels x fastest, then y, then z).
uint voxelWord(ivec3 voxel, ivec3 region, int slot) {
  int n = gMap.regionSize;
  ivec3 local = voxel - region * n;
  return uint(slot) * uint(n * n * n) + uint(local.x + n * (local.y + n * local.z));
}

#endif
