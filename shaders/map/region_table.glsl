// The region cache's hash table on the GPU (region key -> cache slot; the host builds it,
// engine/map/src/region_cache.cpp, with the same hash), and the region of a voxel. Shared
// by the occupancy and clearance passes.
#ifndef VOXEN_MAP_REGION_TABLE_GLSL
#define VOXEN_MAP_REGION_TABLE_GLSL

#include "../common/buffers.glsl"

layout(buffer_reference, std430, buffer_reference_align = 16) buffer TableArray { ivec4 v[]; };

uint hashRegion(ivec3 key) {
  uint h = uint(key.x) * 0x9E3779B1u;
  h ^= uint(key.y) * 0x85EBCA77u + (h << 6) + (h >> 2);
  h ^= uint(key.z) * 0xC2B2AE3Du + (h << 6) + (h >> 2);
  return h ^ (h >> 15);
}

// Floor division for b > 0 with non-negative operands only: GLSL leaves % of a negative
// operand undefined, and a driver's integer division of one need not truncate as C++ does;
// with operands >= 0 every driver computes the host's result. -1 - a for negative a: -a
// would wrap for the smallest int.
int floorDivide(int a, int b) { return a >= 0 ? a / b : -1 - (-1 - a) / b; }

// The region of a voxel. Power-of-two region sizes (the default 32) take an arithmetic
// shift, which rounds towards -inf as floor division must; integer division runs lane by
// lane on SIMD drivers such as lavapipe.
ivec3 regionOfVoxel(ivec3 v, int n) {
  if ((n & (n - 1)) == 0) return v >> findLSB(n);
  return ivec3(floorDivide(v.x, n), floorDivide(v.y, n), floorDivide(v.z, n));
}

// A voxel's offset inside its region (0 .. n - 1 per axis), without % of a negative value.
ivec3 offsetInRegion(ivec3 v, int n) {
  if ((n & (n - 1)) == 0) return v & ivec3(n - 1);
  return v - regionOfVoxel(v, n) * n;
}

// How many regions a walk from voxel s to voxel e enters: one, plus one per region face
// crossed (the host's regionCountOnRay).
uint regionCountOfRay(ivec3 s, ivec3 e, int n) {
  ivec3 perAxis = abs(regionOfVoxel(e, n) - regionOfVoxel(s, n));
  return 1u + uint(perAxis.x + perAxis.y + perAxis.z);
}

// Slot of a region in the table at `table` (entries (x, y, z, slot), slot -1 = empty,
// linear probing up to maxProbe), or -1 when it is not resident.
int findRegionSlot(uint64_t table, uint mask, uint maxProbe, ivec3 key) {
  TableArray entries = TableArray(table);
  uint i = hashRegion(key) & mask;
  for (uint probe = 0u; probe <= maxProbe; ++probe) {
    ivec4 e = entries.v[i];
    if (e.w < 0) return -1;
    if (e.xyz == key) return e.w;
    i = (i + 1u) & mask;
  }
  return -1;
}

#endif
