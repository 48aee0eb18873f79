// The exact 2D squared Euclidean distance transform on the GPU (engine/distance,
// shaders/distance): one definition of the push constants and limits that the host
// (voxen/distance/distance_transform_2d.hpp) and the two passes share.
//
// Two separable passes over a row-major grid (cell (x, y) is element y * width + x), integers
// only, so the GPU's squared distances equal the CPU reference's bit for bit on every device:
//   distance_rows.comp     one thread per row: each cell's distance along its row to the
//                          nearest obstacle of that row (two sweeps), or kDistanceNone.
//   distance_columns.comp  one thread per column (neighbouring threads touch neighbouring
//                          words: coalesced): the lower envelope of the parabolas
//                          (y - p)^2 + g(p)^2 over the column's rows p (Felzenszwalb and
//                          Huttenlocher), then each cell's minimum, as a uint64.
// The envelope's breakpoint test cross-multiplies in int64: numerators below 2^34 and
// denominators below 2^18 for sides up to 65,536 cells, well inside 63 bits.
#ifndef VOXEN_DISTANCE_SHARED_H
#define VOXEN_DISTANCE_SHARED_H

#include "../common/shared.h"
#include "../common/work_limits.h"

VOXEN_SHARED_BEGIN

// The row pass's distance for a cell whose row holds no obstacle.
VOXEN_CONST(uint, kDistanceNone, 0xFFFFFFFFu)
// The longest row or column the passes take: a thread walks its whole line in flat loops of
// at most 2 (rows) and 4 (columns) iterations per cell, and no invocation may run more than
// kMaxIterationsPerInvocation (lavapipe stops an invocation's loops silently at 65,535).
VOXEN_CONST(uint, kMaxDistanceLine, kMaxIterationsPerInvocation / 4u)

// distance_rows.comp: one thread per row.
struct DistanceRowPush {
  VOXEN_ADDRESS obstacles;    // bytes, one per cell (non-zero: obstacle), read as uint words
  VOXEN_ADDRESS rowDistance;  // uint[width * height]: |x - nearest obstacle's x| on the row, or kDistanceNone
  uint width;
  uint height;
};
VOXEN_SHARED_ASSERT(sizeof(DistanceRowPush) == 24)

// distance_columns.comp: one thread per column.
struct DistanceColumnPush {
  VOXEN_ADDRESS rowDistance;  // the row pass's output
  VOXEN_ADDRESS envelope;     // uint[width * height] scratch: entry k of column x's envelope at k * width + x (a row)
  VOXEN_ADDRESS squared;      // uint64[width * height]: the squared distance in cells, or ~0 (no obstacle at all)
  uint width;
  uint height;
};
VOXEN_SHARED_ASSERT(sizeof(DistanceColumnPush) == 32)

VOXEN_SHARED_END

#endif
