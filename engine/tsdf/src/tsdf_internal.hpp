#pragma once
// What the TSDF's CPU reference and GPU runner share besides the public header.
#include <cmath>
#include <cstdint>

#include "voxen/tsdf/tsdf.hpp"

namespace voxen {

// Pixel `pixel`'s depth in fine units, or 0 for no measurement (0, NaN, beyond maxDepth):
// tsdf_camera.glsl's tsdfPixelDepth. Inline: the CPU reference reads it once per voxel.
inline int64_t tsdfPixelDepth(const gpu::TsdfCamera& camera, const DepthImage& image, size_t pixel) {
  int64_t d = 0;
  if (camera.encoding == gpu::kTsdfDepthUnsigned16) {
    const uint32_t raw = image.depth16[pixel];
    d = raw == 0 ? 0 : gpu::tsdfDepth16(raw, camera.depthScaleQ32);
  } else {
    const float scaled = image.depth32[pixel] * camera.depthFactor;  // one float product, as the shader's `precise`
    d = gpu::tsdfDepthFromScaled(std::floor(scaled));
  }
  return d > 0 && d <= camera.maxDepth ? d : 0;
}

// The blocks of pixel (u, v)'s band ends at depth d (fine units): per axis the lowest and
// highest block of the two ends (tsdf_discover.comp).
void tsdfBandBlocks(const gpu::TsdfCamera& camera, const int64_t* rotationWc, int u, int v, int64_t d, int32_t lo[3],
                    int32_t hi[3]);

}  // namespace voxen

namespace voxen {

// Measurements as weight units (TsdfOptions::maxWeight for the fold's cap).
uint32_t tsdfWeightUnits(double measurements);

}  // namespace voxen
