// The map's layers as the GPU sees them: every layer type has an id, and the passes get the
// address of a LayerTable whose entry `id` is the address of that layer's pool in the region
// cache (0 when the map does not have the layer). A pool holds one array per cache slot,
// slot-major: voxel v of slot s is element s * voxelsPerRegion + v.
//
// The built-in layers have fixed ids (the C++ registry in engine/map registers them under
// these ids and checks it); layer types registered at run time take the ids after them.
#ifndef VOXEN_MAP_LAYER_TABLE_H
#define VOXEN_MAP_LAYER_TABLE_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

VOXEN_CONST(uint, kLayerIdOccupancy, 0u)   // float log-odds, +inf = unobserved
VOXEN_CONST(uint, kLayerIdVoxelMean, 1u)   // uvec4: sample count, sub-voxel offset sums x, y, z
VOXEN_CONST(uint, kLayerIdTraversal, 2u)   // uint64: summed ray length in 1/65536 voxel
VOXEN_CONST(uint, kLayerIdHitMiss, 3u)     // uvec2: hit count, miss count
VOXEN_CONST(uint, kLayerIdTouchTime, 4u)   // double bits: latest time (s) a ray touched the voxel, 0 = never
VOXEN_CONST(uint, kBuiltinLayerCount, 5u)
// Layer types per process, ids 0 .. kMaxLayers - 1: the engine's own (11 with tsdf_colour) and a
// program's registered or loaded ones (LayerSet holds one bit per id: at most 32).
VOXEN_CONST(uint, kMaxLayers, 32u)

// The optional built-in layers as flag bits (bit id - 1): the occupancy passes are
// specialised on them (constant_id 0), and map file version 1 stored them as a mask.
VOXEN_CONST(uint, kLayerVoxelMean, 1u)
VOXEN_CONST(uint, kLayerTraversal, 2u)
VOXEN_CONST(uint, kLayerHitMiss, 4u)
VOXEN_CONST(uint, kLayerTouchTime, 8u)
VOXEN_CONST(uint, kBuiltinLayerFlags, 15u)

struct LayerTable {
  VOXEN_ADDRESS pool[kMaxLayers];
};
VOXEN_SHARED_ASSERT(sizeof(LayerTable) == 8 * kMaxLayers)

VOXEN_SHARED_END

#endif
