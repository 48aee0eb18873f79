#include "voxen/store/map_merge.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "voxen/host/error.hpp"
#include "voxen/map/layer_merge.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/store_file.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen {

namespace {

constexpr uint64_t kBatchBytes = 32ull << 20;

// One input, read region by region: a map file, or a store (an SQLite file, or a server's fused
// map, read through MapStore).
struct MergeInput {
  std::filesystem::path path;
  OccupancyModel model;
  MapLayout layout;
  double timeOrigin = 0.0;
  std::optional<MapFileRegionReader> map;
  std::unique_ptr<MapStore> store;

  // The settings the map records of layer `id` (empty: none recorded).
  std::string derivedSettings(LayerId id) const {
    return store ? store->description().derivedSettings[id] : map->shape().derivedSettings(id);
  }
  std::string ndtSettings() const { return derivedSettings(kNdtCovarianceLayer); }

  static MergeInput open(const std::filesystem::path& path) {
    MergeInput in;
    in.path = path;
    if (isPostgresTarget(path.string()) || isRegionStoreFile(path)) {
      in.store = openMapStoreForReading(path.string());
      in.model = in.store->description().model;
      in.layout = in.store->description().layout;
      in.timeOrigin = in.store->description().timeOrigin;
    } else {
      in.map.emplace(path);
      in.model = in.map->shape().model();
      in.layout = in.map->shape().layout();
      in.timeOrigin = in.map->shape().timeOrigin();
    }
    return in;
  }

  std::vector<RegionKey> keys() {
    if (store) return store->keys();
    std::vector<RegionKey> keys;
    keys.reserve(map->info().regions.size());
    for (const auto& entry : map->info().regions) keys.push_back(entry.key);
    return keys;
  }

  // The region at `key`, or null; `scratch` holds it.
  const Region* region(const RegionKey& key, std::optional<Region>& scratch) {
    scratch = map ? map->read(key) : store->readRegion(key);
    return scratch ? &*scratch : nullptr;
  }
};

// An input as messages name it: a server's URL without its password.
std::string quoted(const std::filesystem::path& p) { return "'" + redactedStoreName(p.string()) + "'"; }

std::string number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

void checkSameModel(const MergeInput& a, const MergeInput& b) {
  const struct {
    const char* name;
    double first, second;
  } fields[] = {{"resolution", a.model.resolution, b.model.resolution},
                {"region size", double(a.model.regionSize), double(b.model.regionSize)},
                {"hit probability", a.model.hitProbability, b.model.hitProbability},
                {"miss probability", a.model.missProbability, b.model.missProbability},
                {"occupancy threshold", a.model.occupancyThreshold, b.model.occupancyThreshold},
                {"clamp min", a.model.clampMin, b.model.clampMin},
                {"clamp max", a.model.clampMax, b.model.clampMax}};
  for (const auto& f : fields)
    if (f.first != f.second)
      throw Error("cannot merge " + quoted(a.path) + " and " + quoted(b.path) + ": " + f.name + " " + number(f.first) + " vs " +
                  number(f.second) + " (only maps of the same resolution, region size and model merge)");
}

// The layers every input must hold alike; clearance may differ, as it is dropped, and so may
// occupancy_remainder, which only merged maps hold (0 where absent).
LayerSet mergedLayers(const MapLayout& layout) {
  return layout.optionalLayers().remove(kClearanceLayer).remove(kOccupancyRemainderLayer);
}

void checkSameLayers(const MergeInput& a, const MergeInput& b) {
  if (mergedLayers(a.layout) != mergedLayers(b.layout))
    // MapLayout::names, not layerNames: the latter names the four builtin optional layers only.
    throw Error("cannot merge " + quoted(a.path) + " and " + quoted(b.path) + ": layers " +
                MapLayout::of(mergedLayers(a.layout)).names() + " vs " + MapLayout::of(mergedLayers(b.layout)).names() +
                " (only maps with the same layers merge)");
}

void checkMergeable(const MergeInput& in) {
  for (const LayerId id : in.layout.ids()) {
    if (id == kClearanceLayer) continue;
    if (const auto problem = mergeRuleProblem(id)) throw Error("cannot merge " + quoted(in.path) + ": " + *problem);
  }
}

// The NDT model of an input's Gaussians, which the merged covariance needs (its prior), from
// the settings the integrators record in the map.
NdtMergeModel checkedNdtModel(const MergeInput& in) {
  const std::string settings = in.ndtSettings();
  if (settings.empty())
    throw Error("cannot merge " + quoted(in.path) +
                ": its NDT layers do not record the NDT settings they were made with (the map predates that record), and "
                "merging Gaussians needs them; remake it with this build's NDT mapping from its recording");
  if (settings == kNdtSettingsMixed)
    throw Error("cannot merge " + quoted(in.path) +
                ": it was continued with other NDT settings than it was made with, so its Gaussians mix two priors; remake "
                "it in one run with one set of NDT settings");
  try {
    return ndtMergeModel(settings, in.model.resolution);
  } catch (const Error& e) {
    throw Error("cannot merge " + quoted(in.path) + ": " + e.what());
  }
}

void checkSameNdtSettings(const MergeInput& a, const MergeInput& b) {
  const auto first = ndtSettingsFields(a.ndtSettings()), second = ndtSettingsFields(b.ndtSettings());
  for (const auto& [key, value] : first) {
    const auto other = std::find_if(second.begin(), second.end(), [&](const auto& f) { return f.first == key; });
    const std::string otherValue = other == second.end() ? "(none)" : other->second;
    if (otherValue != value)
      throw Error("cannot merge " + quoted(a.path) + " and " + quoted(b.path) + ": NDT " + key + " " + value + " vs " + otherValue +
                  " (only maps made with the same NDT settings merge)");
  }
  if (first.size() != second.size())
    throw Error("cannot merge " + quoted(a.path) + " and " + quoted(b.path) + ": NDT settings '" + a.ndtSettings() + "' vs '" +
                b.ndtSettings() + "' (only maps made with the same NDT settings merge)");
}

}  // namespace

bool mergeOutputIsMapFile(const std::filesystem::path& output) { return output.string().ends_with(".vxm"); }

MergeResult mergeMaps(const std::vector<std::filesystem::path>& paths, const std::filesystem::path& output,
                      const MergeOptions& options) {
  if (paths.size() < 2)
    throw Error("cannot merge: " + std::to_string(paths.size()) + " input given; merging needs at least two maps or stores");
  // The same file twice would count its observations twice: a mistake, never a merge.
  for (size_t i = 0; i < paths.size(); ++i)
    for (size_t j = i + 1; j < paths.size(); ++j) {
      std::error_code ec;
      if (paths[i] == paths[j] || (std::filesystem::equivalent(paths[i], paths[j], ec) && !ec))
        throw Error("cannot merge: " + quoted(paths[i]) + " and " + quoted(paths[j]) +
                    " are the same file (merging a map with itself would count its observations twice)");
    }
  std::vector<MergeInput> inputs;
  inputs.reserve(paths.size());
  for (const auto& path : paths) {
    inputs.push_back(MergeInput::open(path));
    checkMergeable(inputs.back());
    if (inputs.size() > 1) {
      checkSameModel(inputs.front(), inputs.back());
      checkSameLayers(inputs.front(), inputs.back());
    }
  }
  std::optional<NdtMergeModel> ndt;
  if (inputs.front().layout.has(kNdtCovarianceLayer)) {
    for (const MergeInput& in : inputs) checkedNdtModel(in);
    for (size_t i = 1; i < inputs.size(); ++i) checkSameNdtSettings(inputs.front(), inputs[i]);
    ndt = checkedNdtModel(inputs.front());
  }
  // A TSDF folds with the settings it was made with (truncation band, largest weight,
  // weighting; voxen/tsdf/tsdf.hpp): the weighted mean of distances truncated to other bands
  // would be no TSDF, so the inputs must record the same settings, which the merged map keeps.
  std::optional<std::string> tsdfSettings;
  if (inputs.front().layout.has(kTsdfLayer)) {
    tsdfSettings = inputs.front().derivedSettings(kTsdfLayer);
    for (size_t i = 1; i < inputs.size(); ++i)
      if (const std::string other = inputs[i].derivedSettings(kTsdfLayer); other != *tsdfSettings)
        throw Error("cannot merge " + quoted(inputs.front().path) + " and " + quoted(inputs[i].path) + ": TSDF settings '" +
                    *tsdfSettings + "' vs '" + other + "' (only maps made with the same TSDF settings merge)");
  }

  MergeResult result;
  const OccupancyModel model = inputs.front().model;
  result.layout = MapLayout::of(mergedLayers(inputs.front().layout));
  // The earliest first ray of the inputs that have one: an empty map's origin (0, never
  // integrated) says nothing, so a merge with it keeps the other map's.
  std::optional<double> timeOrigin;
  std::vector<RegionKey> keys;
  for (MergeInput& in : inputs) {
    if (in.layout.has(kClearanceLayer)) {
      if (result.droppedLayers.empty()) result.droppedLayers.push_back("clearance");
      const std::string settings =
          in.store ? in.store->description().derivedSettings[kClearanceLayer] : in.map->shape().derivedSettings(kClearanceLayer);
      if (std::find(result.clearanceSettings.begin(), result.clearanceSettings.end(), settings) == result.clearanceSettings.end())
        result.clearanceSettings.push_back(settings);
    }
    const std::vector<RegionKey> more = in.keys();
    if (!more.empty()) timeOrigin = std::min(timeOrigin.value_or(in.timeOrigin), in.timeOrigin);
    keys.insert(keys.end(), more.begin(), more.end());
  }
  std::sort(keys.begin(), keys.end());
  // The output keeps occupancy_remainder when an input has it or two inputs share a region
  // (where log-odds are added): by induction, exactly when two of the maps that were never
  // merged share a region, whatever the grouping, so (a + b) + c and a + (b + c) have the
  // same layers. A merge of maps that share nothing (one with an empty map) adds no layer.
  const bool remainder =
      std::any_of(inputs.begin(), inputs.end(), [](const MergeInput& in) { return in.layout.has(kOccupancyRemainderLayer); }) ||
      std::adjacent_find(keys.begin(), keys.end()) != keys.end();
  if (remainder && options.keepRemainder) result.layout = MapLayout::of(mergedLayers(inputs.front().layout) | kOccupancyRemainderLayer);
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());

  // Calls emit(region) for every merged region in ascending key order.
  const auto mergeAll = [&](const std::function<void(Region&&)>& emit) {
    std::vector<std::optional<Region>> scratch(inputs.size());
    std::vector<const Region*> held;
    for (size_t k = 0; k < keys.size(); ++k) {
      held.clear();
      for (size_t i = 0; i < inputs.size(); ++i)
        if (const Region* r = inputs[i].region(keys[k], scratch[i])) held.push_back(r);
      if (held.size() > 1) ++result.sharedRegions;
      emit(mergeRegions(result.layout, model, held, ndt));
      for (auto& s : scratch) s.reset();
      if (options.progress) options.progress(k + 1, keys.size());
    }
  };

  OccupancyMap empty(model, result.layout);
  // No input holds a region: the earliest origin of all (not the first input's, which would
  // make the output depend on the inputs' order).
  const auto earliest = std::min_element(inputs.begin(), inputs.end(), [](const MergeInput& a, const MergeInput& b) {
    return a.timeOrigin < b.timeOrigin;
  });
  empty.setTimeOrigin(timeOrigin.value_or(earliest->timeOrigin));
  // The merged Gaussians were made with the inputs' (equal) NDT settings.
  if (ndt) empty.setDerivedSettings(kNdtCovarianceLayer, inputs.front().ndtSettings());
  if (tsdfSettings) empty.setDerivedSettings(kTsdfLayer, *tsdfSettings);
  if (mergeOutputIsMapFile(output)) {
    checkMemoryBudget(uint64_t(keys.size()) * empty.bytesPerRegion(), options.memoryBudgetBytes,
                      "merging into the map file '" + output.string() + "' (built whole in memory): its " +
                          std::to_string(keys.size()) + " regions",
                      options.budgetHint);
    OccupancyMap merged = std::move(empty);
    mergeAll([&](Region&& region) { merged.region(region.key).layers = std::move(region.layers); });
    saveMap(merged, output, options.mapOutput);
  } else {
    buildStore(output, StoreDescription::of(empty), options.storeOutput, [&](RegionStore& store) {
      // Merged regions wait for their transaction in memory: at most kBatchBytes of them (a
      // region with every layer at 32^3 voxels is 1.4 MiB, so 256 of them would be 360 MiB).
      const size_t batchRegions =
          std::clamp<uint64_t>(kBatchBytes / std::max<uint64_t>(1, empty.bytesPerRegion()), 1, kStoreBuildBatchRegions);
      std::vector<Region> pending;
      pending.reserve(batchRegions);
      const auto flush = [&] {
        StoreBatch batch;
        for (const Region& r : pending) batch.regions.push_back(&r);
        store.write(batch);
        pending.clear();
      };
      mergeAll([&](Region&& region) {
        pending.push_back(std::move(region));
        if (pending.size() == batchRegions) flush();
      });
      if (!pending.empty()) flush();
    });
  }
  std::sort(result.clearanceSettings.begin(), result.clearanceSettings.end());
  result.regions = keys.size();
  return result;
}

}  // namespace voxen
