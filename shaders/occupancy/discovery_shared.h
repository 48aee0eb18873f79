// Region discovery on the GPU (region_discover.comp, region_list.comp), shared by the host
// (engine/occupancy/src/region_discovery.cpp) and the shaders: the push constants, the
// batch's region set and the list the host reads back.
//
// Each ray walks its regions (the order regionsOnRay gives on the host) and inserts every
// key into a batch-level hash set of 64-bit packed keys (open addressing, linear probing,
// compare-and-swap). The ray's region list holds set entries; once the host has made the
// regions resident it uploads one cache slot per set entry (GpuIntegrator::publishSlots),
// so the passes find a region's slot with two loads and no probing.
#ifndef VOXEN_OCCUPANCY_DISCOVERY_SHARED_H
#define VOXEN_OCCUPANCY_DISCOVERY_SHARED_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// A key is packed as three 21-bit fields, each the region coordinate less the batch's
// origin region plus kDiscoveryBias. The host closes a batch before a ray whose end points
// leave that span, so every region of a batch packs (a region lies between its ray's end
// points' regions).
VOXEN_CONST(uint, kDiscoveryFieldBits, 21u)
VOXEN_CONST(int, kDiscoveryBias, 1 << 20)
VOXEN_CONST(int, kDiscoverySpan, (1 << 20) - 1)  // |region - origin| per axis at most this
VOXEN_CONST(uint64_t, kEmptyRegionKey, 0xFFFFFFFFFFFFFFFFul)  // no packed key has bit 63

// Probes one insertion may take before the set counts an overflow (the host then doubles
// the set and runs the batch's discovery again).
VOXEN_CONST(uint, kDiscoveryMaxProbe, 8u)
// Bounds of one ray's work in region_discover.comp (lavapipe stops an invocation's loops
// after 65,535 iterations in all): regions times (probes + 1) plus segments stays below it.
// The host refuses longer rays with a message naming --max-range.
VOXEN_CONST(uint, kMaxRegionsPerRay, 4096u)
VOXEN_CONST(uint, kMaxSegmentsPerRay, 8192u)

// What a set entry's cache slot is for the passes (the host's slot table, one uint per
// set entry): a slot, or kNotInChunk for a region of the batch whose updates belong to
// another chunk of the batch (a batch touching more regions than the cache holds is
// integrated in chunks of at most slotCount regions: every pass runs once per chunk and
// updates only that chunk's voxels).
VOXEN_CONST(uint, kNotInChunk, 0xFFFFFFFEu)

// The ray region slots buffer (OccupancyPush::raySlots), in uints: first, per ray, the set
// entry of its sample voxel's region (maxRaysPerBatch entries); then every ray's region
// list from its GpuRay::slotBase, in walk order.

// The list region_list.comp writes: a header, then one entry per distinct region
// (x, y, z, set entry), in no particular order (the host sorts them).
VOXEN_CONST(uint, kDiscoveryCount, 0u)     // header: distinct regions listed
VOXEN_CONST(uint, kDiscoveryOverflow, 1u)  // header: insertions that found no entry
VOXEN_CONST(uint, kDiscoveryHeaderWords, 4u)

// Residency resolved on the GPU (DiscoveryPush::resolve = 1: the occupancy integrator's batch
// submitted whole, ray_batcher.cpp): region_list.comp also looks every set entry's region up
// in the region cache's hash table and writes the set entry's slot table itself (the slot,
// or kNotInChunk for a region that is not resident), so that the batch's passes run in the
// same submission; the host reads the list afterwards and integrates the regions that were
// not resident (the list entries with kDiscoveryMissBit) as a later chunk of the batch. A set
// that overflowed resolves nothing and raises the sticky defer flag, which makes every later
// batch resolve nothing either until the host, having integrated them in order, clears it:
// a region's updates must reach it in batch order.
VOXEN_CONST(uint, kDiscoveryMissBit, 0x80000000u)  // in a list entry's w: not resident

struct DiscoveryPush {
  VOXEN_ADDRESS rays;      // GpuRay[]
  VOXEN_ADDRESS raySlots;  // out: per ray its sample region's set entry, then the region lists
  VOXEN_ADDRESS segments;  // out: uvec2[] (ray, segment), from each GpuRay::segmentBase
  VOXEN_ADDRESS set;       // uint64_t[setMask + 1]: packed keys, kEmptyRegionKey where free
  VOXEN_ADDRESS list;      // uint header[4], then uvec4 (x, y, z, entry) per distinct region
  ivec4 origin;            // xyz: the batch's origin region; w: the region size in voxels
  uint rayCount;
  uint setMask;            // set entries - 1 (a power of two)
  uint partCount;          // entries of `parts`; 0: the records' offsets are the batch's already
  uint resolve;            // 1: resolve residency (below); 0: list only
  VOXEN_ADDRESS parts;     // RayPartOffsets[partCount] (batch_assembly_shared.h)
  uint tableMask;          // resolve: the region cache's hash table (region_table.glsl)
  uint tableMaxProbe;
  VOXEN_ADDRESS table;
  VOXEN_ADDRESS entrySlots;  // resolve, out: uint per set entry, its slot or kNotInChunk
  VOXEN_ADDRESS deferFlag;   // resolve: the sticky uint raised by an overflow
  uint pad0, pad1;
};
VOXEN_SHARED_ASSERT(sizeof(DiscoveryPush) == 128)  // the guaranteed push constant bytes

VOXEN_SHARED_END

#endif
