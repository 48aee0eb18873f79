#include "voxen/map/layer_merge.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>

#include "voxen/gpu/map/tsdf_colour_layer.h"
#include "voxen/gpu/map/tsdf_layer.h"
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

// An observed occupancy value as an exact fixed-point log-odds count (2^-40 log-odds): the
// conversion is deterministic (a scaling by a power of two, rounded to nearest) and integer
// sums do not depend on order or grouping, which float sums do.
__int128 fixedLogOdds(float v, size_t voxel) {
  constexpr double kLimit = 0x1p22;  // log-odds; a clamp range is a few units wide
  if (!(std::abs(v) < kLimit))
    throw Error("cannot merge occupancy: voxel " + std::to_string(voxel) + " holds log-odds " + std::to_string(v) +
                ", beyond the +-4194304 the exact merge sum takes");
  return __int128(std::llround(std::ldexp(double(v), kOccupancyRemainderFractionBits)));
}

// Independent observations: log-odds add, exactly: every observed input contributes its
// occupancy plus its remainder (what earlier merges clamped or rounded away), the integer sum
// is clamped and rounded once to the stored float, and what that left out is the output's
// remainder. A voxel one input observed keeps that input's bits.
void mergeOccupancy(const OccupancyModel& model, std::span<const std::span<const std::byte>> inputs,
                    std::span<const std::span<const std::byte>> remainders, std::span<std::byte> out,
                    std::span<std::byte> remainderOut) {
  constexpr __int128 kSumLimit = __int128(1) << 62;
  const size_t n = voxelCount(out, 4);
  const auto remainderOf = [&](size_t k, size_t i) { return remainders[k].empty() ? int64_t(0) : load<int64_t>(remainders[k], i); };
  for (size_t i = 0; i < n; ++i) {
    size_t observed = 0, only = 0;
    __int128 sum = 0;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const float v = load<float>(inputs[k], i);
      if (!isObserved(v)) continue;
      ++observed, only = k;
      sum += fixedLogOdds(v, i) + remainderOf(k, i);
    }
    float merged = kUnobserved;
    int64_t remainder = 0;
    if (observed == 1) {
      merged = load<float>(inputs[only], i);
      remainder = remainderOf(only, i);
    } else if (observed > 1) {
      if (sum >= kSumLimit || sum <= -kSumLimit)
        throw Error("cannot merge occupancy: the exact log-odds sum of voxel " + std::to_string(i) +
                    " is beyond the +-4194304 it can hold");
      const double exact = std::ldexp(double(int64_t(sum)), -kOccupancyRemainderFractionBits);
      merged = std::clamp(float(exact), model.clampMin, model.clampMax);
      remainder = int64_t(sum - fixedLogOdds(merged, i));
    }
    store(out, i, merged);
    if (!remainderOut.empty()) store(remainderOut, i, remainder);
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

// TSDF: the weighted mean of the inputs' distances, their weights summed (integers: any order
// gives the same bits); rounded to nearest, halves away from zero, as the integrators fold.
void mergeTsdf(std::span<const std::span<const std::byte>> inputs, std::span<std::byte> out) {
  const size_t n = voxelCount(out, sizeof(gpu::TsdfVoxel));
  for (size_t i = 0; i < n; ++i) {
    int64_t weighted = 0;
    uint64_t weight = 0;
    for (const auto& in : inputs) {
      const gpu::TsdfVoxel v = load<gpu::TsdfVoxel>(in, i);
      weighted += int64_t(v.weight) * v.distance;
      weight += v.weight;
    }
    gpu::TsdfVoxel merged{0, 0};
    if (weight > 0) {
      merged.distance = int32_t(gpu::tsdfRoundDiv(weighted, int64_t(weight)));
      merged.weight = uint32_t(std::min<uint64_t>(weight, std::numeric_limits<uint32_t>::max()));
    }
    store(out, i, merged);
  }
}

// TSDF colour: per channel the mean of the inputs' colours weighted by their colour weights,
// the weights summed; integer sums, rounded to nearest (halves up) once, so any order of the
// inputs gives the same bits, and two inputs give gpu::tsdfColourMean's fold.
void mergeTsdfColour(std::span<const std::span<const std::byte>> inputs, std::span<std::byte> out) {
  const size_t n = voxelCount(out, sizeof(gpu::TsdfColourVoxel));
  for (size_t i = 0; i < n; ++i) {
    uint64_t sums[3] = {0, 0, 0}, weight = 0;
    for (const auto& in : inputs) {
      const gpu::TsdfColourVoxel v = load<gpu::TsdfColourVoxel>(in, i);
      for (uint32_t c = 0; c < 3; ++c) sums[c] += uint64_t(v.weight) * gpu::tsdfColourChannel(v.rgb, c);
      weight += v.weight;
    }
    gpu::TsdfColourVoxel merged{0, 0};
    if (weight > 0) {
      for (uint32_t c = 0; c < 3; ++c) merged.rgb |= uint32_t((sums[c] + weight / 2) / weight) << (8 * c);
      merged.weight = uint32_t(std::min<uint64_t>(weight, std::numeric_limits<uint32_t>::max()));
    }
    store(out, i, merged);
  }
}

// The NDT rule's inputs in a canonical order (by their bytes), so that every order of the
// maps gives the same double sums.
bool canonicalBefore(const NdtVoxelStats& a, const NdtVoxelStats& b) { return std::memcmp(&a, &b, sizeof a) < 0; }
static_assert(sizeof(NdtVoxelStats) == sizeof(VoxelMean) + sizeof(gpu::NdtCovariance) + sizeof(gpu::NdtIntensity));

glm::dmat3 covarianceOf(const gpu::NdtCovariance& c) {
  glm::dmat3 s(0.0);  // glm: [column][row]
  s[0][0] = c.s00, s[0][1] = c.s10, s[1][1] = c.s11, s[0][2] = c.s20, s[1][2] = c.s21, s[2][2] = c.s22;
  return s * glm::transpose(s);
}

// The lower Cholesky factor of p. Every pivot of the exact P is at least its smallest
// eigenvalue, which the prior keeps at d0^2 / n or more; `floor` (that bound) only catches
// float rounding of the inputs' factors.
gpu::NdtCovariance choleskyOf(const glm::dmat3& p, double floor) {
  const double l00 = std::sqrt(std::max(p[0][0], floor));
  const double l10 = p[0][1] / l00, l20 = p[0][2] / l00;
  const double l11 = std::sqrt(std::max(p[1][1] - l10 * l10, floor));
  const double l21 = (p[1][2] - l20 * l10) / l11;
  const double l22 = std::sqrt(std::max(p[2][2] - l20 * l20 - l21 * l21, floor));
  return gpu::NdtCovariance{float(l00), float(l10), float(l11), float(l20), float(l21), float(l22)};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ndtSettingsFields(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> fields;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string field = text.substr(at, end - at);
    const size_t eq = field.find('=');
    if (!field.empty()) fields.emplace_back(field.substr(0, eq), eq == std::string::npos ? "" : field.substr(eq + 1));
    at = end + 1;
  }
  return fields;
}

NdtMergeModel ndtMergeModel(const std::string& settings, double resolution) {
  for (const auto& [key, value] : ndtSettingsFields(settings)) {
    if (key != "initial_deviation") continue;
    char* end = nullptr;
    const double deviation = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(deviation > 0.0) || !std::isfinite(deviation))
      throw Error("the NDT settings' initial_deviation '" + value + "' is not a positive number");
    // As the integrators take it (ndtParams): metres, in float.
    return NdtMergeModel{float(deviation * resolution)};
  }
  throw Error("the NDT settings '" + settings + "' have no initial_deviation");
}

void mergeNdtVoxel(std::span<const NdtVoxelStats> inputs, const NdtMergeModel& ndt, double resolution,
                   gpu::NdtCovariance& covariance, gpu::NdtIntensity& intensity) {
  if (inputs.empty()) throw Error("cannot merge an NDT voxel: no input given");
  std::vector<NdtVoxelStats> pooled, withoutGaussian, empty;
  for (const NdtVoxelStats& in : inputs)
    (in.mean.count == 0 ? empty : in.covariance.s00 > 0.0f ? pooled : withoutGaussian).push_back(in);
  const auto largest = [](const std::vector<NdtVoxelStats>& v) { return *std::max_element(v.begin(), v.end(), canonicalBefore); };
  // Nothing to pool: the factor of a voxel the reference would restart (or never started).
  if (!withoutGaussian.empty() || pooled.empty()) {
    const NdtVoxelStats kept = largest(withoutGaussian.empty() ? empty : withoutGaussian);
    covariance = kept.covariance;
    intensity = kept.intensity;
    return;
  }
  if (pooled.size() == 1) {
    covariance = pooled[0].covariance;
    intensity = pooled[0].intensity;
    return;
  }
  std::sort(pooled.begin(), pooled.end(), canonicalBefore);
  uint64_t n = 0, sum[3] = {0, 0, 0};
  double intensitySum = 0.0;
  for (const NdtVoxelStats& in : pooled) {
    n += in.mean.count;
    for (int a = 0; a < 3; ++a) sum[a] += in.mean.sum[a];
    intensitySum += double(in.mean.count) * in.intensity.mean;
  }
  const double total = double(n), d0 = ndt.initialDeviation, metresPerUnit = resolution / double(VoxelMean::kScale);
  const double intensityMean = intensitySum / total;
  // n P = sum (n_k P_k) - (K - 1) d0^2 I + sum n_k (m_k - m)(m_k - m)^T: each input's prior
  // taken out of its M2, one put back.
  glm::dmat3 scatter(0.0);
  double intensityScatter = 0.0;
  for (const NdtVoxelStats& in : pooled) {
    const double nk = in.mean.count;
    glm::dvec3 d;
    for (int a = 0; a < 3; ++a) d[a] = (double(in.mean.sum[a]) / nk - double(sum[a]) / total) * metresPerUnit;
    scatter += nk * covarianceOf(in.covariance) + nk * glm::outerProduct(d, d);
    const double di = double(in.intensity.mean) - intensityMean;
    intensityScatter += nk * double(in.intensity.variance) + nk * di * di;
  }
  scatter -= double(pooled.size() - 1) * d0 * d0 * glm::dmat3(1.0);
  covariance = choleskyOf(scatter / total, d0 * d0 / total);
  intensity.mean = float(intensityMean);
  intensity.variance = float(std::min(intensityScatter / total, double(std::numeric_limits<float>::max())));
}

std::optional<std::string> mergeRuleProblem(LayerId id) {
  if (id == kOccupancyLayer || id == kHitMissLayer || id == kTraversalLayer || id == kVoxelMeanLayer || id == kTouchTimeLayer ||
      id == kNdtCovarianceLayer || id == kNdtIntensityLayer || id == kOccupancyRemainderLayer || id == kTsdfLayer ||
      id == kTsdfColourLayer)
    return std::nullopt;
  const LayerType& type = layerType(id);
  if (type.opaque)
    return "layer '" + type.name + "' is unknown to this build (kept opaquely), so there is no rule to merge its values";
  if (id == kClearanceLayer) return "layer 'clearance' is derived from occupancy and must be recomputed after a merge";
  return "layer '" + type.name + "' has no merge rule";
}

void mergeLayer(LayerId id, const OccupancyModel& model, std::span<const std::span<const std::byte>> inputs,
                std::span<std::byte> out) {
  if (const auto problem = mergeRuleProblem(id)) throw Error("cannot merge: " + *problem);
  if (id == kNdtCovarianceLayer || id == kNdtIntensityLayer)
    throw Error("cannot merge layer '" + layerType(id).name + "' alone: the NDT rule reads the voxel means too (mergeRegions)");
  if (id == kOccupancyRemainderLayer)
    throw Error("cannot merge layer 'occupancy_remainder' alone: it is merged with occupancy (mergeRegions)");
  for (const auto& in : inputs)
    if (in.size() != out.size())
      throw Error("cannot merge layer '" + layerType(id).name + "': an input array has " + std::to_string(in.size()) +
                  " bytes, the region " + std::to_string(out.size()));
  if (id == kOccupancyLayer)
    mergeOccupancy(model, inputs, std::vector<std::span<const std::byte>>(inputs.size()), out, {});
  else if (id == kHitMissLayer)
    mergeSaturatingSums<uint32_t>(inputs, out);  // hits and misses alike: u32 each
  else if (id == kTraversalLayer)
    mergeSaturatingSums<uint64_t>(inputs, out);
  else if (id == kVoxelMeanLayer)
    mergeVoxelMean(inputs, out);
  else if (id == kTsdfLayer)
    mergeTsdf(inputs, out);
  else if (id == kTsdfColourLayer)
    mergeTsdfColour(inputs, out);
  else
    mergeTouchTime(inputs, out);
}

namespace {

// Both NDT layers of a region at once (the intensity when the layout has it), voxel by voxel.
void mergeNdtLayers(const MapLayout& layout, const OccupancyModel& model, std::span<const Region* const> inputs,
                    const NdtMergeModel& ndt, Region& merged) {
  for (const LayerId id : {kVoxelMeanLayer, kNdtCovarianceLayer, kNdtIntensityLayer}) {
    if (!layout.has(id)) continue;
    const size_t bytes = inputs.front()->layers[id].size();
    for (const Region* in : inputs)
      if (in->layers[id].size() != bytes)
        throw Error("cannot merge layer '" + layerType(id).name + "': an input array has " + std::to_string(in->layers[id].size()) +
                    " bytes, another " + std::to_string(bytes));
    merged.layers[id].resize(bytes);
  }
  const bool tm = layout.has(kNdtIntensityLayer);
  auto covariance = merged.values<gpu::NdtCovariance>(kNdtCovarianceLayer);
  auto intensity = merged.values<gpu::NdtIntensity>(kNdtIntensityLayer);
  std::vector<NdtVoxelStats> voxel(inputs.size());
  gpu::NdtIntensity unused{};
  for (size_t i = 0; i < covariance.size(); ++i) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Region& in = *inputs[k];
      voxel[k].mean = in.mean()[i];
      voxel[k].covariance = in.values<gpu::NdtCovariance>(kNdtCovarianceLayer)[i];
      voxel[k].intensity = tm ? in.values<gpu::NdtIntensity>(kNdtIntensityLayer)[i] : gpu::NdtIntensity{};
    }
    mergeNdtVoxel(voxel, ndt, model.resolution, covariance[i], tm ? intensity[i] : unused);
  }
}

}  // namespace

Region mergeRegions(const MapLayout& layout, const OccupancyModel& model, std::span<const Region* const> inputs,
                    const std::optional<NdtMergeModel>& ndt) {
  if (inputs.empty()) throw Error("cannot merge: no region given");
  Region merged;
  merged.key = inputs.front()->key;
  if (layout.has(kNdtCovarianceLayer) || layout.has(kNdtIntensityLayer)) {
    if (!layout.has(kNdtCovarianceLayer) || !layout.has(kVoxelMeanLayer))
      throw Error("cannot merge NDT layers without both ndt_covariance and voxel_mean (the layers are " + layout.names() + ")");
    if (!ndt) throw Error("cannot merge the NDT layers: the NDT model the maps were made with is not known");
    mergeNdtLayers(layout, model, inputs, *ndt, merged);
  }
  std::vector<std::span<const std::byte>> arrays(inputs.size()), remainders(inputs.size());
  const size_t occupancyBytes = inputs.front()->layers[kOccupancyLayer].size();
  for (size_t k = 0; k < inputs.size(); ++k) {
    arrays[k] = inputs[k]->layers[kOccupancyLayer];
    remainders[k] = inputs[k]->layers[kOccupancyRemainderLayer];  // empty: an input that was never merged
    if (arrays[k].size() != occupancyBytes || (!remainders[k].empty() && remainders[k].size() != 2 * occupancyBytes))
      throw Error("cannot merge layer 'occupancy': an input array has " + std::to_string(arrays[k].size()) + " bytes (remainder " +
                  std::to_string(remainders[k].size()) + "), another " + std::to_string(occupancyBytes));
  }
  merged.layers[kOccupancyLayer].resize(occupancyBytes);
  if (layout.has(kOccupancyRemainderLayer)) merged.layers[kOccupancyRemainderLayer].resize(2 * occupancyBytes);
  mergeOccupancy(model, arrays, remainders, merged.layers[kOccupancyLayer], merged.layers[kOccupancyRemainderLayer]);
  for (const LayerId id : layout.ids()) {
    if (id == kOccupancyLayer || id == kOccupancyRemainderLayer || id == kNdtCovarianceLayer || id == kNdtIntensityLayer) continue;
    for (size_t k = 0; k < inputs.size(); ++k) arrays[k] = inputs[k]->layers[id];
    merged.layers[id].resize(inputs.front()->layers[id].size());
    mergeLayer(id, model, arrays, merged.layers[id]);
  }
  return merged;
}

}  // namespace voxen
