#pragma once
// What the TSDF's CPU reference and GPU runner share besides the public header.
#include <cstdint>

#include "voxen/tsdf/tsdf.hpp"

namespace voxen {

// Pixel `pixel`'s depth in fine units, or 0 for no measurement (0, NaN, beyond maxDepth):
// tsdf_camera.glsl's tsdfPixelDepth.
int64_t tsdfPixelDepth(const gpu::TsdfCamera& camera, const DepthImage& image, size_t pixel);

// The blocks of pixel (u, v)'s band ends at depth d (fine units): per axis the lowest and
// highest block of the two ends (tsdf_discover.comp).
void tsdfBandBlocks(const gpu::TsdfCamera& camera, const int64_t* rotationWc, int u, int v, int64_t d, int32_t lo[3],
                    int32_t hi[3]);

}  // namespace voxen

namespace voxen {

// Measurements as weight units (TsdfOptions::maxWeight for the fold's cap).
uint32_t tsdfWeightUnits(double measurements);

}  // namespace voxen
