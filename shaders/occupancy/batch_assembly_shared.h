// A batch's rays assembled on the GPU from the chunks the preparing threads wrote, shared by
// the host (engine/occupancy/src/ray_batcher.cpp) and region_discover.comp. Workers write each
// chunk's records straight into host-visible memory, with their region list and segment
// offsets counted from the chunk's first record; a batch is a run of parts (consecutive
// records of one chunk). Each part is copied into the batch's ray buffer (a buffer copy: the
// device's copy engine reads the records over the bus once), and region discovery, which
// reads every record first, adds its part's offsets to slotBase and segmentBase and writes
// them back for the passes after it. So the integration thread does no work per ray and
// never reads a record.
#ifndef VOXEN_OCCUPANCY_BATCH_ASSEMBLY_SHARED_H
#define VOXEN_OCCUPANCY_BATCH_ASSEMBLY_SHARED_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// One part of a batch, read by the shader as one uvec4; parts by firstRay ascending, the
// first at ray 0.
struct RayPartOffsets {
  uint firstRay;        // the part's first ray in the batch
  uint slotBaseAdd;     // added to each of its records' slotBase (modulo 2^32)
  uint segmentBaseAdd;  // added to each of its records' segmentBase (modulo 2^32)
  uint pad;
};
VOXEN_SHARED_ASSERT(sizeof(RayPartOffsets) == 16)

VOXEN_SHARED_END

#endif
