#include "voxen/map/layer_domain.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

// Collects the bad voxels of one array: each counted once, whichever checks flag it; the
// reason kept is the first check's for the lowest voxel.
class FaultCollector {
 public:
  explicit FaultCollector(size_t voxels) : voxels_(voxels) {}
  void add(size_t voxel, const std::string& why) {
    if (voxel >= voxels_) return;
    if (flags_.empty()) flags_.assign(voxels_, 0);
    if (!flags_[voxel]) {
      flags_[voxel] = 1;
      ++result_.voxels;
    }
    if (result_.why.empty() || voxel < result_.first) result_.first = voxel, result_.why = why;
  }
  RegionValueFaults take() { return std::move(result_); }

 private:
  size_t voxels_;
  std::vector<uint8_t> flags_;
  RegionValueFaults result_;
};

// Whether a field's declared range excludes any value of its type (else only the floats'
// NaN and infinities need a look).
template <typename T>
bool rangeMatters(const LayerField& f) {
  if constexpr (std::is_floating_point_v<T>) return true;
  return f.min > double(std::numeric_limits<T>::lowest()) || f.max < double(std::numeric_limits<T>::max());
}

template <typename T>
void checkField(const LayerType& type, size_t index, std::span<const std::byte> values, FaultCollector& faults) {
  const LayerField& f = type.fields[index];
  if (!rangeMatters<T>(f)) return;
  const size_t n = values.size() / type.bytesPerVoxel;
  const std::byte* at = values.data() + index * sizeof(T);
  for (size_t i = 0; i < n; ++i, at += type.bytesPerVoxel) {
    T stored;
    std::memcpy(&stored, at, sizeof stored);
    const double v = double(stored);
    // The common case in one comparison: within the range (false for NaN).
    if (v >= f.min && v <= f.max && (!std::is_floating_point_v<T> || std::isfinite(v))) continue;
    if (const std::string why = fieldProblem(f, v); !why.empty()) faults.add(i, why);
  }
}

std::string voxelText(const OccupancyMap& map, const RegionKey& key, size_t i) {
  const VoxelCoord v = map.voxelOf(key, uint32_t(i));
  char text[80];
  std::snprintf(text, sizeof text, "voxel %zu (%d,%d,%d)", i, v.x, v.y, v.z);
  return text;
}

std::string keyText(const RegionKey& k) {
  char text[48];
  std::snprintf(text, sizeof text, "(%d,%d,%d)", k.x, k.y, k.z);
  return text;
}

}  // namespace

RegionValueFaults checkLayerValues(const OccupancyModel& model, LayerId layer, std::span<const std::byte> values) {
  const LayerType& type = layerType(layer);
  FaultCollector faults(values.size() / type.bytesPerVoxel);
  for (size_t i = 0; i < type.fields.size(); ++i) {
    switch (type.fields[i].type) {
      case FieldType::U8: checkField<uint8_t>(type, i, values, faults); break;
      case FieldType::U16: checkField<uint16_t>(type, i, values, faults); break;
      case FieldType::U32: checkField<uint32_t>(type, i, values, faults); break;
      case FieldType::U64: checkField<uint64_t>(type, i, values, faults); break;
      case FieldType::I8: checkField<int8_t>(type, i, values, faults); break;
      case FieldType::I16: checkField<int16_t>(type, i, values, faults); break;
      case FieldType::I32: checkField<int32_t>(type, i, values, faults); break;
      case FieldType::I64: checkField<int64_t>(type, i, values, faults); break;
      case FieldType::F32: checkField<float>(type, i, values, faults); break;
      case FieldType::F64: checkField<double>(type, i, values, faults); break;
    }
  }
  if (type.check) type.check(model, values, [&](size_t voxel, const std::string& why) { faults.add(voxel, why); });
  return faults.take();
}

std::string impossibleContents(const OccupancyMap& map, const Region& region) {
  for (LayerId id : map.layout().ids()) {
    const RegionValueFaults faults = checkLayerValues(map.model(), id, region.layers[id]);
    if (faults.voxels == 0) continue;
    std::string text = "layer '" + layerType(id).name + "', " + voxelText(map, region.key, faults.first) + ": " + faults.why;
    if (faults.voxels > 1) text += " (" + std::to_string(faults.voxels) + " voxels of this layer in the region are impossible)";
    return text;
  }
  return {};
}

std::vector<LayerValueFaults> findImpossibleValues(const OccupancyMap& map) {
  std::vector<LayerValueFaults> result;
  for (LayerId id : map.layout().ids()) {
    LayerValueFaults total;
    total.layer = id;
    for (const auto& [key, region] : map.regions()) {
      RegionValueFaults faults = checkLayerValues(map.model(), id, region.layers[id]);
      if (faults.voxels == 0) continue;
      if (total.regions == 0 || key < total.firstRegion)
        total.firstRegion = key, total.firstVoxel = faults.first, total.why = std::move(faults.why);
      total.voxels += faults.voxels;
      ++total.regions;
    }
    if (total.voxels > 0) result.push_back(std::move(total));
  }
  return result;
}

std::string describeFaults(const OccupancyMap& map, const std::vector<LayerValueFaults>& faults) {
  std::string text;
  for (const LayerValueFaults& f : faults) {
    if (!text.empty()) text += "; ";
    text += "layer '" + layerType(f.layer).name + "': " + std::to_string(f.voxels) + (f.voxels == 1 ? " voxel" : " voxels") +
            " in " + std::to_string(f.regions) + (f.regions == 1 ? " region" : " regions") + ", the first region " +
            keyText(f.firstRegion) + " " + voxelText(map, f.firstRegion, f.firstVoxel) + ": " + f.why;
  }
  return text;
}

}  // namespace voxen
