#version 460
// Adds amounts to voxels of one 4-byte layer of the region cache, found through the layer
// table like any pass finds its layers: the test that a layer registered at run time
// (tests/engine/test_map_layers.cpp) reaches the GPU, the cache and the map file without
// changes to either.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "layer_probe.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { LayerProbePush p; } pc;

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.count) return;
  uvec4 update = Uvec4Array(pc.p.updates).v[i];
  UintArray pool = UintArray(Uint64Array(pc.p.layers).v[pc.p.layerId]);
  atomicAdd(pool.v[update.x * pc.p.voxelsPerRegion + update.y], update.z);
}
