#pragma once
// A truncated signed distance field (TSDF) from depth images, in the map's `tsdf` layer
// (voxen/map/layer.hpp kTsdfLayer, shaders/tsdf/tsdf_shared.h TsdfVoxel): per voxel the
// weighted mean of the signed distance to the surface along the camera's ray (positive in
// front of the surface, clamped to the truncation), and the summed weight.
//
//   voxen::OccupancyMap map(voxen::OccupancyModel{.resolution = 0.02}, voxen::LayerSet{voxen::kTsdfLayer});
//   voxen::TsdfOptions options;                                  // 4 voxels, weight cap 64
//   voxen::integrateDepthCpu(map, frame, options);               // the CPU reference
//   voxen::GpuTsdfIntegrator gpu(scheduler, map, options);       // voxen/tsdf/gpu_tsdf.hpp: the same voxels
//
// Projective integration (as KinectFusion, Open3D's ScalableTSDFVolume): a frame's blocks
// (8^3 voxels) are those its valid pixels' bands [depth - truncation, depth + truncation]
// reach (tsdfFrameBlocks); every voxel of those blocks projects into the image once, and where
// its pixel holds a depth d, the voxel centre's depth z and camera-frame position p give the
// distance along the ray sdf = (d - z) |p| / z (as Open3D's; |p| an exact integer square
// root); if sdf >= -truncation, min(sdf, truncation) is folded into the voxel:
//   weight' = weight + w,  distance' = round((weight * distance + w * sdf) / weight'),
//   then weight' capped at maxWeight,
// with w = 1 measurement (constant), or falling linearly to 0 at -truncation behind the
// surface (LinearDropOff). All integer arithmetic (positions in 1/65536 voxel, the rotation
// in Q30, the camera in Q16 pixels): the GPU's voxels equal the CPU reference's bit for bit,
// and a voxel meets each frame once, so the order of voxels within a frame does not matter.
//
// Colour: a frame with DepthFrame::colour into a map that has the tsdf_colour layer
// (kTsdfColourLayer, made with the map: `LayerSet{kTsdfLayer, kTsdfColourLayer}`) also folds its
// pixel's red, green, blue into the voxel's weighted mean colour, with the same w and cap, where
// the measurement lies inside the band (not clamped to +truncation: that pixel sees a surface
// far behind the voxel); shaders/map/tsdf_colour_layer.h has the fold. A frame without colour
// leaves the colours as they are; a map without the layer folds the depth only.
//
// Threads: the functions keep no state; one thread at a time changes a map.
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/gpu/tsdf/tsdf_shared.h"
#include "voxen/map/depth_image.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

enum class TsdfWeighting {
  Constant,       // every measurement weighs 1
  LinearDropOff,  // behind the surface the weight falls linearly to 0 at -truncation
};

struct TsdfOptions {
  double truncationVoxels = 4.0;  // the band around the surface, in voxels (at most 64)
  double maxWeight = 64.0;        // measurements: the weight stops growing here (a moving scene forgets)
  TsdfWeighting weighting = TsdfWeighting::Constant;
  double maxRange = 10.0;         // metres: farther depths are no measurement
  // Throws SettingError naming the field (TsdfOptions::truncationVoxels, ...) for a value out
  // of range for a map of `resolution` metres.
  void validate(double resolution) const;
  // The map's record of the settings (OccupancyMap::derivedSettings(kTsdfLayer)).
  std::string settingsText() const;
  bool operator==(const TsdfOptions&) const = default;
};

// A frame's camera as the integers both implementations use. Throws Error naming the frame's
// field for an image whose size does not match its intrinsics, a non-positive focal length,
// an empty image, or a camera too far from the map's origin for the fixed-point math.
gpu::TsdfCamera tsdfCamera(const DepthFrame& frame, const TsdfOptions& options, double resolution);

// A block of kTsdfBlock^3 voxels: its key (voxel coordinates / 8).
struct TsdfBlock {
  int32_t x = 0, y = 0, z = 0;
  auto operator<=>(const TsdfBlock&) const = default;
};

// The blocks a frame reaches: each valid pixel's band ends, at depth - truncation (at least
// one fine unit) and depth + truncation along the pixel's ray, and every block in the box of
// the two ends' blocks; sorted, each once.
std::vector<TsdfBlock> tsdfFrameBlocks(const gpu::TsdfCamera& camera, const DepthImage& depth);

struct TsdfFrameStats {
  uint64_t blocks = 0;          // blocks the frame reached
  uint64_t regionsMade = 0;     // regions the map gained
  uint64_t voxelsUpdated = 0;   // voxels whose pixel measured them (counted by the CPU reference only)
};

// The CPU reference: integrates one frame into `map` (which gains the tsdf layer and the
// regions the frame reaches; their region size must be a multiple of 8). Throws as
// tsdfCamera and TsdfOptions::validate, SettingError naming TsdfOptions' field when the
// map's tsdf layer was made with other settings, and Error for a colour image whose size does
// not match the depth image's (the map unchanged).
TsdfFrameStats integrateDepthCpu(OccupancyMap& map, const DepthFrame& frame, const TsdfOptions& options);

// Prepares `map` for TSDF frames with `options`: adds the layer, checks the region size and
// that the settings match those the layer was made with (recording them on first use).
void prepareTsdfMap(OccupancyMap& map, const TsdfOptions& options);

// One voxel's fold of one measurement (the formula above), shared by both implementations'
// tests: the stored voxel after measuring `sdf` with weight `w` (already in range).
gpu::TsdfVoxel tsdfFold(gpu::TsdfVoxel voxel, int64_t sdf, uint32_t w, uint32_t maxWeight);

}  // namespace voxen
