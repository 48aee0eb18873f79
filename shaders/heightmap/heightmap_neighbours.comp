#version 460
// The heightmap's neighbour pass: one thread per cell and level. For each of the four
// neighbour columns it matches the neighbour's level nearest in height (the lower one on a
// tie), keeps the step to it, takes the gradient from the matched levels (central differences,
// or twice a one-sided one), and settles the cost: lethal past the step or slope limit, else
// the largest of the slope, step and clearance costs (0..100, integer division). Integers
// only: the CPU reference (engine/heightmap/src/cpu_heightmap.cpp) matches bit for bit.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "heightmap_shared.h"
#include "heightmap_cells.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { HeightmapNeighbourPush pc; };

// The step from `h` to the nearest level of column (x, y) in height, kNoNeighbour when the
// column is outside the grid or has no level.
int stepTo(HeightmapCellArray cells, int h, int x, int y) {
  if (x < 0 || y < 0 || x >= int(pc.width) || y >= int(pc.height)) return kNoNeighbour;
  int best = kNoNeighbour;
  uint bestDistance = 0xFFFFFFFFu;
  for (uint level = 0u; level < pc.levels; ++level) {
    HeightmapCell other = cells.v[heightmapCellIndex(level, uint(x), uint(y), pc.width, pc.height)];
    if ((other.flags & kLevelPresent) == 0u) break;  // levels are packed from 0
    int step = other.height - h;
    uint distance = uint(abs(step));
    if (distance < bestDistance) {
      bestDistance = distance;
      best = step;
    }
  }
  return best;
}

int gradientOf(int forward, int backward) {
  if (forward != kNoNeighbour && backward != kNoNeighbour) return forward - backward;
  if (forward != kNoNeighbour) return 2 * forward;
  if (backward != kNoNeighbour) return -2 * backward;
  return 0;
}

uint stepCost(int step, inout bool lethal) {
  if (step == kNoNeighbour) return 0u;
  uint magnitude = uint(abs(step));
  if (magnitude > uint(pc.maxStepUnits)) {
    lethal = true;
    return 0u;
  }
  return pc.maxStepUnits > 0 ? 100u * magnitude / uint(pc.maxStepUnits) : 0u;
}

void main() {
  uint thread = voxenThreadIndex();
  uint cellsPerLevel = pc.width * pc.height;
  if (thread >= cellsPerLevel * pc.levels) return;
  uint level = thread / cellsPerLevel, column = thread % cellsPerLevel;
  int x = int(column % pc.width), y = int(column / pc.width);
  HeightmapCellArray cells = HeightmapCellArray(pc.cells);
  uint index = heightmapCellIndex(level, uint(x), uint(y), pc.width, pc.height);
  HeightmapCell c = cells.v[index];
  if ((c.flags & kLevelPresent) == 0u) return;
  int east = stepTo(cells, c.height, x + 1, y), north = stepTo(cells, c.height, x, y + 1);
  int west = stepTo(cells, c.height, x - 1, y), south = stepTo(cells, c.height, x, y - 1);
  int gx = gradientOf(east, west), gy = gradientOf(north, south);
  bool lethal = false;
  uint cost = max(max(stepCost(east, lethal), stepCost(north, lethal)), max(stepCost(west, lethal), stepCost(south, lethal)));
  uint64_t g2 = uint64_t(int64_t(gx) * int64_t(gx)) + uint64_t(int64_t(gy) * int64_t(gy));
  if (g2 > pc.maxGradientSquared) lethal = true;
  else if (pc.maxGradientSquared > 0ul) cost = max(cost, uint(100ul * g2 / pc.maxGradientSquared));
  if (c.room != kOpenAbove && pc.marginRoom > 0u) {
    uint excess = c.room - pc.requiredRoom;
    if (excess < pc.marginRoom) cost = max(cost, 100u * (pc.marginRoom - excess) / pc.marginRoom);
  }
  // Only the fields this pass owns: other threads read this cell's height and flags.
  cells.v[index].gradientX = gx;
  cells.v[index].gradientY = gy;
  cells.v[index].stepEast = east;
  cells.v[index].stepNorth = north;
  cells.v[index].stepWest = west;
  cells.v[index].stepSouth = south;
  cells.v[index].cost = lethal ? kCostLethal : cost;
}
