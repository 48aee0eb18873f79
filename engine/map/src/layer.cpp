#include "voxen/map/layer.hpp"

#include <array>
#include <cstring>
#include <deque>
#include <mutex>

#include "voxen/host/error.hpp"

namespace voxen {

// The flag of an optional built-in layer is bit (id - 1) (MapLayout::fromFlags relies on it).
static_assert(kLayerVoxelMean == 1u << (kVoxelMeanLayer - 1) && kLayerTraversal == 1u << (kTraversalLayer - 1) &&
              kLayerHitMiss == 1u << (kHitMissLayer - 1) && kLayerTouchTime == 1u << (kTouchTimeLayer - 1) &&
              kAllBuiltinLayers == (kLayerVoxelMean | kLayerTraversal | kLayerHitMiss | kLayerTouchTime));

namespace {

std::vector<std::byte> bytesOf(uint32_t value) {
  std::vector<std::byte> bytes(4);
  std::memcpy(bytes.data(), &value, 4);
  return bytes;
}

struct Registry {
  std::mutex mutex;
  std::deque<LayerType> types;  // index = id; a deque keeps references valid as it grows

  Registry() {
    types.push_back({"occupancy", 4, 4, 1, bytesOf(0x7f800000u), "log-odds occupancy (+inf: unobserved)"});
    types.push_back({"voxel_mean", 16, 4, 1, {}, "sample count and sub-voxel position sums (1/1024 voxel)"});
    types.push_back({"traversal", 8, 8, 1, {}, "summed ray length through the voxel (1/65536 voxel)"});
    types.push_back({"hit_miss", 8, 4, 1, {}, "hit and miss counts"});
    types.push_back({"touch_time", 8, 8, 2, {}, "latest time (s) a ray touched the voxel, 0: never"});
    for (LayerType& t : types) t.initialValue.resize(t.bytesPerVoxel);
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

void validate(const LayerType& t) {
  auto fail = [&](const std::string& why) { throw Error("layer '" + t.name + "': " + why); };
  if (t.name.empty() || t.name.size() > 31) fail("a name has 1 to 31 characters");
  for (char c : t.name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) fail("a name uses only a-z, 0-9 and _");
  if (t.elementBytes != 1 && t.elementBytes != 2 && t.elementBytes != 4 && t.elementBytes != 8)
    fail("element size must be 1, 2, 4 or 8 bytes");
  if (t.bytesPerVoxel == 0 || t.bytesPerVoxel % t.elementBytes != 0 || t.bytesPerVoxel > 256)
    fail("bytes per voxel must be a positive multiple of the element size, at most 256");
  if (!t.initialValue.empty() && t.initialValue.size() != t.bytesPerVoxel)
    fail("the initial value must have bytes-per-voxel bytes (" + std::to_string(t.bytesPerVoxel) + ")");
}

bool sameDefinition(const LayerType& a, const LayerType& b) {
  return a.name == b.name && a.bytesPerVoxel == b.bytesPerVoxel && a.elementBytes == b.elementBytes &&
         a.version == b.version && a.initialValue == b.initialValue;
}

}  // namespace

LayerId registerLayer(const LayerType& input) {
  validate(input);
  LayerType type = input;
  type.initialValue.resize(type.bytesPerVoxel);  // empty means zeros
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (LayerId id = 0; id < r.types.size(); ++id) {
    if (r.types[id].name != type.name) continue;
    if (!sameDefinition(r.types[id], type))
      throw Error("layer '" + type.name + "' is already registered with another definition");
    return id;
  }
  if (r.types.size() >= kMaxLayers)
    throw Error("layer '" + type.name + "': no room, " + std::to_string(kMaxLayers) + " layer types are registered");
  r.types.push_back(std::move(type));
  return LayerId(r.types.size() - 1);
}

const LayerType& layerType(LayerId id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (id >= r.types.size()) throw Error("layer id " + std::to_string(id) + " is not registered");
  return r.types[id];
}

std::optional<LayerId> findLayer(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (LayerId id = 0; id < r.types.size(); ++id)
    if (r.types[id].name == name) return id;
  return std::nullopt;
}

std::string layerNames(uint32_t layers) {
  std::string names;
  auto add = [&](uint32_t bit, const char* name) {
    if (layers & bit) names += (names.empty() ? "" : ", ") + std::string(name);
  };
  add(kLayerVoxelMean, "voxel mean");
  add(kLayerTraversal, "traversal");
  add(kLayerHitMiss, "hit/miss counts");
  add(kLayerTouchTime, "touch time");
  return names.empty() ? "occupancy only" : names;
}

MapLayout MapLayout::fromFlags(uint32_t builtinLayers) {
  MapLayout layout;
  for (LayerId id = kVoxelMeanLayer; id <= kTouchTimeLayer; ++id)
    if (builtinLayers & (1u << (id - 1))) layout.add(id);
  return layout;
}

MapLayout& MapLayout::add(LayerId id) {
  layerType(id);  // throws for an unregistered id
  if (!has(id)) ids_.push_back(id);
  return *this;
}

bool MapLayout::has(LayerId id) const {
  for (LayerId present : ids_)
    if (present == id) return true;
  return false;
}

uint32_t MapLayout::builtinFlags() const {
  uint32_t flags = 0;
  for (LayerId id : ids_)
    if (id >= kVoxelMeanLayer && id <= kTouchTimeLayer) flags |= 1u << (id - 1);
  return flags;
}

uint64_t MapLayout::bytesPerVoxel() const {
  uint64_t bytes = 0;
  for (LayerId id : ids_) bytes += layerType(id).bytesPerVoxel;
  return bytes;
}

std::string MapLayout::names() const {
  std::string text;
  for (LayerId id : ids_) text += (text.empty() ? "" : ", ") + layerType(id).name;
  return text;
}

}  // namespace voxen
