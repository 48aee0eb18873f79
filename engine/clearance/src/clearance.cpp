#include "voxen/clearance/clearance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "voxen/host/error.hpp"

namespace voxen {

const char* clearanceTechniqueName(ClearanceTechnique technique) {
  switch (technique) {
    case ClearanceTechnique::Roi: return "roi";
    case ClearanceTechnique::Neighbour: return "neighbour";
    case ClearanceTechnique::OpenList: return "openlist";
    case ClearanceTechnique::Exact: return "exact";
  }
  return "?";
}

ClearanceTechnique clearanceTechniqueNamed(const std::string& name) {
  for (ClearanceTechnique t : {ClearanceTechnique::Roi, ClearanceTechnique::Neighbour, ClearanceTechnique::OpenList,
                               ClearanceTechnique::Exact})
    if (name == clearanceTechniqueName(t)) return t;
  throw Error("clearance: unknown technique '" + name + "' (roi, neighbour, openlist or exact)");
}

glm::ivec3 ClearanceOptions::padding(const OccupancyModel& model) const {
  glm::ivec3 pad;
  for (int a = 0; a < 3; ++a) pad[a] = int(std::ceil(range / (model.resolution * axisScale[a]) - 1e-9));
  return pad;
}

void ClearanceOptions::validate(const OccupancyModel& model) const {
  auto fail = [](const std::string& why) { throw Error("clearance: " + why); };
  if (!(range > 0.0 && std::isfinite(range))) fail("the range must be a positive number of metres");
  for (int a = 0; a < 3; ++a)
    if (!(axisScale[a] > 0.0 && axisScale[a] <= 100.0)) fail("every axis scale must be in (0, 100]");
  const glm::ivec3 pad = padding(model);
  const int limit = (int(gpu::kMaxBlockEdge) - model.regionSize) / 2;
  for (int a = 0; a < 3; ++a)
    if (pad[a] > limit) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "a range of %g m is %d voxels along %c at %g m per voxel (axis scale %g), past the limit of %d "
                    "voxels (the padded block's edge is at most %u voxels): lower the range or coarsen the map",
                    range, pad[a], "xyz"[a], model.resolution, axisScale[a], limit, gpu::kMaxBlockEdge);
      fail(text);
    }
}

std::string ClearanceOptions::fingerprint() const {
  char text[200];
  std::snprintf(text, sizeof text, "range %.17g unknown %s scale %.17g %.17g %.17g", range, unknownFree ? "free" : "obstacle",
                axisScale.x, axisScale.y, axisScale.z);
  return text;
}

void prepareClearance(OccupancyMap& map, const ClearanceOptions& options) {
  const LayerId layer = clearanceLayer();
  map.addLayer(layer);
  const std::string settings = options.fingerprint();
  if (map.derivedSettings(layer) == settings) return;
  for (const auto& [key, region] : map.regions()) map.findRegion(key)->derivedStamp[layer] = 0;
  map.setDerivedSettings(layer, settings);
}

std::vector<RegionKey> clearanceDirtyRegions(const OccupancyMap& map, const ClearanceOptions& options) {
  const LayerId layer = clearanceLayer();
  const bool sameSettings = map.layout().has(layer) && map.derivedSettings(layer) == options.fingerprint();
  std::vector<RegionKey> dirty;
  for (const auto& [key, region] : map.regions()) {
    const uint64_t computed = sameSettings ? region.derivedStamp[layer] : 0;
    bool stale = computed == 0;
    if (!stale)
      for (const RegionKey& k : regionsWithinRange(key, map.model(), options)) {
        const Region* neighbour = map.findRegion(k);
        if (neighbour && neighbour->occupancyStamp > computed) {
          stale = true;
          break;
        }
      }
    if (stale) dirty.push_back(key);
  }
  std::sort(dirty.begin(), dirty.end());
  return dirty;
}

LayerId clearanceLayer() {
  static const LayerId id = [] {
    LayerType type;
    type.name = "clearance";
    type.bytesPerVoxel = 4;
    type.elementBytes = 4;
    type.version = 1;
    type.initialValue.resize(4);
    const float none = kNoObstacleInRange;
    std::memcpy(type.initialValue.data(), &none, 4);
    type.description = "distance (m) to the nearest obstacle within the range, 0 on obstacles, -1: none within range";
    type.fields = {LayerField{.name = "distance",
                              .type = FieldType::F32,
                              .unit = "m",
                              .min = 0.0,
                              .max = std::numeric_limits<float>::max(),
                              .special = double(kNoObstacleInRange)}};
    return registerLayer(type);
  }();
  return id;
}

std::vector<RegionKey> regionsWithinRange(const RegionKey& key, const OccupancyModel& model, const ClearanceOptions& options) {
  const glm::ivec3 pad = options.padding(model);
  const int n = model.regionSize;
  glm::ivec3 lo, hi;
  for (int a = 0; a < 3; ++a) {
    const int64_t first = int64_t((&key.x)[a]) * n - pad[a], last = int64_t((&key.x)[a] + 1) * n - 1 + pad[a];
    lo[a] = int(first >= 0 ? first / n : -((-first + n - 1) / n));
    hi[a] = int(last >= 0 ? last / n : -((-last + n - 1) / n));
  }
  std::vector<RegionKey> keys;
  for (int z = lo.z; z <= hi.z; ++z)
    for (int y = lo.y; y <= hi.y; ++y)
      for (int x = lo.x; x <= hi.x; ++x) keys.push_back({x, y, z});
  return keys;
}

}  // namespace voxen
