// Voxel access for a pass over a map's regions in the GPU region cache, written against a
// MapBinding (map_binding.h): which regions the pass covers, where each layer's pool is,
// the region (and slot) of any voxel. What a layer-generic pass, the engine's or a
// program's own, needs; installed with the package (voxen_GLSL_INCLUDE_DIR) and built into
// the library's run-time compiler, both as "map/map_pass.glsl".
//
// A pool holds one array per cache slot, slot-major: voxel `local` of slot `slot` is element
// slot * voxelsPerRegion + local; local = x + n * (y + n * z) within the region (n its edge).
#ifndef VOXEN_MAP_MAP_PASS_GLSL
#define VOXEN_MAP_MAP_PASS_GLSL

#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "layer_table.h"
#include "map_binding.h"
#include "region_table.glsl"

layout(buffer_reference, std430, buffer_reference_align = 16) buffer PassRegionArray { ivec4 v[]; };

uint mapVoxelsPerRegion(MapBinding m) { return uint(m.regionSize * m.regionSize * m.regionSize); }

// Region `i` of the pass (i < m.regionCount): key in xyz, cache slot in w.
ivec4 mapPassRegion(MapBinding m, uint i) { return PassRegionArray(m.regions).v[i]; }

// The address of layer `id`'s pool (kLayerId* of layer_table.h, or a registered layer's id
// passed in push constants); 0 when the map does not have the layer.
uint64_t mapLayerPool(MapBinding m, uint id) { return Uint64Array(m.layers).v[id]; }

// The element of voxel `local` of slot `slot` in any pool: index the pool's array with it.
uint mapElement(MapBinding m, int slot, uint local) { return uint(slot) * mapVoxelsPerRegion(m) + local; }

ivec3 mapLocalCoord(MapBinding m, uint local) {
  uint n = uint(m.regionSize);
  return ivec3(local % n, local / n % n, local / (n * n));
}
uint mapLocalIndex(MapBinding m, ivec3 c) { return uint(c.x + m.regionSize * (c.y + m.regionSize * c.z)); }
ivec3 mapVoxelOf(MapBinding m, ivec3 regionKey, uint local) { return regionKey * m.regionSize + mapLocalCoord(m, local); }

// The slot of any resident region, -1 when it is not in the cache.
int mapRegionSlot(MapBinding m, ivec3 regionKey) {
  return findRegionSlot(m.regionTable, m.tableMask, m.maxProbe, regionKey);
}

// Where voxel `voxel` is: its slot (-1 when its region is not resident) and local index.
int mapFindVoxel(MapBinding m, ivec3 voxel, out uint local) {
  ivec3 key = regionOfVoxel(voxel, m.regionSize);
  local = mapLocalIndex(m, voxel - key * m.regionSize);
  return mapRegionSlot(m, key);
}

// The occupancy layer's log-odds of a voxel; +inf when unobserved (never NaN).
float mapOccupancy(MapBinding m, int slot, uint local) {
  return FloatArray(mapLayerPool(m, kLayerIdOccupancy)).v[mapElement(m, slot, local)];
}
bool mapObserved(float logOdds) { return !isinf(logOdds); }

#endif
