#version 460
// TSDF integration: one thread per voxel of the listed blocks. The voxel's centre projects
// into the frame's image; where its pixel holds a depth d, the distance along the ray
// sdf = (d - z) |p| / z (z: the centre's depth, p: its camera-frame position) is folded into
// the voxel when sdf >= -truncation, clamped to +truncation, with the weight
// the weighting gives (tsdf_shared.h). Each voxel meets the frame once, and every step is an
// integer one from tsdf_shared.h: the voxels equal the CPU reference's
// (engine/tsdf/src/cpu_tsdf.cpp) bit for bit. Specialised with kColour = 1 (coloured frames
// into a map with the tsdf_colour layer), the pass also folds the pixel's colour into the
// voxel's colour with the same weight (shaders/map/tsdf_colour_layer.h).
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "tsdf_shared.h"
#include "tsdf_camera.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { TsdfIntegratePush pc; };
layout(constant_id = 0) const uint kColour = 0u;  // kTsdfIntegrateColourId: 1 folds colour too

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Ivec4Array { ivec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer TsdfVoxelArray { TsdfVoxel v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer TsdfColourArray { TsdfColourVoxel v[]; };

// Byte i of the colour image (its rgb bytes, packed four to a uint, little-endian).
uint colourByte(uint64_t image, uint i) { return (UintArray(image).v[i >> 2] >> (8u * (i & 3u))) & 255u; }

int floorDivInt(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

void main() {
  uint thread = voxenThreadIndex();
  uint blockIndex = thread / kTsdfBlockVoxels;
  if (blockIndex >= pc.blockCount) return;
  uint local = thread % kTsdfBlockVoxels;
  ivec4 block = Ivec4Array(pc.blocks).v[blockIndex];
  ivec3 voxel = block.xyz * kTsdfBlock + ivec3(int(local & 7u), int((local >> 3) & 7u), int(local >> 6));
  TsdfCamera cam = TsdfCameraRef(pc.camera).c;
  int64_t half_ = kTsdfFine / 2;
  int64_t px = (int64_t(voxel.x) << kTsdfFineBits) + half_ - cam.centre[0];
  int64_t py = (int64_t(voxel.y) << kTsdfFineBits) + half_ - cam.centre[1];
  int64_t pz = (int64_t(voxel.z) << kTsdfFineBits) + half_ - cam.centre[2];
  int64_t z = tsdfRotateRow(cam.rotationCw[6], cam.rotationCw[7], cam.rotationCw[8], px, py, pz);
  if (z <= 0) return;
  int64_t x = tsdfRotateRow(cam.rotationCw[0], cam.rotationCw[1], cam.rotationCw[2], px, py, pz);
  int64_t y = tsdfRotateRow(cam.rotationCw[3], cam.rotationCw[4], cam.rotationCw[5], px, py, pz);
  int64_t u = tsdfPixelOf(x, z, cam.fx, cam.cx), v = tsdfPixelOf(y, z, cam.fy, cam.cy);
  if (u < 0 || v < 0 || u >= cam.width || v >= cam.height) return;
  int64_t d = tsdfPixelDepth(cam, pc.depth, uint(v) * uint(cam.width) + uint(u));
  if (d == 0) return;
  int64_t sdfZ = d - z;
  // |p| / z >= 1: the ray distance is beyond the band whenever the depth difference is.
  if (sdfZ < -cam.truncation) return;
  int64_t sdf = cam.truncation;
  if (sdfZ <= cam.truncation) {
    sdf = tsdfRayDistance(sdfZ, x, y, z);
    if (sdf < -cam.truncation) return;
    if (sdf > cam.truncation) sdf = cam.truncation;
  }
  uint w = tsdfWeightOf(sdf, cam.truncation, pc.weighting);
  if (w == 0u) return;
  int n = pc.regionSize;
  ivec3 region = ivec3(floorDivInt(voxel.x, n), floorDivInt(voxel.y, n), floorDivInt(voxel.z, n));
  ivec3 inRegion = voxel - region * n;
  uint index = uint(inRegion.x + n * (inRegion.y + n * inRegion.z));
  // The slot's array (addresses, not a 64-bit index: pools may pass 2^32 voxels).
  TsdfVoxelArray voxels = TsdfVoxelArray(pc.tsdf + uint64_t(block.w) * uint64_t(n * n * n) * 8ul);
  TsdfVoxel old = voxels.v[index];
  TsdfVoxel next;
  next.distance = tsdfFoldDistance(old.distance, old.weight, sdf, w);
  next.weight = tsdfFoldWeight(old.weight, w, pc.maxWeight);
  voxels.v[index] = next;
  if (kColour != 0u && sdf < cam.truncation) {  // within the band only (tsdf_colour_layer.h)
    uint pixel = 3u * (uint(v) * uint(cam.width) + uint(u));
    uint measured = colourByte(pc.colourImage, pixel) | (colourByte(pc.colourImage, pixel + 1u) << 8) |
                    (colourByte(pc.colourImage, pixel + 2u) << 16);
    TsdfColourArray colours = TsdfColourArray(pc.colour + uint64_t(block.w) * uint64_t(n * n * n) * 8ul);
    TsdfColourVoxel c = colours.v[index];
    TsdfColourVoxel folded;
    folded.rgb = tsdfColourMean(c.rgb, c.weight, measured, w);
    folded.weight = tsdfFoldWeight(c.weight, w, pc.maxWeight);
    colours.v[index] = folded;
  }
}
