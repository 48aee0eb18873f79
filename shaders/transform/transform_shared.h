// The transform tree's GPU passes: push constants shared by the host
// (engine/transform/src/gpu_transform_tree.cpp) and the transform shaders.
#ifndef VOXEN_TRANSFORM_SHARED_H
#define VOXEN_TRANSFORM_SHARED_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// A process() whose changed locals are at most 1 / kSparseDivisor of the live nodes lists
// the nodes to recompute on the host (dirty_subtrees.hpp) instead of reading every node's
// marks on the GPU.
VOXEN_CONST(uint, kSparseDivisor, 16u)

// Levels of at most this many nodes are walked several at a time by one workgroup
// (barriers between levels) instead of one dispatch each.
VOXEN_CONST(uint, kNarrowLevel, 64u)

// The level passes work in the breadth-first level order (dirty_subtrees.hpp): position p
// of `order` holds a node, `parentSlots` its parent's slot at the same position, and the
// dirty bits are set by position, so that a level's passes read those arrays contiguously.
// World matrices and changed marks are stored by slot: slot 0 is the virtual root (the
// identity, never changed), slot p + 1 the node at order position p, so a level writes one
// contiguous run and reads its parents' (grouped by parent, in the parents' order) as
// another. Local matrices stay indexed by node (the host updates them by node).
struct TransformPush {
  VOXEN_ADDRESS locals;        // mat4 per node (column-major, 16 floats)
  VOXEN_ADDRESS worlds;        // mat4 per slot (slot 0: the root, the identity; slot p + 1: order position p)
  VOXEN_ADDRESS parentSlots;   // uint per order position: the slot of that position's node's parent
  VOXEN_ADDRESS order;         // uint per order position: the live nodes level after level (level 1 first)
  VOXEN_ADDRESS dirty;         // uint bit words: bit p set = the local of order position p's node changed (input)
  VOXEN_ADDRESS changed;       // uint per slot: the generation that last recomputed its world (output)
  VOXEN_ADDRESS levelStarts;   // uint per level: its first entry (in `order`, or in `listed`), then the end
  VOXEN_ADDRESS listed;        // 0: a level's entries are its order positions; else uint[]: the positions to recompute
  VOXEN_ADDRESS packedNodes;   // the scatter's input: (node, order position) per changed local
  VOXEN_ADDRESS packedLocals;  // and their local matrices (mat4 each)
  uint firstLevel;             // this dispatch's levels (0 = the top level): [firstLevel, lastLevel)
  uint lastLevel;
  uint count;                  // entries of firstLevel (one-level dispatches), or packed entries
  uint readMarks;              // 1: recompute only positions whose dirty bit or parent's changed mark is set
  uint generation;             // this process()'s number (from 1): a changed mark equal to it is fresh
  uint reserved;
};
VOXEN_SHARED_ASSERT(sizeof(TransformPush) == 104)

// Moving world matrices and their changed marks between layouts, one invocation per entry
// (8 64-bit words and a mark each):
// - transform_node_worlds.comp: slot -> node, for the node-indexed worlds() and
//   changedMarks() (GpuTransformTree keeps them only once a consumer asked for them):
//   entry i is order position `positions[i]` (or i when `positions` is 0), copied from slot
//   position + 1 to index order[position]; with `onlyGeneration` not 0 only the entries
//   whose mark equals it (recomputed by this process()).
// - transform_reorder.comp: old slot -> new slot after the structure changed (positions
//   moved): entry i is the new order position i, copied from slot `fromSlots[i]` to slot
//   i + 1 (fromSlots[i] == 0: a node without a world before, nothing to copy).
struct TransformMovePush {
  VOXEN_ADDRESS fromWorlds;  // mat4 per slot (transform_node_worlds) or per old slot (transform_reorder)
  VOXEN_ADDRESS fromMarks;   // uint, indexed as fromWorlds
  VOXEN_ADDRESS toWorlds;    // mat4 per node (transform_node_worlds) or per new slot (transform_reorder)
  VOXEN_ADDRESS toMarks;     // uint, indexed as toWorlds
  VOXEN_ADDRESS order;       // transform_node_worlds: uint per order position, its node
  VOXEN_ADDRESS positions;   // transform_node_worlds: 0, or uint per entry: its order position
  VOXEN_ADDRESS fromSlots;   // transform_reorder: uint per new order position, its slot before (0: none)
  uint count;                // entries
  uint onlyGeneration;       // transform_node_worlds: 0 = every entry, else only marks equal to it
};
VOXEN_SHARED_ASSERT(sizeof(TransformMovePush) == 64)

// Culling (transform_cull.comp, transform_gather.comp).
struct CullPush {
  VOXEN_ADDRESS worlds;      // mat4 per slot (TransformPush): the node at order position i at slot i + 1
  VOXEN_ADDRESS boxes;       // per node: vec4 lo, vec4 hi (local frame)
  VOXEN_ADDRESS order;       // the live nodes level after level
  VOXEN_ADDRESS planes;      // 6 vec4: a x + b y + c z + d >= 0 inside
  VOXEN_ADDRESS flags;       // uint per order position: 1 visible
  VOXEN_ADDRESS worldBoxes;  // per node: vec4 lo, vec4 hi (world), for consumers
  VOXEN_ADDRESS positions;   // the compaction's output: order positions of the visible nodes
  VOXEN_ADDRESS visible;     // the visible nodes' indices (the gather's output)
  VOXEN_ADDRESS total;       // uint: how many are visible
  uint count;                // live nodes
  uint reserved;
};
VOXEN_SHARED_ASSERT(sizeof(CullPush) == 80)

VOXEN_SHARED_END

#endif
