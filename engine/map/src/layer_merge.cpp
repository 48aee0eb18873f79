#include "voxen/map/layer_merge.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

template <class T>
T load(std::span<const std::byte> array, size_t index) {
  T value;
  std::memcpy(&value, array.data() + index * sizeof(T), sizeof(T));
  return value;
}

template <class T>
void store(std::span<std::byte> array, size_t index, T value) {
  std::memcpy(array.data() + index * sizeof(T), &value, sizeof(T));
}

size_t voxelCount(std::span<std::byte> out, size_t bytesPerVoxel) { return out.size() / bytesPerVoxel; }

// Independent observations: log-odds add. Sorting the finite values first makes the double
// sum (and so its rounding) the same for every order of the inputs.
void mergeOccupancy(const OccupancyModel& model, std::span<const std::span<const std::byte>> inputs, std::span<std::byte> out) {
  std::vector<float> values;
  values.reserve(inputs.size());
  const size_t n = voxelCount(out, 4);
  for (size_t i = 0; i < n; ++i) {
    values.clear();
    for (const auto& in : inputs) {
      const float v = load<float>(in, i);
      if (isObserved(v)) values.push_back(v);
    }
    float merged = kUnobserved;
    if (values.size() == 1) {
      merged = values[0];
    } else if (!values.empty()) {
      std::sort(values.begin(), values.end());
      double sum = 0.0;
      for (const float v : values) sum += v;
      merged = std::clamp(float(sum), model.clampMin, model.clampMax);
    }
    store(out, i, merged);
  }
}

// Sums of unsigned counts, saturating at T's largest value (the sum is order independent).
template <class T>
void mergeSaturatingSums(std::span<const std::span<const std::byte>> inputs, std::span<std::byte> out) {
  const size_t n = out.size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    unsigned __int128 sum = 0;
    for (const auto& in : inputs) sum += load<T>(in, i);
    store<T>(out, i, T(std::min<unsigned __int128>(sum, std::numeric_limits<T>::max())));
  }
}

// Pooled mean: counts and sums add. When a total passes u32, the count is lowered to the
// largest value that keeps every scaled sum within u32, and each sum scaled by the same
// factor (rounded down, so sum <= 1023 x count still holds).
void mergeVoxelMean(std::span<const std::span<const std::byte>> inputs, std::span<std::byte> out) {
  constexpr uint64_t kMax = std::numeric_limits<uint32_t>::max();
  const size_t n = voxelCount(out, sizeof(VoxelMean));
  for (size_t i = 0; i < n; ++i) {
    uint64_t count = 0, sum[3] = {0, 0, 0};
    for (const auto& in : inputs) {
      const VoxelMean m = load<VoxelMean>(in, i);
      count += m.count;
      for (int a = 0; a < 3; ++a) sum[a] += m.sum[a];
    }
    const uint64_t largestSum = std::max({sum[0], sum[1], sum[2]});
    uint64_t scaledCount = count;
    if (count > kMax || largestSum > kMax) {
      scaledCount = std::min(count, kMax);
      if (largestSum > 0) scaledCount = std::min<uint64_t>(scaledCount, uint64_t((unsigned __int128)kMax * count / largestSum));
    }
    VoxelMean merged;
    merged.count = uint32_t(scaledCount);
    for (int a = 0; a < 3; ++a)
      merged.sum[a] = scaledCount == count ? uint32_t(sum[a]) : uint32_t((unsigned __int128)sum[a] * scaledCount / count);
    store(out, i, merged);
  }
}

void mergeTouchTime(std::span<const std::span<const std::byte>> inputs, std::span<std::byte> out) {
  const size_t n = voxelCount(out, 8);
  for (size_t i = 0; i < n; ++i) {
    double latest = 0.0;
    for (const auto& in : inputs) latest = std::max(latest, load<double>(in, i));
    store(out, i, latest);
  }
}

}  // namespace

std::optional<std::string> mergeRuleProblem(LayerId id) {
  if (id == kOccupancyLayer || id == kHitMissLayer || id == kTraversalLayer || id == kVoxelMeanLayer || id == kTouchTimeLayer)
    return std::nullopt;
  const LayerType& type = layerType(id);
  if (type.opaque)
    return "layer '" + type.name + "' is unknown to this build (kept opaquely), so there is no rule to merge its values";
  if (id == kClearanceLayer) return "layer 'clearance' is derived from occupancy and must be recomputed after a merge";
  if (id == kNdtCovarianceLayer || id == kNdtIntensityLayer)
    return "layer '" + type.name + "' (NDT) has no merge rule yet";
  return "layer '" + type.name + "' has no merge rule";
}

void mergeLayer(LayerId id, const OccupancyModel& model, std::span<const std::span<const std::byte>> inputs,
                std::span<std::byte> out) {
  if (const auto problem = mergeRuleProblem(id)) throw Error("cannot merge: " + *problem);
  for (const auto& in : inputs)
    if (in.size() != out.size())
      throw Error("cannot merge layer '" + layerType(id).name + "': an input array has " + std::to_string(in.size()) +
                  " bytes, the region " + std::to_string(out.size()));
  if (id == kOccupancyLayer)
    mergeOccupancy(model, inputs, out);
  else if (id == kHitMissLayer)
    mergeSaturatingSums<uint32_t>(inputs, out);  // hits and misses alike: u32 each
  else if (id == kTraversalLayer)
    mergeSaturatingSums<uint64_t>(inputs, out);
  else if (id == kVoxelMeanLayer)
    mergeVoxelMean(inputs, out);
  else
    mergeTouchTime(inputs, out);
}

Region mergeRegions(const MapLayout& layout, const OccupancyModel& model, std::span<const Region* const> inputs) {
  if (inputs.empty()) throw Error("cannot merge: no region given");
  Region merged;
  merged.key = inputs.front()->key;
  std::vector<std::span<const std::byte>> arrays(inputs.size());
  for (const LayerId id : layout.ids()) {
    for (size_t k = 0; k < inputs.size(); ++k) arrays[k] = inputs[k]->layers[id];
    merged.layers[id].resize(inputs.front()->layers[id].size());
    mergeLayer(id, model, arrays, merged.layers[id]);
  }
  return merged;
}

}  // namespace voxen
