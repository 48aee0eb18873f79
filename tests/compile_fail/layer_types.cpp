// Mistakes that must not compile, one per VOXEN_CASE (check.sh compiles each with
// -fsyntax-only and requires the compiler's refusal); case 0 is the control that must
// compile, so that a case cannot pass through a broken include path or flag.
#include "voxen/map/map.hpp"

using namespace voxen;

void probe() {
  const OccupancyModel model;
#if VOXEN_CASE == 0
  const OccupancyMap a(model, kHitMissLayer | kVoxelMeanLayer);
  const OccupancyMap b(model, LayerSet{kHitMissLayer});
  Region region;
  (void)region.values<float>(kOccupancyLayer);
  (void)a, (void)b;
#elif VOXEN_CASE == 1
  const OccupancyMap map(model, kHitMissLayer);  // one layer is not a set of layers
#elif VOXEN_CASE == 2
  const OccupancyMap map(model, 4u);  // flag bits are not a set of layers
#elif VOXEN_CASE == 3
  const LayerSet set = kHitMissLayer;
#elif VOXEN_CASE == 4
  const LayerId id = LayerSet{kHitMissLayer};  // a set is not one layer
#elif VOXEN_CASE == 5
  Region region;
  (void)region.values<float>(3u);  // an integer is not a layer id
#elif VOXEN_CASE == 6
  const uint32_t bits = kHitMissLayer;  // nor is a layer id an integer
#endif
}
