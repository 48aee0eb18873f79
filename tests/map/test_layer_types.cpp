// LayerId and LayerSet are distinct types: one layer never passes for a set of layers (as
// kHitMissLayer once selected voxel_mean + traversal, read as flag bits), and integers pass
// for neither. tests/compile_fail/ compiles the same mistakes and requires the refusal.
#include <catch2/catch.hpp>

#include <type_traits>

#include "voxen/map/map.hpp"
#include "voxen/map/map_file.hpp"

using namespace voxen;

static_assert(!std::is_convertible_v<LayerId, LayerSet> && !std::is_constructible_v<LayerSet, LayerId>);
static_assert(!std::is_convertible_v<LayerSet, LayerId> && !std::is_constructible_v<LayerId, LayerSet>);
static_assert(!std::is_convertible_v<uint32_t, LayerId> && !std::is_convertible_v<LayerId, uint32_t>);
static_assert(!std::is_convertible_v<uint32_t, LayerSet> && !std::is_constructible_v<LayerSet, uint32_t>);
static_assert(!std::is_constructible_v<OccupancyMap, OccupancyModel, LayerId>);
static_assert(!std::is_constructible_v<OccupancyMap, OccupancyModel, uint32_t>);
static_assert(std::is_constructible_v<OccupancyMap, OccupancyModel, LayerSet>);

TEST_CASE("A set of layers holds the ids it is given and no others", "[maplayers]") {
  const LayerSet set = kHitMissLayer | kVoxelMeanLayer;
  CHECK(set.has(kHitMissLayer));
  CHECK(set.has(kVoxelMeanLayer));
  CHECK_FALSE(set.has(kTraversalLayer));
  CHECK(set.ids() == std::vector<LayerId>{kVoxelMeanLayer, kHitMissLayer});
  CHECK(set.hasAny(kTraversalLayer | kHitMissLayer));
  CHECK_FALSE(set.hasAny(kTraversalLayer | kTouchTimeLayer));
  CHECK((set | kClearanceLayer).has(kClearanceLayer));
  CHECK(LayerSet{set}.remove(kHitMissLayer) == LayerSet{kVoxelMeanLayer});
  CHECK(LayerSet{}.empty());

  // The map built from hit_miss alone holds hit_miss alone.
  const OccupancyMap map(OccupancyModel{}, LayerSet{kHitMissLayer});
  CHECK(map.layout().ids() == std::vector<LayerId>{kOccupancyLayer, kHitMissLayer});
  CHECK(map.layers() == LayerSet{kHitMissLayer});
  CHECK(bytesPerVoxel(LayerSet{kHitMissLayer}) == 4 + 8);

  // The shaders' and version 1 files' bits are bit (id - 1) of the occupancy layers only.
  CHECK(LayerSet{kHitMissLayer}.builtinFlags() == gpu::kLayerHitMiss);
  CHECK((kClearanceLayer | kVoxelMeanLayer).builtinFlags() == gpu::kLayerVoxelMean);
  CHECK(LayerSet::fromBuiltinFlags(gpu::kLayerTraversal | gpu::kLayerTouchTime) == (kTraversalLayer | kTouchTimeLayer));
  CHECK(layerNames(kHitMissLayer | kTouchTimeLayer) == "hit/miss counts, touch time");
}
