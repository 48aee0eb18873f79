// Push constants of shaders/primitives/scan_tiles.comp: the multi-workgroup exclusive scan
// and the stream compaction (engine/primitives), one definition for the shader and for C++
// ("voxen/gpu/primitives/scan_tiles.h").
#ifndef VOXEN_PRIMITIVES_SCAN_TILES_H
#define VOXEN_PRIMITIVES_SCAN_TILES_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// A tile is one workgroup of kTileThreads invocations, each owning kTileItemsPerThread
// consecutive items: kTileItems items per workgroup.
VOXEN_CONST(uint, kTileThreads, 256u)
VOXEN_CONST(uint, kTileItemsPerThread, 16u)
VOXEN_CONST(uint, kTileItems, 4096u)

// Specialisation of scan_tiles.comp: constant_id kTileApplyId (bool) picks the phase
//   false: tileSums[tile] = the sum of the tile's items (reduce)
//   true:  after tileSums was scanned (exclusive), each tile scans its items locally and
//          adds tileSums[tile] (apply);
// constant_id kTileFlagsId (bool) reads items as flags (nonzero counts 1), and the apply
// phase then writes the index of each kept item at its scanned position in dst (stream
// compaction) instead of the scan, and tile 0 writes the dispatch command
// args = (ceil(total[0] / groupSize), 1, 1), folded into y past 65,535 workgroups (the
// consumer indexes with voxenThreadIndex()).
VOXEN_CONST(uint, kTileApplyId, 0u)
VOXEN_CONST(uint, kTileFlagsId, 1u)
struct TileScanPush {
  VOXEN_ADDRESS src;       // uint per item (values or flags)
  VOXEN_ADDRESS dst;       // uint per item: the scan, or the kept indices (apply only)
  VOXEN_ADDRESS tileSums;  // uint per tile
  VOXEN_ADDRESS total;     // one uint: the kept count (flags apply only)
  VOXEN_ADDRESS args;      // VkDispatchIndirectCommand (flags apply only), or 0 for none
  uint count;
  uint numTiles;
  uint groupSize;          // workgroup size of the indirect pass (flags apply only)
};
VOXEN_SHARED_ASSERT(sizeof(TileScanPush) == 56 && offsetof(TileScanPush, count) == 40)

// primitives/compaction_probe.comp (tests only): dispatched indirectly with the command a
// compaction wrote, in workgroups of 64; every invocation adds 1 to counters[0], each one
// below total[0] adds 1 to counters[1] and marks seen[indices[i]] += 1.
struct CompactionProbePush {
  VOXEN_ADDRESS counters;  // two uint
  VOXEN_ADDRESS total;     // one uint
  VOXEN_ADDRESS indices;   // uint per kept item
  VOXEN_ADDRESS seen;      // uint per flag
};
VOXEN_SHARED_ASSERT(sizeof(CompactionProbePush) == 32)

VOXEN_SHARED_END

#endif
