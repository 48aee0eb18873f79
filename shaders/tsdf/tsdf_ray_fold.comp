#version 460
// TSDF ray fold: one thread per voxel of the chunk's blocks. A voxel that the scan's rays
// measured (weight sum > 0) folds their weighted mean once, with the weight sum capped at the
// largest weight (tsdf_shared.h tsdfFoldDistance / tsdfFoldWeight, tsdf_ray_shared.h
// tsdfScanMean / tsdfScanWeight): the CPU reference (engine/tsdf/src/ray/cpu_tsdf_rays.cpp)
// folds the same sums the same way.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "tsdf_ray_shared.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { TsdfRayFoldPush pc; };

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Ivec4Array { ivec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer TsdfVoxelArray { TsdfVoxel v[]; };

int floorDivInt(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

void main() {
  uint thread = voxenThreadIndex();
  uint blockIndex = thread / kTsdfBlockVoxels;
  if (blockIndex >= pc.blockCount) return;
  uint local = thread % kTsdfBlockVoxels;
  Uint64Array sums = Uint64Array(pc.sums);
  uint64_t weightSum = sums.v[thread * 2u + 1u];
  if (weightSum == uint64_t(0)) return;
  int64_t sdf = tsdfScanMean(int64_t(sums.v[thread * 2u]), weightSum);
  uint w = tsdfScanWeight(weightSum, pc.maxWeight);
  ivec4 block = Ivec4Array(pc.blocks).v[blockIndex];
  ivec3 voxel = block.xyz * kTsdfBlock + ivec3(int(local & 7u), int((local >> 3) & 7u), int(local >> 6));
  int n = pc.regionSize;
  ivec3 region = ivec3(floorDivInt(voxel.x, n), floorDivInt(voxel.y, n), floorDivInt(voxel.z, n));
  ivec3 inRegion = voxel - region * n;
  uint index = uint(inRegion.x + n * (inRegion.y + n * inRegion.z));
  TsdfVoxelArray voxels = TsdfVoxelArray(pc.tsdf + uint64_t(block.w) * uint64_t(n * n * n) * 8ul);
  TsdfVoxel old = voxels.v[index];
  TsdfVoxel next;
  next.distance = tsdfFoldDistance(old.distance, old.weight, sdf, w);
  next.weight = tsdfFoldWeight(old.weight, w, pc.maxWeight);
  voxels.v[index] = next;
}
