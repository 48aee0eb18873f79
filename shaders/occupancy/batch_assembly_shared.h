// A batch's rays assembled on the GPU from the chunks the preparing threads wrote, shared by
// the host (engine/occupancy/src/ray_batcher.cpp) and ray_offsets.comp. Workers write each
// chunk's records straight into host-visible memory, with their region list and segment
// offsets counted from the chunk's first record; a batch is a run of parts (consecutive
// records of one chunk). Each part is copied into the batch's ray buffer (a buffer copy: the
// device's copy engine reads the records over the bus once), then ray_offsets.comp adds the
// part's offsets to each record's slotBase and segmentBase. So the integration thread does
// no work per ray and never reads a record.
#ifndef VOXEN_OCCUPANCY_BATCH_ASSEMBLY_SHARED_H
#define VOXEN_OCCUPANCY_BATCH_ASSEMBLY_SHARED_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

struct RayOffsetsPush {
  VOXEN_ADDRESS rays;   // GpuRay[rayCount]: the part's records in the batch's ray buffer
  uint rayCount;
  uint slotBaseAdd;     // added to each record's slotBase (modulo 2^32)
  uint segmentBaseAdd;  // added to each record's segmentBase (modulo 2^32)
  uint pad;
};
VOXEN_SHARED_ASSERT(sizeof(RayOffsetsPush) == 24)

VOXEN_SHARED_END

#endif
