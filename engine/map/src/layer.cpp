#include "voxen/map/layer.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <mutex>

#include "voxen/host/error.hpp"
#include "voxen/map/builtin_layers.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

// The shaders' flag of an optional built-in layer is bit (id - 1) (LayerSet::builtinFlags).
static_assert(LayerSet{kVoxelMeanLayer}.builtinFlags() == gpu::kLayerVoxelMean &&
              LayerSet{kTraversalLayer}.builtinFlags() == gpu::kLayerTraversal &&
              LayerSet{kHitMissLayer}.builtinFlags() == gpu::kLayerHitMiss &&
              LayerSet{kTouchTimeLayer}.builtinFlags() == gpu::kLayerTouchTime &&
              kAllBuiltinLayers.builtinFlags() == gpu::kBuiltinLayerFlags &&
              LayerSet::fromBuiltinFlags(gpu::kBuiltinLayerFlags) == kAllBuiltinLayers);

std::vector<LayerId> LayerSet::ids() const {
  std::vector<LayerId> out;
  for (uint32_t i = 0; i < kMaxLayers; ++i)
    if (has(LayerId(i))) out.push_back(LayerId(i));
  return out;
}

uint32_t fieldBytes(FieldType type) {
  switch (type) {
    case FieldType::U8: case FieldType::I8: return 1;
    case FieldType::U16: case FieldType::I16: return 2;
    case FieldType::U32: case FieldType::I32: case FieldType::F32: return 4;
    case FieldType::U64: case FieldType::I64: case FieldType::F64: return 8;
  }
  return 0;
}

const char* fieldTypeName(FieldType type) {
  switch (type) {
    case FieldType::U8: return "u8";
    case FieldType::U16: return "u16";
    case FieldType::U32: return "u32";
    case FieldType::U64: return "u64";
    case FieldType::I8: return "i8";
    case FieldType::I16: return "i16";
    case FieldType::I32: return "i32";
    case FieldType::I64: return "i64";
    case FieldType::F32: return "f32";
    case FieldType::F64: return "f64";
  }
  return "?";
}

bool isFloatField(FieldType type) { return type == FieldType::F32 || type == FieldType::F64; }

namespace {

template <typename T>
double loadAs(const std::byte* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return double(v);
}

}  // namespace

double fieldValue(const LayerType& type, const std::byte* voxel, size_t index) {
  const std::byte* at = voxel + index * type.elementBytes;
  switch (type.fields[index].type) {
    case FieldType::U8: return loadAs<uint8_t>(at);
    case FieldType::U16: return loadAs<uint16_t>(at);
    case FieldType::U32: return loadAs<uint32_t>(at);
    case FieldType::U64: return loadAs<uint64_t>(at);
    case FieldType::I8: return loadAs<int8_t>(at);
    case FieldType::I16: return loadAs<int16_t>(at);
    case FieldType::I32: return loadAs<int32_t>(at);
    case FieldType::I64: return loadAs<int64_t>(at);
    case FieldType::F32: return loadAs<float>(at);
    case FieldType::F64: return loadAs<double>(at);
  }
  return 0.0;
}

namespace {

// The shortest text that reads back as the value in the field's own type (0.1f as 0.1).
std::string valueText(const LayerField& field, double value) {
  if (field.type != FieldType::F32 || !std::isfinite(value)) return formatNumber(value);
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, float(value)).ptr;
  return std::string(text, end);
}

}  // namespace

std::string fieldProblem(const LayerField& field, double value) {
  if (field.special && (value == *field.special)) return {};
  const std::string head = field.name + " " + valueText(field, value);
  if (std::isnan(value) || std::isinf(value)) return head + " is not finite";
  if (value < field.min) return head + " is below " + valueText(field, field.min);
  if (value > field.max) return head + " is above " + valueText(field, field.max);
  return {};
}

std::string fieldDomainText(const LayerField& field) {
  double lowest = 0.0, highest = 0.0;
  switch (field.type) {
    case FieldType::U8: highest = 255.0; break;
    case FieldType::U16: highest = 65535.0; break;
    case FieldType::U32: highest = 4294967295.0; break;
    case FieldType::U64: highest = 18446744073709551615.0; break;
    case FieldType::I8: lowest = -128.0, highest = 127.0; break;
    case FieldType::I16: lowest = -32768.0, highest = 32767.0; break;
    case FieldType::I32: lowest = -2147483648.0, highest = 2147483647.0; break;
    case FieldType::I64: lowest = -9223372036854775808.0, highest = 9223372036854775807.0; break;
    case FieldType::F32: highest = std::numeric_limits<float>::max(), lowest = -highest; break;
    case FieldType::F64: highest = std::numeric_limits<double>::max(), lowest = -highest; break;
  }
  std::string text = isFloatField(field.type) ? "finite" : "";
  auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  if (field.min > lowest) add("at least " + valueText(field, field.min));
  if (field.max < highest) add("at most " + valueText(field, field.max));
  if (text.empty()) text = "any";
  if (field.special) {
    const double s = *field.special;
    text += " or " + (std::isinf(s) ? std::string(s > 0 ? "+inf" : "-inf") : valueText(field, s));
  }
  return text;
}

double fieldQuantity(const LayerField& field, double stored, double resolution) {
  return stored * field.scale * (field.perVoxelEdge ? resolution : 1.0);
}

namespace {

struct Registry {
  std::mutex mutex;
  std::deque<LayerType> types;  // index = id; a deque keeps references valid as it grows

  // Every type the engine defines is here from the start, so that loading a map never
  // depends on which of the engine's modules a program happened to call before.
  Registry() {
    for (LayerType& t : detail::builtinLayerTypes()) types.push_back(std::move(t));
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

bool validName(const std::string& name) {
  if (name.empty() || name.size() > 31) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// What an opaque layer needs too: a name and sizes the file format and byte swapping can carry.
void validateShape(const LayerType& t) {
  auto fail = [&](const std::string& why) { throw Error("layer '" + t.name + "': " + why); };
  if (t.name.empty() || t.name.size() > 31) fail("a name has 1 to 31 characters");
  if (!validName(t.name)) fail("a name uses only a-z, 0-9 and _");
  if (t.elementBytes != 1 && t.elementBytes != 2 && t.elementBytes != 4 && t.elementBytes != 8)
    fail("element size must be 1, 2, 4 or 8 bytes");
  if (t.bytesPerVoxel == 0 || t.bytesPerVoxel % t.elementBytes != 0 || t.bytesPerVoxel > 256)
    fail("bytes per voxel must be a positive multiple of the element size, at most 256");
}

void validate(const LayerType& t) {
  auto fail = [&](const std::string& why) { throw Error("layer '" + t.name + "': " + why); };
  validateShape(t);
  if (t.opaque) fail("only a map file's loader makes opaque layers (registerOpaqueLayer)");
  if (!t.initialValue.empty() && t.initialValue.size() != t.bytesPerVoxel)
    fail("the initial value must have bytes-per-voxel bytes (" + std::to_string(t.bytesPerVoxel) + ")");
  // Every tool that reads a layer generically (verification, exports) needs its fields.
  if (t.fields.empty())
    fail("declare its fields (LayerType::fields: name, scalar type, unit and the values each can take), " +
         std::to_string(t.bytesPerVoxel / t.elementBytes) + " of " + std::to_string(t.elementBytes) + " bytes");
  if (t.fields.size() * t.elementBytes != t.bytesPerVoxel)
    fail(std::to_string(t.fields.size()) + " fields of " + std::to_string(t.elementBytes) + " bytes do not make the " +
         std::to_string(t.bytesPerVoxel) + " bytes per voxel");
  for (size_t i = 0; i < t.fields.size(); ++i) {
    const LayerField& f = t.fields[i];
    const std::string which = "field " + std::to_string(i) + " '" + f.name + "'";
    if (!validName(f.name)) fail(which + ": a field name has 1 to 31 characters of a-z, 0-9 and _");
    for (size_t j = 0; j < i; ++j)
      if (t.fields[j].name == f.name) fail(which + " is declared twice");
    if (fieldBytes(f.type) != t.elementBytes)
      fail(which + ": a " + fieldTypeName(f.type) + " is not the element size of " + std::to_string(t.elementBytes) + " bytes");
    if (std::isnan(f.min) || std::isnan(f.max) || !(f.min <= f.max)) fail(which + ": its range needs min <= max");
    if (f.special && std::isnan(*f.special)) fail(which + ": NaN cannot be a special value");
    if (!(std::isfinite(f.scale) && f.scale != 0.0)) fail(which + ": its scale must be finite and not 0");
  }
  std::vector<std::byte> initial = t.initialValue;
  initial.resize(t.bytesPerVoxel);
  for (size_t i = 0; i < t.fields.size(); ++i)
    if (const std::string why = fieldProblem(t.fields[i], fieldValue(t, initial.data(), i)); !why.empty())
      fail("its initial value is impossible: " + why);
}

bool sameDefinition(const LayerType& a, const LayerType& b) {
  return a.name == b.name && a.bytesPerVoxel == b.bytesPerVoxel && a.elementBytes == b.elementBytes &&
         a.version == b.version && a.initialValue == b.initialValue && a.fields == b.fields;
}

}  // namespace

LayerId registerLayer(const LayerType& input) {
  validate(input);
  LayerType type = input;
  type.initialValue.resize(type.bytesPerVoxel);  // empty means zeros
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (uint32_t i = 0; i < r.types.size(); ++i) {
    const LayerId id(i);
    if (r.types[i].name != type.name) continue;
    if (r.types[i].opaque)
      throw Error("layer '" + type.name + "' was loaded from a map file as opaque bytes before its type was registered: "
                  "register it before loading maps that hold it");
    if (!sameDefinition(r.types[i], type))
      throw Error("layer '" + type.name + "' is already registered with another definition");
    return id;
  }
  if (r.types.size() >= kMaxLayers)
    throw Error("layer '" + type.name + "': no room, " + std::to_string(kMaxLayers) + " layer types are registered");
  r.types.push_back(std::move(type));
  return LayerId(uint32_t(r.types.size() - 1));
}

LayerId registerOpaqueLayer(const std::string& name, uint32_t bytesPerVoxel, uint32_t elementBytes, uint32_t version) {
  LayerType type;
  type.name = name;
  type.bytesPerVoxel = bytesPerVoxel;
  type.elementBytes = elementBytes;
  type.version = version;
  type.opaque = true;
  type.description = "opaque: a layer type this build does not know, kept as bytes";
  validateShape(type);
  type.initialValue.resize(type.bytesPerVoxel);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (uint32_t i = 0; i < r.types.size(); ++i) {
    const LayerType& known = r.types[i];
    if (known.name != name) continue;
    if (!known.opaque || known.bytesPerVoxel != bytesPerVoxel || known.elementBytes != elementBytes || known.version != version)
      throw Error("layer '" + name + "' (version " + std::to_string(version) + ", " + std::to_string(bytesPerVoxel) +
                  " bytes per voxel) does not match the layer of that name already known to this process (version " +
                  std::to_string(known.version) + ", " + std::to_string(known.bytesPerVoxel) + " bytes per voxel)");
    return LayerId(i);
  }
  if (r.types.size() >= kMaxLayers)
    throw Error("layer '" + name + "': no room, " + std::to_string(kMaxLayers) + " layer types are registered");
  r.types.push_back(std::move(type));
  return LayerId(uint32_t(r.types.size() - 1));
}

const LayerType& layerType(LayerId id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (id.index() >= r.types.size()) throw Error("layer id " + std::to_string(id.index()) + " is not registered");
  return r.types[id.index()];
}

std::optional<LayerId> findLayer(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (uint32_t i = 0; i < r.types.size(); ++i)
    if (r.types[i].name == name) return LayerId(i);
  return std::nullopt;
}

std::string layerNames(LayerSet layers) {
  std::string names;
  auto add = [&](LayerId id, const char* name) {
    if (layers.has(id)) names += (names.empty() ? "" : ", ") + std::string(name);
  };
  add(kVoxelMeanLayer, "voxel mean");
  add(kTraversalLayer, "traversal");
  add(kHitMissLayer, "hit/miss counts");
  add(kTouchTimeLayer, "touch time");
  return names.empty() ? "occupancy only" : names;
}

// The table's order is the ids' order.
static_assert(kClearanceLayer.index() == gpu::kBuiltinLayerCount && kNdtCovarianceLayer.index() == kClearanceLayer.index() + 1 &&
              kNdtIntensityLayer.index() == kNdtCovarianceLayer.index() + 1 &&
              kOccupancyRemainderLayer.index() == kNdtIntensityLayer.index() + 1 && kTsdfLayer.index() == kOccupancyRemainderLayer.index() + 1 &&
              kTsdfColourLayer.index() == kTsdfLayer.index() + 1 && kEngineLayerCount == kTsdfColourLayer.index() + 1);

MapLayout MapLayout::of(LayerSet layers) {
  MapLayout layout;
  for (const LayerId id : layers.ids()) layout.add(id);
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

LayerSet MapLayout::optionalLayers() const {
  LayerSet set;
  for (const LayerId id : ids_)
    if (id != kOccupancyLayer) set.add(id);
  return set;
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
