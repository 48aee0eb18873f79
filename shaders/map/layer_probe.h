// Push constants of layer_probe.comp (a test pass that writes one layer of the region
// cache), shared by the shader and tests/engine/test_map_layers.cpp.
#ifndef VOXEN_MAP_LAYER_PROBE_H
#define VOXEN_MAP_LAYER_PROBE_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

struct LayerProbePush {
  VOXEN_ADDRESS layers;   // LayerTable of the region cache
  VOXEN_ADDRESS updates;  // uvec4[count]: (slot, voxel index in the region, amount, unused)
  uint layerId;           // a 4-byte-per-voxel layer
  uint count;
  uint voxelsPerRegion;
  uint unused;
};
VOXEN_SHARED_ASSERT(sizeof(LayerProbePush) == 32)

VOXEN_SHARED_END

#endif
