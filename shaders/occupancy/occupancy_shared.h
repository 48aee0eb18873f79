// The occupancy passes' inputs, shared by the host (engine/occupancy/src/gpu_integrator.cpp)
// and the shaders (map_access.glsl, gpu_ray.glsl): the ray record, the push constants and
// the flag and counter constants.
#ifndef VOXEN_OCCUPANCY_SHARED_H
#define VOXEN_OCCUPANCY_SHARED_H

#include "../common/shared.h"
#include "../map/layer_table.h"

VOXEN_SHARED_BEGIN

// A ray as the host prepares it (std430, 80 bytes). Positions are floats in voxel units
// relative to the start voxel's lower corner, so maps kilometres wide keep exact walks.
struct GpuRay {
  vec3 o;           // origin in voxel units relative to the start voxel's lower corner
  float reserved;   // unused (was the time relative to the map's time origin)
  vec3 d;           // origin to sample, in voxel units
  uint meanPacked;  // sample offset in its voxel, 10 bits per axis
  ivec3 start;      // origin voxel
  uint flags;       // kSampleHit | kSkipSample | kSkipOrigin
  ivec3 end;        // sample voxel
  uint segments;    // how many segments the walk is cut into
  uint slotBase;    // first entry of this ray's region slots (in walk order)
  uint regionCount; // regions on the walk
  uvec2 touchTime;  // bits of the ray's time as a double (seconds, >= 0): the touch-time layer's value
};
VOXEN_SHARED_ASSERT(sizeof(GpuRay) == 80)
VOXEN_SHARED_ASSERT(offsetof(GpuRay, d) == 16 && offsetof(GpuRay, start) == 32 && offsetof(GpuRay, end) == 48)
VOXEN_SHARED_ASSERT(offsetof(GpuRay, slotBase) == 64 && offsetof(GpuRay, touchTime) == 72)

// GpuRay::flags: how the walk treats the ray's end voxels.
VOXEN_CONST(uint, kSampleHit, 1u)   // the sample voxel gets a hit (else a miss, unless excluded)
VOXEN_CONST(uint, kSkipSample, 2u)  // the sample voxel gets nothing
VOXEN_CONST(uint, kSkipOrigin, 4u)  // the origin voxel gets nothing (when it is not the sample voxel)

// OccupancyPush::flags: the map's optional layers (kLayer* of layer_table.h) and these.
VOXEN_CONST(uint, kPassReverse, 256u)
VOXEN_CONST(uint, kPassStopOnOccupied, 512u)

// Retries of one compare-and-swap before the update is counted as dropped.
VOXEN_CONST(uint, kMaxCasRetries, 64u)

// The counters: kCounterStripes copies kCounterStride uint64 apart (64 bytes), one chosen
// per workgroup, summed by the host; within a copy, these entries.
VOXEN_CONST(uint, kCounterStripes, 64u)
VOXEN_CONST(uint, kCounterStride, 8u)
VOXEN_CONST(uint, kCounterUpdates, 0u)         // voxel updates applied
VOXEN_CONST(uint, kCounterDropped, 1u)         // updates dropped after kMaxCasRetries
VOXEN_CONST(uint, kCounterMissingRegions, 2u)  // lookups of regions absent from the cache

// The push constants of every occupancy pass (96 bytes of the 128 Vulkan guarantees). The
// layers are one address: adding a layer does not grow this block.
struct OccupancyPush {
  VOXEN_ADDRESS rays;        // GpuRay[]
  VOXEN_ADDRESS segments;    // uvec2[]: (ray, segment index)
  VOXEN_ADDRESS layers;      // LayerTable: the region cache's pool of every layer
  VOXEN_ADDRESS regionTable; // ivec4[]: (region x, y, z, slot), slot -1 = empty
  VOXEN_ADDRESS counters;    // uint64[kCounterStripes * kCounterStride]
  VOXEN_ADDRESS stop;        // uint[] per ray: bits of the t to stop before (+inf: no stop)
  VOXEN_ADDRESS raySlots;    // uint[] per ray, from slotBase: the slot of each region on its walk
  uint itemCount;            // segments or rays in this dispatch
  uint tableMask;            // region table size - 1 (a power of two)
  uint maxProbe;             // longest probe sequence in the region table
  int regionSize;
  float hitValue;
  float missValue;
  float clampMin;
  float clampMax;
  float threshold;
  uint flags;                // kLayer* bits | kPass* bits
};
VOXEN_SHARED_ASSERT(sizeof(OccupancyPush) == 96)

VOXEN_SHARED_END

#endif
