#pragma once
// Map layers: the kinds of per-voxel data a map can hold, and a map's layout (which layers,
// in which order).
//
// A layer type is known to a process under a stable name: its bytes per voxel, the value
// every voxel starts with, the version of its content, and its fields (name, scalar type,
// unit and the values each can take). The fields are what every layer-generic tool works
// from: `voxen info --verify` and loading refuse values outside their domains, and `voxen
// export --layer` writes them as PLY properties and heat maps. Every type the engine defines
// (occupancy, voxel_mean, traversal, hit_miss, touch_time, clearance, ndt_covariance,
// ndt_intensity, occupancy_remainder, tsdf, tsdf_colour) is known from the start under a fixed id, so a map file that holds them
// loads with no registration call. A program's own per-voxel quantity is registered once
// (registerLayer) with the shader code that uses it; the region cache, the host map and the
// map file handle every layer through one loop over the layout. A layer a map file holds but
// this process does not know loads as an opaque type (bytes per voxel, element size and
// version from the file, no fields): its bytes are kept and saved back unchanged.
#include <array>
#include <compare>
#include <cstddef>
#include <initializer_list>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/gpu/map/layer_table.h"

namespace voxen {

// One layer type of a process: an index into the layer table (shaders/map/layer_table.h)
// that the shaders get in push constants. A distinct type, so that neither an integer nor a
// set of layers (LayerSet) passes for one.
class LayerId {
 public:
  constexpr LayerId() = default;
  constexpr explicit LayerId(uint32_t index) : index_(index) {}
  constexpr uint32_t index() const { return index_; }
  constexpr auto operator<=>(const LayerId&) const = default;

 private:
  uint32_t index_ = 0;
};

inline constexpr uint32_t kMaxLayers = gpu::kMaxLayers;  // layer types per process: ids 0 .. kMaxLayers - 1

// The built-in layers' ids, which the shaders know too (shaders/map/layer_table.h).
inline constexpr LayerId kOccupancyLayer{gpu::kLayerIdOccupancy};
inline constexpr LayerId kVoxelMeanLayer{gpu::kLayerIdVoxelMean};  // sub-voxel sample position sum and sample count
inline constexpr LayerId kTraversalLayer{gpu::kLayerIdTraversal};  // summed ray length through the voxel
inline constexpr LayerId kHitMissLayer{gpu::kLayerIdHitMiss};      // hit and miss counts
inline constexpr LayerId kTouchTimeLayer{gpu::kLayerIdTouchTime};  // latest time a ray touched the voxel
// The engine's other layers, fixed ids after those the occupancy shaders know (their passes
// get these ids in push constants).
inline constexpr LayerId kClearanceLayer{gpu::kBuiltinLayerCount};                // clearance module
inline constexpr LayerId kNdtCovarianceLayer{kClearanceLayer.index() + 1};        // occupancy module, NDT
inline constexpr LayerId kNdtIntensityLayer{kNdtCovarianceLayer.index() + 1};
// What a merge's clamping and rounding left out of occupancy (voxen/map/layer_merge.hpp): the
// exact log-odds sum minus the stored occupancy, in 2^-kOccupancyRemainderFractionBits
// log-odds; only merged maps hold it.
inline constexpr LayerId kOccupancyRemainderLayer{kNdtIntensityLayer.index() + 1};
inline constexpr int kOccupancyRemainderFractionBits = 40;
// The truncated signed distance from depth images (engine/tsdf; shaders/map/tsdf_layer.h's
// TsdfVoxel): distance in 1/65536 voxel, weight in 1/16 measurement.
inline constexpr LayerId kTsdfLayer{kOccupancyRemainderLayer.index() + 1};
// The TSDF's colour (shaders/map/tsdf_colour_layer.h's TsdfColourVoxel): the weighted mean
// red, green, blue of the pixels that measured the voxel, with its own weight; a map that has
// it folds the colour of coloured depth frames beside the distance.
inline constexpr LayerId kTsdfColourLayer{kTsdfLayer.index() + 1};
inline constexpr uint32_t kEngineLayerCount = kTsdfColourLayer.index() + 1;  // ids below are the engine's own

// A set of layers (which optional layers a map gets: OccupancyMap's constructor, the CLI).
// Built from ids, never from an integer: `kVoxelMeanLayer | kHitMissLayer`,
// `LayerSet{kHitMissLayer}`.
class LayerSet {
 public:
  constexpr LayerSet() = default;
  constexpr LayerSet(std::initializer_list<LayerId> ids) {
    for (const LayerId id : ids) add(id);
  }
  constexpr LayerSet& add(LayerId id) {
    bits_ |= bit(id);
    return *this;
  }
  constexpr LayerSet& remove(LayerId id) {
    bits_ &= ~bit(id);
    return *this;
  }
  constexpr bool has(LayerId id) const { return (bits_ & bit(id)) != 0; }
  constexpr bool hasAny(LayerSet other) const { return (bits_ & other.bits_) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr LayerSet operator|(LayerSet other) const { return fromBits(bits_ | other.bits_); }
  constexpr LayerSet operator|(LayerId id) const { return fromBits(bits_ | bit(id)); }
  constexpr LayerSet operator&(LayerSet other) const { return fromBits(bits_ & other.bits_); }
  constexpr bool operator==(const LayerSet&) const = default;
  // The ids in the set, ascending.
  std::vector<LayerId> ids() const;

  // The optional occupancy layers (voxel_mean .. touch_time) as the shaders' specialisation
  // bits and map format version 1's mask: bit (id - 1). Other layers have no bit.
  constexpr uint32_t builtinFlags() const { return (bits_ >> 1) & gpu::kBuiltinLayerFlags; }
  static constexpr LayerSet fromBuiltinFlags(uint32_t flags) { return fromBits((flags & gpu::kBuiltinLayerFlags) << 1); }

 private:
  static constexpr uint32_t bit(LayerId id) { return id.index() < 32 ? 1u << id.index() : 0u; }
  static constexpr LayerSet fromBits(uint32_t bits) {
    LayerSet set;
    set.bits_ = bits;
    return set;
  }
  uint32_t bits_ = 0;
};
static_assert(kMaxLayers <= 32, "LayerSet holds one bit per layer id");

constexpr LayerSet operator|(LayerId a, LayerId b) { return LayerSet{a, b}; }

// The optional layers of the occupancy integrators.
inline constexpr LayerSet kAllBuiltinLayers{kVoxelMeanLayer, kTraversalLayer, kHitMissLayer, kTouchTimeLayer};
// "voxel mean, hit/miss counts" ("occupancy only" for none) for messages.
std::string layerNames(LayerSet layers);

// One value per layer id (a region's arrays, its stamps, a map's derived settings), indexed
// by LayerId only.
template <class T>
class PerLayer {
 public:
  T& operator[](LayerId id) { return items_[id.index()]; }
  const T& operator[](LayerId id) const { return items_[id.index()]; }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  bool operator==(const PerLayer&) const = default;

 private:
  std::array<T, kMaxLayers> items_{};
};

struct OccupancyModel;

// The scalar type of one field of a layer's voxel value.
enum class FieldType : uint8_t { U8, U16, U32, U64, I8, I16, I32, I64, F32, F64 };
uint32_t fieldBytes(FieldType type);
const char* fieldTypeName(FieldType type);  // "u32", "f64", ...
bool isFloatField(FieldType type);

// One scalar of a layer's voxel value, in order: a voxel is its fields packed back to back.
struct LayerField {
  std::string name;  // [a-z0-9_], 1-31 characters, unique within the layer: the PLY property, the JSON key
  FieldType type = FieldType::F32;
  // What the stored value means: quantity = stored x scale (x the map's resolution when
  // perVoxelEdge: a length or position counted in voxels), in `unit` ("m", "s", "" for counts).
  std::string unit;
  double scale = 1.0;
  bool perVoxelEdge = false;
  // The stored values that can occur: [min, max], or exactly `special` (a marker outside the
  // range: +inf for unobserved occupancy, -1 for clearance's "none within range"). NaN never
  // can; an infinity only as `special`.
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::optional<double> special;
  bool operator==(const LayerField&) const = default;
};

// Reports voxel `voxel` of a layer array as impossible, saying why ("mean sum_x 5000 is more
// than count 0 allows").
using BadVoxel = std::function<void(size_t voxel, const std::string& why)>;
// A check beyond each field's own domain: relations between fields, and limits the map's
// model sets (occupancy within the clamp range). Called with a region's whole array of the
// layer (voxels of bytesPerVoxel bytes, host byte order); calls bad() for every impossible
// voxel in ascending order.
using LayerValueCheck =
    std::function<void(const OccupancyModel& model, std::span<const std::byte> values, const BadVoxel& bad)>;

struct LayerType {
  std::string name;             // stable identifier, written into map files: [a-z0-9_], 1-31 characters
  uint32_t bytesPerVoxel = 4;   // a multiple of elementBytes
  uint32_t elementBytes = 4;    // unit of byte order (1, 2, 4 or 8): files store each element little-endian
  uint32_t version = 1;         // of the content's meaning; files with another version are refused
  std::vector<std::byte> initialValue;  // bytesPerVoxel bytes a new voxel starts with; empty: zeros
  std::string description;      // for `voxen info`
  // Required: the voxel's fields, each elementBytes wide, bytesPerVoxel in all, and the
  // initial value within their domains.
  std::vector<LayerField> fields;
  LayerValueCheck check;        // optional
  std::string checkDescription;  // what `check` requires, for `voxen info`
  // A type this build does not know, made from a map file's layer table: no fields, no
  // checks, exported by no tool; its voxels are kept as bytes and saved back unchanged.
  bool opaque = false;
};

// Field `index` of one voxel's value (host byte order) as a double (64-bit integers past 2^53
// rounded).
double fieldValue(const LayerType& type, const std::byte* voxel, size_t index);
// Why a stored value is outside the field's domain ("time -2 is below 0"); empty when it is
// possible.
std::string fieldProblem(const LayerField& field, double value);
// The quantity a stored value stands for, in the field's unit.
double fieldQuantity(const LayerField& field, double stored, double resolution);
// The field's domain in words: "any", "finite, at least 0", "finite or +inf".
std::string fieldDomainText(const LayerField& field);

// Registers a layer type and returns its id. Registering the same definition again returns
// the same id; another definition under a registered name, an invalid one (a layer without
// fields among them), or more than kMaxLayers types throw Error naming the layer.
LayerId registerLayer(const LayerType& type);
// The opaque type of a layer a map file holds but this process does not know (the same
// name, sizes and version again: the same id). Throws Error when the name is known with
// another shape, or the sizes are impossible.
LayerId registerOpaqueLayer(const std::string& name, uint32_t bytesPerVoxel, uint32_t elementBytes, uint32_t version);
// The registered type of an id (throws Error for an id that is not registered).
const LayerType& layerType(LayerId id);
std::optional<LayerId> findLayer(std::string_view name);

// Which layers a map holds, in order; occupancy is always first.
class MapLayout {
 public:
  MapLayout() : ids_{kOccupancyLayer} {}
  // Occupancy plus the layers of the set, in id order.
  static MapLayout of(LayerSet layers);

  // Appends a layer (no effect when present).
  MapLayout& add(LayerId id);
  bool has(LayerId id) const;
  const std::vector<LayerId>& ids() const { return ids_; }
  // Every layer but occupancy.
  LayerSet optionalLayers() const;
  uint64_t bytesPerVoxel() const;
  // "occupancy, voxel_mean, ..." for messages.
  std::string names() const;
  bool operator==(const MapLayout&) const = default;

 private:
  std::vector<LayerId> ids_;
};

}  // namespace voxen
