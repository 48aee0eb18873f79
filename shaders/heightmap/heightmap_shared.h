// The heightmap (engine/heightmap, shaders/heightmap): per 2D column of a map, the surfaces a
// robot can stand on (levels) and their traversability. One definition of the cell, the
// column flags and the push constants, shared by the host (CPU reference and GPU runner) and
// the two passes (heightmap_columns.comp, heightmap_neighbours.comp).
//
// Everything a pass computes is an integer: heights in 1/1024 of a voxel (the voxel-mean
// layer's own unit), room in voxels, gradients and steps in height units, costs by integer
// division. So the GPU's cells equal the CPU reference's bit for bit on every device, and
// metres and degrees are made once, on the host, when a cell is read.
#ifndef VOXEN_HEIGHTMAP_SHARED_H
#define VOXEN_HEIGHTMAP_SHARED_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// Height units per voxel: a surface's height is z * kHeightUnits + its offset in the voxel
// (the voxel mean's z where the map has that layer, else the voxel's centre).
VOXEN_CONST(int, kHeightUnits, 1024)
// Most levels per column (--levels).
VOXEN_CONST(uint, kMaxHeightmapLevels, 8u)
// HeightmapCell::room when nothing occupied lies above the surface within the map.
VOXEN_CONST(uint, kOpenAbove, 0xFFFFFFFFu)
// HeightmapCell::step* toward a neighbour column with no level.
VOXEN_CONST(int, kNoNeighbour, -2147483647 - 1)
// HeightmapCell::cost beyond 0..100, as Nav2's costmaps spell them.
VOXEN_CONST(uint, kCostLethal, 254u)
VOXEN_CONST(uint, kCostUnknown, 255u)

// HeightmapCell::flags
VOXEN_CONST(uint, kLevelPresent, 1u)  // the cell has this level
VOXEN_CONST(uint, kLevelVirtual, 2u)  // a virtual surface: unknown space under observed free space

// Column flags (one uint per column): what the column's voxels within the height band hold.
VOXEN_CONST(uint, kColumnOccupied, 1u)  // an occupied voxel
VOXEN_CONST(uint, kColumnFree, 2u)      // a free voxel

// One level of one cell. Cells are stored level-major: cell (level, x, y) of a grid of
// width x height columns is element (level * height + y) * width + x.
struct HeightmapCell {
  int height;     // z * kHeightUnits + offset of the surface voxel (0 when absent)
  uint room;      // free or unknown voxels above the surface up to the next occupied one; kOpenAbove
  int gradientX;  // height units across two cells in x (central difference, or twice a one-sided one)
  int gradientY;  // the same in y
  int stepEast;   // the neighbour's matched level minus this one (height units), or kNoNeighbour: x + 1
  int stepNorth;  // y + 1
  int stepWest;   // x - 1
  int stepSouth;  // y - 1
  uint flags;     // kLevelPresent, kLevelVirtual
  uint cost;      // 0..100, kCostLethal, or kCostUnknown (absent level)
};
VOXEN_SHARED_ASSERT(sizeof(HeightmapCell) == 40)

// The column pass: one thread per voxel column of the chunk's region columns. The host lists
// each region column's cache slots by z region (a read-only region cache: no hash table).
struct HeightmapColumnPush {
  VOXEN_ADDRESS layers;         // the region cache's layer table (map/layer_table.h)
  VOXEN_ADDRESS regionSlots;    // int[regionColumnCount * regionZCount]: cache slot, -1 where absent
  VOXEN_ADDRESS regionColumns;  // ivec2 per region column of this chunk (region x, y)
  VOXEN_ADDRESS cells;          // HeightmapCell[levels * width * height]
  VOXEN_ADDRESS columnFlags;    // uint[width * height]
  int regionSize;
  uint regionColumnCount;
  int regionZLow;         // the z region of regionSlots' first entry per column
  uint regionZCount;
  int gridX;              // voxel x of column 0
  int gridY;              // voxel y of row 0
  uint width;             // columns
  uint height;            // rows
  int zLow;               // lowest voxel z of the band
  int zHigh;              // highest voxel z of the band
  uint levels;            // levels kept per column (the lowest ones), <= kMaxHeightmapLevels
  uint requiredRoom;      // voxels of room a level needs (the robot's height)
  float occupiedLogOdds;  // log-odds at or above which a voxel is occupied
  uint virtualSurfaces;   // 1: unknown voxels under free ones are surfaces too
  uint useMean;           // 1: the voxel-mean layer gives sub-voxel heights
  uint pad;
};
VOXEN_SHARED_ASSERT(sizeof(HeightmapColumnPush) == 104)

// The neighbour pass: one thread per cell and level.
struct HeightmapNeighbourPush {
  VOXEN_ADDRESS cells;
  uint width;
  uint height;
  uint levels;
  uint requiredRoom;
  uint marginRoom;      // room beyond requiredRoom at which the clearance cost reaches 0
  int maxStepUnits;     // a step up or down beyond this is lethal (height units)
  uint64_t maxGradientSquared;  // gradientX^2 + gradientY^2 beyond this is lethal
};
VOXEN_SHARED_ASSERT(sizeof(HeightmapNeighbourPush) == 40)

VOXEN_SHARED_END

#endif
