// How the query passes read the map: a voxel's region through the read-only region cache's
// table, and whether a region that is not resident is in the map at all.
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

// The region's state and slot, looked up once per region a walk or a point enters.
int regionState(ivec3 region, out int slot) {
  if (gLastState >= 0 && region == gLastRegion) {
    slot = gLastSlot;
    return gLastState;
  }
  slot = findRegionSlot(gMap.table, gMap.tableMask, gMap.tableProbe, region);
  int state = kRegionResident;
  // present 0: every region of the map is resident (one chunk), so a missing one is absent.
  if (slot < 0)
    state = gMap.present != 0ul && findRegionSlot(gMap.present, gMap.presentMask, gMap.presentProbe, region) >= 0
                ? kRegionElsewhere
                : kRegionAbsent;
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
