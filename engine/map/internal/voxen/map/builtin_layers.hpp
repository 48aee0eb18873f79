#pragma once
// The definitions of every layer type the engine itself defines, the map module's own table:
// a map file holding any of them loads in a process that never touched the module that
// computes the layer (clearance, NDT), because no registration call stands between the file
// and its types. The modules keep their GPU and CPU code and check that their structures
// match these sizes and values.
#include <cstdint>
#include <vector>

#include "voxen/map/layer.hpp"

namespace voxen::detail {

inline constexpr float kClearanceNoObstacleValue = -1.0f;  // clearance's "none within range"
inline constexpr uint32_t kNdtCovarianceBytes = 24;        // gpu::NdtCovariance: six f32
inline constexpr uint32_t kNdtIntensityBytes = 8;          // gpu::NdtIntensity: two f32

// Indexed by id: entry i is the type of LayerId i (kOccupancyLayer .. kNdtIntensityLayer).
std::vector<LayerType> builtinLayerTypes();

}  // namespace voxen::detail
