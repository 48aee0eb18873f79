// The ray passes' buffers and block hash set (tsdf_ray_shared.h): the scan's rays, and the
// lookup of a block's sorted position through the set the discovery pass filled.
#ifndef VOXEN_TSDF_RAY_GLSL
#define VOXEN_TSDF_RAY_GLSL

layout(buffer_reference, std430, buffer_reference_align = 8) buffer TsdfRayArray { TsdfRay v[]; };

// The list index of `key`, which the discovery pass put in the set (0xFFFFFFFF: absent, which
// a finished discovery never leaves for a measured voxel).
uint tsdfRayFindBlock(uint64_t table, uint64_t indices, uint tableMask, uint64_t key) {
  uint h = tsdfRayBlockHash(key);
  for (uint probe = 0u; probe < kTsdfRayMaxProbe; ++probe) {
    uint slot = (h + probe) & tableMask;
    uint64_t stored = Uint64Array(table).v[slot];
    if (stored == key) return UintArray(indices).v[slot];
    if (stored == uint64_t(0)) break;
  }
  return 0xFFFFFFFFu;
}

#endif
