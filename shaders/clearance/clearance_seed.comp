#version 460
// Exact clearance, first pass: one invocation per line along x of a padded block (every y
// and z) writes the squared distances along x at the x inside the region (the compact
// field). Along x the obstacles are 0 and the rest far, so the lower envelope at a voxel is
// its nearest obstacle's w_x d^2: only the obstacles inside the region and the nearest one on
// either side of it matter, searched outwards from the region (the CPU reference's alongX,
// step for step). With CLEARANCE_VOXEL_SQUARES=1 the field gets d^2 as a uint, or
// kNoVoxelSquare past the range. A target computed in part ([lo, hi) of the region) needs
// the lines within the padding of it in y and z, at its x, and obstacles within the padding
// either side (the whole region: every line of the block, the searches over the padding).
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

void main() {
  uint i = voxenThreadIndex();
  ivec3 size = blockSize();
  uint perBlock = pc.p.iteration;
  if (i >= perBlock * pc.p.blocks) return;
  uint block = i / perBlock;
  uint line = i - block * perBlock;
  ivec3 lo = targetLo(block), hi = targetHi(block);
  ivec3 reach = hi - lo + 2 * padding();  // the block's lines this part needs, from lo (block coordinates)
  if (line >= uint(reach.y * reach.z)) return;
  int y = lo.y + int(line % uint(reach.y)), z = lo.z + int(line / uint(reach.y));
  int padX = pc.p.padX;
  i64vec3 origin = blockOrigin(block) + i64vec3(0, y, z);
  ivec3 cachedKey = ivec3(0x7fffffff);
  int cachedSlot = -1;
#if CLEARANCE_VOXEL_SQUARES
  // Distances to the left, then the nearest either side, as uint d (kNoVoxelSquare: none).
  UintArray field = UintArray(pc.p.field);
  uint none = kNoVoxelSquare;
#else
  FloatArray field = FloatArray(pc.p.field);
  float none = -1.0;
#endif
  uint first = fieldIndex(block, 0, y, z, size);
  float w = pc.p.weightX;
  int left = -1;  // the last obstacle so far (block x)
  for (int x = padX + lo.x - 1; x >= lo.x && left < 0; --x)
    if (obstacleAt(origin + i64vec3(x, 0, 0), cachedKey, cachedSlot)) left = x;
  for (int k = lo.x; k < hi.x; ++k) {  // distances to the left, -1: none
    int x = padX + k;
    if (obstacleAt(origin + i64vec3(x, 0, 0), cachedKey, cachedSlot)) left = x;
#if CLEARANCE_VOXEL_SQUARES
    field.v[first + uint(k)] = left >= 0 ? uint(x - left) : none;
#else
    field.v[first + uint(k)] = left >= 0 ? float(x - left) : none;
#endif
  }
  int right = -1;
  for (int x = padX + hi.x; x < hi.x + 2 * padX && right < 0; ++x)
    if (obstacleAt(origin + i64vec3(x, 0, 0), cachedKey, cachedSlot)) right = x;
  for (int k = hi.x - 1; k >= lo.x; --k) {
    int x = padX + k;
    int d = field.v[first + uint(k)] != none ? int(field.v[first + uint(k)]) : -1;
    if (d == 0) right = x;
    if (right >= 0 && (d < 0 || right - x < d)) d = right - x;
#if CLEARANCE_VOXEL_SQUARES
    uint squared = uint(d * d);
    field.v[first + uint(k)] = d >= 0 && squared <= uint(pc.p.rangeSquared) ? squared : kNoVoxelSquare;
#else
    precise float squared = w * float(d) * float(d);
    field.v[first + uint(k)] = d >= 0 ? squared : kFarSquared;
#endif
  }
}
