// The TSDF's CPU reference: every voxel of the frame's blocks projected into the image and
// folded (tsdf_integrate.comp's arithmetic, from the same shared functions), the blocks split
// over the machine's cores; a coloured frame into a map with the tsdf_colour layer folds the
// pixel's colour beside the distance (tsdf_integrate.comp specialised for colour).
#include <atomic>
#include <map>
#include <span>
#include <vector>

#include "colour/tsdf_colour.hpp"
#include "tsdf_block_regions.hpp"
#include "tsdf_internal.hpp"
#include "voxen/host/parallel_for.hpp"
#include "voxen/tsdf/tsdf.hpp"

namespace voxen {

gpu::TsdfVoxel tsdfFold(gpu::TsdfVoxel voxel, int64_t sdf, uint32_t w, uint32_t maxWeight) {
  return {gpu::tsdfFoldDistance(voxel.distance, voxel.weight, sdf, w), gpu::tsdfFoldWeight(voxel.weight, w, maxWeight)};
}

namespace {

// The measurement of the voxel at fine-unit centre offset (px, py, pz) from the camera, and
// its pixel's index: false when its pixel has none for it.
bool measure(const gpu::TsdfCamera& c, const DepthImage& image, int64_t px, int64_t py, int64_t pz, int64_t& sdf, size_t& pixel) {
  const int64_t* cw = c.rotationCw;
  const int64_t z = gpu::tsdfRotateRow(cw[6], cw[7], cw[8], px, py, pz);
  if (z <= 0) return false;
  const int64_t x = gpu::tsdfRotateRow(cw[0], cw[1], cw[2], px, py, pz), y = gpu::tsdfRotateRow(cw[3], cw[4], cw[5], px, py, pz);
  const int64_t u = gpu::tsdfPixelOf(x, z, c.fx, c.cx), v = gpu::tsdfPixelOf(y, z, c.fy, c.cy);
  if (u < 0 || v < 0 || u >= c.width || v >= c.height) return false;
  pixel = size_t(v) * size_t(c.width) + size_t(u);
  const int64_t d = tsdfPixelDepth(c, image, pixel);
  if (d == 0) return false;
  const int64_t sdfZ = d - z;
  // |p| / z >= 1: the ray distance is beyond the band whenever the depth difference is.
  if (sdfZ < -c.truncation) return false;
  if (sdfZ > c.truncation) {
    sdf = c.truncation;
    return true;
  }
  sdf = gpu::tsdfRayDistance(sdfZ, x, y, z);
  if (sdf < -c.truncation) return false;
  if (sdf > c.truncation) sdf = c.truncation;
  return true;
}

}  // namespace

uint32_t tsdfWeightUnits(double measurements) { return uint32_t(std::llround(measurements * gpu::kTsdfWeightUnit)); }

TsdfFrameStats integrateDepthCpu(OccupancyMap& map, const DepthFrame& frame, const TsdfOptions& options) {
  const gpu::TsdfCamera c = tsdfCamera(frame, options, map.model().resolution);  // a bad frame leaves the map as it was
  const bool coloured = detail::tsdfFoldsColour(map, frame);
  prepareTsdfMap(map, options);
  const std::vector<TsdfBlock> blocks = tsdfFrameBlocks(c, frame.depth);
  const uint32_t weighting = options.weighting == TsdfWeighting::Constant ? gpu::kTsdfWeightConstant : gpu::kTsdfWeightLinearDropOff;
  const uint32_t maxWeight = tsdfWeightUnits(options.maxWeight);
  const int32_t b = gpu::kTsdfBlock;
  TsdfFrameStats stats;
  stats.blocks = blocks.size();
  // Regions first, on this thread; then the blocks on the machine's cores (tsdf_block_regions.hpp).
  detail::TsdfBlockRegions regions(map, blocks, coloured);
  std::atomic<uint64_t> updated{0};
  parallelFor(blocks.size(), [&](size_t i) {
    const TsdfBlock& block = blocks[i];
    uint64_t count = 0;
    for (int32_t lz = 0; lz < b; ++lz)
      for (int32_t ly = 0; ly < b; ++ly)
        for (int32_t lx = 0; lx < b; ++lx) {
          const int32_t vx = block.x * b + lx, vy = block.y * b + ly, vz = block.z * b + lz;
          const int64_t half = gpu::kTsdfFine / 2;
          int64_t sdf = 0;
          size_t pixel = 0;
          if (!measure(c, frame.depth, (int64_t(vx) << gpu::kTsdfFineBits) + half - c.centre[0],
                       (int64_t(vy) << gpu::kTsdfFineBits) + half - c.centre[1],
                       (int64_t(vz) << gpu::kTsdfFineBits) + half - c.centre[2], sdf, pixel))
            continue;
          const uint32_t w = gpu::tsdfWeightOf(sdf, c.truncation, weighting);
          if (w == 0) continue;
          const size_t local = regions.localIndex(i, vx, vy, vz);
          gpu::TsdfVoxel& voxel = regions.voxels(i)[local];  // tsdfFold, written out so that it inlines
          voxel = {gpu::tsdfFoldDistance(voxel.distance, voxel.weight, sdf, w), gpu::tsdfFoldWeight(voxel.weight, w, maxWeight)};
          if (coloured && sdf < c.truncation) {  // within the band: the pixel's surface is this voxel's (tsdf_colour_layer.h)
            const uint8_t* rgb = frame.colour->rgb.data() + 3 * pixel;
            const uint32_t measured = uint32_t(rgb[0]) | uint32_t(rgb[1]) << 8 | uint32_t(rgb[2]) << 16;
            gpu::TsdfColourVoxel& colour = regions.colours(i)[local];
            colour = {gpu::tsdfColourMean(colour.rgb, colour.weight, measured, w), gpu::tsdfFoldWeight(colour.weight, w, maxWeight)};
          }
          ++count;
        }
    updated += count;
  });
  stats.voxelsUpdated = updated;
  stats.regionsMade = regions.finish();
  return stats;
}

}  // namespace voxen
