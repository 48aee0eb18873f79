#pragma once
// Map layers: the kinds of per-voxel data a map can hold, and a map's layout (which layers,
// in which order).
//
// A layer type is registered once per process under a stable name: its bytes per voxel,
// the value every voxel starts with, and the version of its content. The built-in types
// (occupancy, voxel_mean, traversal, hit_miss, touch_time) are always registered, under
// fixed ids the shaders know (shaders/map/layer_table.h). A module that needs a new
// per-voxel quantity registers its type and writes the shader code that uses it; the region
// cache, the host map and the map file handle every layer through one loop over the layout.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/gpu/map/layer_table.h"

namespace voxen {

using LayerId = uint32_t;

// The built-in layers' ids, which the shaders know too (shaders/map/layer_table.h).
inline constexpr LayerId kOccupancyLayer = gpu::kLayerIdOccupancy;
inline constexpr LayerId kVoxelMeanLayer = gpu::kLayerIdVoxelMean;
inline constexpr LayerId kTraversalLayer = gpu::kLayerIdTraversal;
inline constexpr LayerId kHitMissLayer = gpu::kLayerIdHitMiss;
inline constexpr LayerId kTouchTimeLayer = gpu::kLayerIdTouchTime;
inline constexpr LayerId kMaxLayers = gpu::kMaxLayers;  // registered layer types per process

// The optional built-in layers as flag bits (OccupancyMap's constructor, the CLI, version 1
// map files): bit (id - 1).
enum Layer : uint32_t {
  kLayerVoxelMean = gpu::kLayerVoxelMean,  // sub-voxel sample position sum and sample count
  kLayerTraversal = gpu::kLayerTraversal,  // summed ray length through the voxel
  kLayerHitMiss = gpu::kLayerHitMiss,      // hit and miss counts
  kLayerTouchTime = gpu::kLayerTouchTime,  // latest time a ray touched the voxel
};
inline constexpr uint32_t kAllBuiltinLayers = gpu::kBuiltinLayerFlags;
std::string layerNames(uint32_t layers);

struct LayerType {
  std::string name;             // stable identifier, written into map files: [a-z0-9_], 1-31 characters
  uint32_t bytesPerVoxel = 4;   // a multiple of elementBytes
  uint32_t elementBytes = 4;    // unit of byte order (1, 2, 4 or 8): files store each element little-endian
  uint32_t version = 1;         // of the content's meaning; files with another version are refused
  std::vector<std::byte> initialValue;  // bytesPerVoxel bytes a new voxel starts with; empty: zeros
  std::string description;      // for `voxen info`
};

// Registers a layer type and returns its id. Registering the same definition again returns
// the same id; another definition under a registered name, an invalid one, or more than
// kMaxLayers types throw Error naming the layer.
LayerId registerLayer(const LayerType& type);
// The registered type of an id (throws Error for an id that is not registered).
const LayerType& layerType(LayerId id);
std::optional<LayerId> findLayer(std::string_view name);

// Which layers a map holds, in order; occupancy is always first.
class MapLayout {
 public:
  MapLayout() : ids_{kOccupancyLayer} {}
  // Occupancy plus the optional built-in layers whose kLayer* bits are set, in bit order.
  static MapLayout fromFlags(uint32_t builtinLayers);

  // Appends a layer (no effect when present).
  MapLayout& add(LayerId id);
  bool has(LayerId id) const;
  const std::vector<LayerId>& ids() const { return ids_; }
  // kLayer* bits of the optional built-in layers present.
  uint32_t builtinFlags() const;
  uint64_t bytesPerVoxel() const;
  // "occupancy, voxel_mean, ..." for messages.
  std::string names() const;
  bool operator==(const MapLayout&) const = default;

 private:
  std::vector<LayerId> ids_;
};

}  // namespace voxen
