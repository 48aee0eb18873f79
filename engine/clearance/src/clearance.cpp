#include "voxen/clearance/clearance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <locale>
#include <sstream>

#include "voxen/host/error.hpp"
#include "voxen/map/builtin_layers.hpp"
#include "voxen/map/decimal_voxel.hpp"

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

namespace {

std::string number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// The smallest voxel layer whose centre is at or above `metres`; the largest at or below it:
// compared on the decimals as written (voxen/map/decimal_voxel.hpp), so --ignore-above 0.15
// at 0.1 m keeps layer 1, whose centre is 0.15 m.
int64_t firstLayerAtOrAbove(double metres, double resolution) { return firstVoxelCentredAtOrAbove(metres, resolution); }
int64_t lastLayerAtOrBelow(double metres, double resolution) { return lastVoxelCentredAtOrBelow(metres, resolution); }

}  // namespace

int ClearanceOptions::maxPadding(const OccupancyModel& model) { return (int(gpu::kMaxBlockEdge) - model.regionSize) / 2; }

glm::ivec3 ClearanceOptions::padding(const OccupancyModel& model) const {
  const int limit = maxPadding(model);
  glm::ivec3 pad;
  for (int a = 0; a < 3; ++a) {
    // In double precision and compared before any conversion: a tiny (or denormal) scale
    // gives a huge or infinite quotient, which must be refused, not cast to int.
    const double voxels = std::ceil(range / (model.resolution * axisScale[a]) - 1e-9);
    if (!(voxels <= double(limit))) {
      char text[400];
      std::snprintf(text, sizeof text,
                    "clearance: a range of %s m at %s m per voxel with axis scale %s along %c spans %s voxels along "
                    "%c, past the limit of %d voxels (a padded block's edge is at most %u voxels, the region's %d plus twice the "
                    "padding): the range can be at most %s m along %c; lower the range, raise the axis scale or "
                    "coarsen the map",
                    number(range).c_str(), number(model.resolution).c_str(), number(axisScale[a]).c_str(), "xyz"[a],
                    number(voxels).c_str(), "xyz"[a], limit, gpu::kMaxBlockEdge, model.regionSize,
                    number(limit * model.resolution * axisScale[a]).c_str(), "xyz"[a]);
      throw ClearanceSettingsError("range/axis-scale", text);
    }
    pad[a] = std::max(0, int(voxels));
  }
  return pad;
}

ObstacleBand ClearanceOptions::band(const OccupancyModel& model) const {
  ObstacleBand b;
  // Past the int32 voxel range every map voxel is on one side: clamped there, the band says
  // the same for every voxel a map can hold (validate refuses heights that far out).
  auto clamp32 = [](int64_t z) { return int32_t(std::clamp<int64_t>(z, INT32_MIN, INT32_MAX)); };
  if (ignoreBelow) b.hasLow = true, b.low = clamp32(firstLayerAtOrAbove(*ignoreBelow, model.resolution));
  if (ignoreAbove) b.hasHigh = true, b.high = clamp32(lastLayerAtOrBelow(*ignoreAbove, model.resolution));
  return b;
}

void ClearanceOptions::validate(const OccupancyModel& model) const {
  if (!(range >= 1e-6 && range <= 1e4))
    throw ClearanceSettingsError("range", "clearance: the range must be a number of metres from 1e-6 to 10000, not " +
                                              number(range));
  for (int a = 0; a < 3; ++a)
    if (!(axisScale[a] > 0.0 && axisScale[a] <= 100.0))
      throw ClearanceSettingsError("axis-scale", std::string("clearance: every axis scale must be in (0, 100]; along ") +
                                                     "xyz"[a] + " it is " + number(axisScale[a]));
  padding(model);
  // Heights a map's voxels can have (2^30 voxels either way, as the tool's other heights).
  const double reach = double(int64_t(1) << 30) * model.resolution;
  auto checkHeight = [&](const std::optional<double>& z, const char* setting) {
    if (z && !(std::abs(*z) <= reach))
      throw ClearanceSettingsError(setting, "clearance: a height of " + number(*z) + " m is past the map's voxel range of " +
                                                number(reach) + " m either way at " + number(model.resolution) + " m per voxel");
  };
  checkHeight(ignoreBelow, "ignore-below");
  checkHeight(ignoreAbove, "ignore-above");
  if (ignoreBelow && ignoreAbove) {
    const ObstacleBand b = band(model);
    if (b.low > b.high)
      throw ClearanceSettingsError("ignore-below/ignore-above",
                                   "clearance: no voxel centre lies between ignoring below " + number(*ignoreBelow) +
                                       " m and above " + number(*ignoreAbove) + " m at " + number(model.resolution) +
                                       " m per voxel: nothing could be an obstacle");
  }
}

std::string ClearanceOptions::fingerprint() const {
  char text[320];
  std::snprintf(text, sizeof text, "range %.17g technique %s unknown %s scale %.17g %.17g %.17g", range,
                clearanceTechniqueName(technique), unknownFree ? "free" : "obstacle", axisScale.x, axisScale.y, axisScale.z);
  std::string out = text;
  if (ignoreBelow) std::snprintf(text, sizeof text, " below %.17g", *ignoreBelow), out += text;
  if (ignoreAbove) std::snprintf(text, sizeof text, " above %.17g", *ignoreAbove), out += text;
  return out;
}

std::optional<ClearanceOptions> ClearanceOptions::parseSettings(const std::string& text) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  ClearanceOptions o;
  std::string word, value;
  bool haveRange = false;
  while (in >> word) {
    if (word == "range") {
      if (!(in >> o.range)) return std::nullopt;
      haveRange = true;
    } else if (word == "technique") {
      if (!(in >> value)) return std::nullopt;
      try {
        o.technique = clearanceTechniqueNamed(value);
      } catch (const Error&) {
        return std::nullopt;
      }
    } else if (word == "unknown") {
      if (!(in >> value) || (value != "free" && value != "obstacle")) return std::nullopt;
      o.unknownFree = value == "free";
    } else if (word == "scale") {
      if (!(in >> o.axisScale.x >> o.axisScale.y >> o.axisScale.z)) return std::nullopt;
    } else if (word == "below" || word == "above") {
      double z;
      if (!(in >> z)) return std::nullopt;
      (word == "below" ? o.ignoreBelow : o.ignoreAbove) = z;
    } else {
      return std::nullopt;
    }
  }
  if (!haveRange) return std::nullopt;
  return o;
}

std::string ClearanceOptions::describe() const {
  std::string out = "range " + number(range) + " m, " + clearanceTechniqueName(technique) + " technique, unknown space " +
                    (unknownFree ? "free" : "an obstacle") + ", axis scale " + number(axisScale.x) + " " +
                    number(axisScale.y) + " " + number(axisScale.z);
  if (ignoreBelow) out += ", obstacles below " + number(*ignoreBelow) + " m ignored";
  if (ignoreAbove) out += ", obstacles above " + number(*ignoreAbove) + " m ignored";
  return out;
}

std::string clearanceSettingsInWords(const MapLayout& layout, const std::string& recorded) {
  if (!layout.has(clearanceLayer())) return "";
  if (recorded.empty()) return "computed with settings that were not recorded (a map file from before they were)";
  const std::optional<ClearanceOptions> options = ClearanceOptions::parseSettings(recorded);
  return options ? options->describe() : "recorded settings not understood: " + recorded;
}

std::string clearanceSettingsInWords(const OccupancyMap& map) {
  if (!map.layout().has(clearanceLayer())) return "";
  return clearanceSettingsInWords(map.layout(), map.derivedSettings(clearanceLayer()));
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
  // Clearance depends only on which voxels are obstacles: with unknown space free, the
  // occupied ones; otherwise every voxel that is not free. So a region is stale when that set
  // changed in it or in a region within range (a dropped region counts, from when it went),
  // not when log-odds merely moved within a class, as most of a scan's updates do.
  const VoxelClass obstacleSet = options.unknownFree ? VoxelClass::Occupied : VoxelClass::Free;
  std::vector<RegionKey> dirty;
  for (const auto& [key, region] : map.regions()) {
    const uint64_t computed = sameSettings ? region.derivedStamp[layer] : 0;
    bool stale = computed == 0;
    if (!stale)
      for (const RegionKey& k : regionsWithinRange(key, map.model(), options))
        if (map.classSetStamp(k, obstacleSet) > computed) {
          stale = true;
          break;
        }
    if (stale) dirty.push_back(key);
  }
  std::sort(dirty.begin(), dirty.end());
  return dirty;
}

// The type is the map module's (voxen/map/builtin_layers.hpp), so that a map file with
// clearance loads in any process; this module's values must be the ones it declares.
static_assert(kNoObstacleInRange == detail::kClearanceNoObstacleValue);
LayerId clearanceLayer() { return kClearanceLayer; }

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
