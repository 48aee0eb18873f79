// What a pass needs to reach a map's layers in the GPU region cache, as one push-constant
// member: the layer table, the cache's region hash table, and the list of regions the pass
// covers. The C++ side fills it (voxen/map/map_pass.hpp, bindMapPass); GLSL reads it with
// the helpers of map_pass.glsl. A pass of a program's own puts it first in its push
// constants, followed by its own fields (128 bytes in all).
#ifndef VOXEN_MAP_MAP_BINDING_H
#define VOXEN_MAP_MAP_BINDING_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// One region a map pass covers: its key and the cache slot that holds it (read in GLSL as
// an ivec4: key in xyz, slot in w).
struct PassRegion {
  int x;
  int y;
  int z;
  int slot;
};
VOXEN_SHARED_ASSERT(sizeof(PassRegion) == 16)

struct MapBinding {
  VOXEN_ADDRESS layers;       // LayerTable (layer_table.h): a pool address per layer id, 0 where absent
  VOXEN_ADDRESS regionTable;  // region key -> slot (region_table.glsl), for voxels of other regions
  VOXEN_ADDRESS regions;      // PassRegion[regionCount]
  uint regionCount;
  uint tableMask;
  uint maxProbe;
  int regionSize;             // voxels per region edge
};
VOXEN_SHARED_ASSERT(sizeof(MapBinding) == 40)

VOXEN_SHARED_END

#endif
