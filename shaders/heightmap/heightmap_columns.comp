#version 460
// The heightmap's column pass: one thread per voxel column (x, y) of the chunk's region
// columns walks the band from its top voxel down, finding surfaces (an occupied voxel under a
// voxel that is not occupied; with virtual surfaces also an unknown voxel under a free one)
// and the room above each (the voxels up to the next occupied one). A surface with at least
// requiredRoom voxels of room is a level; the lowest `levels` of them are kept, ascending.
// Integers only, so the CPU reference (engine/heightmap/src/cpu_heightmap.cpp) matches bit for
// bit. The neighbour pass fills gradients, steps and costs afterwards.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "../map/layer_table.h"
#include "heightmap_shared.h"
#include "heightmap_cells.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { HeightmapColumnPush pc; };

layout(buffer_reference, std430, buffer_reference_align = 8) buffer Ivec2Array { ivec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer IntArray { int v[]; };

const uint kUnknown = 0u, kFree = 1u, kOccupied = 2u;

void main() {
  uint n = uint(pc.regionSize);
  uint thread = voxenThreadIndex();
  if (thread >= pc.regionColumnCount * n * n) return;
  uint columnIndex = thread / (n * n);
  ivec2 regionColumn = Ivec2Array(pc.regionColumns).v[columnIndex];
  uint inColumn = thread % (n * n);
  ivec2 voxel = regionColumn * int(n) + ivec2(int(inColumn % n), int(inColumn / n));
  ivec2 cell = voxel - ivec2(pc.gridX, pc.gridY);
  if (cell.x < 0 || cell.y < 0 || cell.x >= int(pc.width) || cell.y >= int(pc.height)) return;

  uint voxelsPerRegion = n * n * n;
  FloatArray occupancy = FloatArray(Uint64Array(pc.layers).v[kLayerIdOccupancy]);
  uint64_t meanPool = pc.useMean != 0u ? Uint64Array(pc.layers).v[kLayerIdVoxelMean] : 0ul;
  // The kept levels, highest first while walking down: surface z, room, offset, virtual.
  ivec4 kept[kMaxHeightmapLevels];
  uint count = 0u;
  bool haveCeiling = false;
  int ceiling = 0;
  uint above = kUnknown;  // the class of the voxel above: the band ends in unknown space
  uint columnFlags = 0u;
  int slot = -1;
  int slotRegionZ = 0x7fffffff;
  for (int z = pc.zHigh; z >= pc.zLow; --z) {
    int regionZ = z >= 0 ? z / int(n) : -((-z + int(n) - 1) / int(n));
    if (regionZ != slotRegionZ) {
      slotRegionZ = regionZ;
      slot = IntArray(pc.regionSlots).v[columnIndex * pc.regionZCount + uint(regionZ - pc.regionZLow)];
    }
    uint local = inColumn + n * n * uint(z - regionZ * int(n));
    uint cls = kUnknown;
    if (slot >= 0) {
      float logOdds = occupancy.v[uint(slot) * voxelsPerRegion + local];
      if (!isinf(logOdds)) cls = logOdds >= pc.occupiedLogOdds ? kOccupied : kFree;
    }
    bool real = cls == kOccupied && above != kOccupied;
    bool virt = pc.virtualSurfaces != 0u && cls == kUnknown && above == kFree;
    if (real || virt) {
      uint room = haveCeiling ? uint(ceiling - z - 1) : kOpenAbove;
      if (room >= pc.requiredRoom) {
        int offset = virt ? kHeightUnits : kHeightUnits / 2;
        if (real && meanPool != 0ul) {
          uvec4 mean = Uvec4Array(meanPool).v[uint(slot) * voxelsPerRegion + local];
          if (mean.x > 0u) offset = int(mean.w / mean.x);
        }
        if (count == pc.levels) {  // keep the lowest: drop the highest kept
          for (uint i = 1u; i < count; ++i) kept[i - 1u] = kept[i];
          count -= 1u;
        }
        kept[count] = ivec4(z, int(room), offset, virt ? 1 : 0);
        count += 1u;
      }
    }
    if (cls == kOccupied) {
      haveCeiling = true;
      ceiling = z;
      columnFlags |= kColumnOccupied;
    } else if (cls == kFree) {
      columnFlags |= kColumnFree;
    }
    above = cls;
    // A region the map lacks is unknown all through: after its top voxel (a virtual surface
    // at most), nothing in it makes a surface or a ceiling, so the walk jumps to its bottom.
    if (slot < 0) z = max(regionZ * int(n), pc.zLow);
  }

  uint column = uint(cell.y) * pc.width + uint(cell.x);
  UintArray(pc.columnFlags).v[column] = columnFlags;
  HeightmapCellArray cells = HeightmapCellArray(pc.cells);
  for (uint level = 0u; level < pc.levels; ++level) {
    HeightmapCell c;
    c.height = 0;
    c.room = 0u;
    c.gradientX = 0;
    c.gradientY = 0;
    c.stepEast = kNoNeighbour;
    c.stepNorth = kNoNeighbour;
    c.stepWest = kNoNeighbour;
    c.stepSouth = kNoNeighbour;
    c.flags = 0u;
    c.cost = kCostUnknown;
    if (level < count) {
      ivec4 k = kept[count - 1u - level];  // ascending: the lowest was found last
      c.height = k.x * kHeightUnits + k.z;
      c.room = uint(k.y);
      c.flags = kLevelPresent | (k.w != 0 ? kLevelVirtual : 0u);
    }
    cells.v[heightmapCellIndex(level, uint(cell.x), uint(cell.y), pc.width, pc.height)] = c;
  }
}
