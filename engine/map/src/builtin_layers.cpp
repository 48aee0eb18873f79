#include "voxen/map/builtin_layers.hpp"

#include <cmath>
#include <charconv>
#include <cstring>
#include <limits>

#include "voxen/gpu/map/tsdf_colour_layer.h"
#include "voxen/gpu/map/tsdf_layer.h"
#include "voxen/map/map.hpp"

namespace voxen::detail {

namespace {

std::vector<std::byte> bytesOf(uint32_t value) {
  std::vector<std::byte> bytes(4);
  std::memcpy(bytes.data(), &value, 4);
  return bytes;
}

constexpr double kFloatMax = std::numeric_limits<float>::max();

std::string floatText(float v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

LayerField field(std::string name, FieldType type, std::string unit = {}) {
  LayerField f;
  f.name = std::move(name);
  f.type = type;
  f.unit = std::move(unit);
  return f;
}

// Occupancy: log-odds within the model's clamp range, or +inf (unobserved).
LayerType occupancyType() {
  LayerType t{"occupancy", 4, 4, 1, bytesOf(0x7f800000u), "log-odds occupancy (+inf: unobserved)"};
  LayerField value = field("log_odds", FieldType::F32, "log-odds");
  value.min = -kFloatMax, value.max = kFloatMax;
  value.special = std::numeric_limits<double>::infinity();
  t.fields = {value};
  t.checkDescription = "log_odds within the map's clamp range unless +inf";
  t.check = [](const OccupancyModel& model, std::span<const std::byte> values, const BadVoxel& bad) {
    const size_t n = values.size() / 4;
    for (size_t i = 0; i < n; ++i) {
      float v;
      std::memcpy(&v, values.data() + 4 * i, 4);
      if (v == kUnobserved || !std::isfinite(v) || (v >= model.clampMin && v <= model.clampMax)) continue;
      bad(i, "log_odds " + floatText(v) + " is neither unobserved (+inf) nor within the clamp range [" +
                 floatText(model.clampMin) + ", " + floatText(model.clampMax) + "]");
    }
  };
  return t;
}

// Voxel mean: sample count and sums of offsets quantised to 1/1024 voxel (each at most 1023).
LayerType voxelMeanType() {
  LayerType t{"voxel_mean", 16, 4, 1, {}, "sample count and sub-voxel position sums (1/1024 voxel)"};
  t.fields = {field("count", FieldType::U32)};
  for (const char* axis : {"sum_x", "sum_y", "sum_z"}) {
    LayerField sum = field(axis, FieldType::U32, "m");
    sum.scale = 1.0 / VoxelMean::kScale;
    sum.perVoxelEdge = true;
    t.fields.push_back(sum);
  }
  t.checkDescription = "each sum at most 1023 x count";
  t.check = [](const OccupancyModel&, std::span<const std::byte> values, const BadVoxel& bad) {
    const size_t n = values.size() / sizeof(VoxelMean);
    for (size_t i = 0; i < n; ++i) {
      VoxelMean m;
      std::memcpy(&m, values.data() + i * sizeof(VoxelMean), sizeof m);
      for (int a = 0; a < 3; ++a)
        if (uint64_t(m.sum[a]) > uint64_t(m.count) * 1023u) {
          bad(i, std::string("sum_") + "xyz"[a] + " " + std::to_string(m.sum[a]) + " is more than its count " +
                     std::to_string(m.count) + " of samples allows (1023 each)");
          break;
        }
    }
  };
  return t;
}

LayerType traversalType() {
  LayerType t{"traversal", 8, 8, 1, {}, "summed ray length through the voxel (1/65536 voxel)"};
  LayerField length = field("length", FieldType::U64, "m");
  length.scale = 1.0 / Region::kTraversalScale;
  length.perVoxelEdge = true;
  t.fields = {length};
  return t;
}

LayerType hitMissType() {
  LayerType t{"hit_miss", 8, 4, 1, {}, "hit and miss counts"};
  t.fields = {field("hits", FieldType::U32), field("misses", FieldType::U32)};
  return t;
}

LayerType touchTimeType() {
  LayerType t{"touch_time", 8, 8, 2, {}, "latest time (s) a ray touched the voxel, 0: never"};
  LayerField time = field("time", FieldType::F64, "s");
  time.min = 0.0;  // ray times before 0 count as 0 (never)
  time.max = std::numeric_limits<double>::max();
  t.fields = {time};
  return t;
}

// Clearance: distance to the nearest obstacle within the range the layer was computed with
// (the map's derived settings), or -1 when there is none.
LayerType clearanceType() {
  LayerType t;
  t.name = "clearance";
  t.bytesPerVoxel = 4;
  t.elementBytes = 4;
  t.version = 1;
  t.initialValue.resize(4);
  const float none = kClearanceNoObstacleValue;
  std::memcpy(t.initialValue.data(), &none, 4);
  t.description = "distance (m) to the nearest obstacle within the range, 0 on obstacles, -1: none within range";
  t.fields = {LayerField{.name = "distance",
                         .type = FieldType::F32,
                         .unit = "m",
                         .min = 0.0,
                         .max = std::numeric_limits<float>::max(),
                         .special = double(kClearanceNoObstacleValue)}};
  return t;
}

LayerField ndtFloatField(const char* name, const char* unit, double min = -std::numeric_limits<float>::max()) {
  return {.name = name, .type = FieldType::F32, .unit = unit, .min = min, .max = std::numeric_limits<float>::max()};
}

LayerType ndtCovarianceType() {
  LayerType t;
  t.name = "ndt_covariance";
  t.bytesPerVoxel = kNdtCovarianceBytes;
  t.description = "NDT covariance square root S (P = S S^T), lower triangle row by row, metres";
  // The Cholesky updates keep the diagonal positive (all zero before the first sample).
  t.fields = {ndtFloatField("s00", "m", 0.0), ndtFloatField("s10", "m"), ndtFloatField("s11", "m", 0.0),
              ndtFloatField("s20", "m"), ndtFloatField("s21", "m"), ndtFloatField("s22", "m", 0.0)};
  return t;
}

LayerType ndtIntensityType() {
  LayerType t;
  t.name = "ndt_intensity";
  t.bytesPerVoxel = kNdtIntensityBytes;
  t.description = "NDT-TM intensity mean and variance of the returns";
  t.fields = {ndtFloatField("mean", ""), ndtFloatField("variance", "", 0.0)};
  return t;
}

// Written by merges only: occupancy + remainder is the exact log-odds sum of every merged
// observation, which later merges add instead of the clamped, rounded float (so that merges
// associate bit for bit). Zero for unobserved voxels and for voxels nothing was cut from.
LayerType occupancyRemainderType() {
  LayerType t;
  t.name = "occupancy_remainder";
  t.bytesPerVoxel = 8;
  t.elementBytes = 8;
  t.description = "log-odds a merge's clamping and rounding left out of occupancy (exact sum = occupancy + remainder)";
  LayerField remainder = field("log_odds", FieldType::I64, "log-odds");
  remainder.scale = std::ldexp(1.0, -kOccupancyRemainderFractionBits);
  t.fields = {remainder};
  return t;
}

// TSDF (gpu::TsdfVoxel): the weighted mean signed distance, 1/65536 voxel, and its weight,
// 1/16 measurement; a voxel no frame reached has weight 0 and distance 0.
LayerType tsdfType() {
  LayerType t;
  t.name = "tsdf";
  t.bytesPerVoxel = 8;
  t.description = "truncated signed distance (positive in front of the surface) and its weight";
  LayerField distance = field("distance", FieldType::I32, "m");
  distance.scale = 1.0 / double(gpu::kTsdfFine);
  distance.perVoxelEdge = true;
  LayerField weight = field("weight", FieldType::U32);
  weight.scale = 1.0 / double(gpu::kTsdfWeightUnit);
  t.fields = {distance, weight};
  t.checkDescription = "distance 0 where weight is 0 (unobserved)";
  t.check = [](const OccupancyModel&, std::span<const std::byte> values, const BadVoxel& bad) {
    for (size_t i = 0; i < values.size() / 8; ++i) {
      gpu::TsdfVoxel v;
      std::memcpy(&v, values.data() + 8 * i, 8);
      if (v.weight == 0 && v.distance != 0) bad(i, "distance " + std::to_string(v.distance) + " with weight 0 (unobserved)");
    }
  };
  return t;
}

// TSDF colour (gpu::TsdfColourVoxel): the weighted mean colour, packed red | green << 8 |
// blue << 16, and its own weight in the tsdf layer's units; a voxel no coloured frame reached
// has weight 0 and colour 0.
LayerType tsdfColourType() {
  LayerType t;
  t.name = "tsdf_colour";
  t.bytesPerVoxel = 8;
  t.description = "the TSDF's colour: mean red, green, blue (packed red | green << 8 | blue << 16) and its weight";
  LayerField rgb = field("rgb", FieldType::U32);
  rgb.min = 0, rgb.max = double(0xFFFFFFu);
  LayerField weight = field("weight", FieldType::U32);
  weight.scale = 1.0 / double(gpu::kTsdfWeightUnit);
  t.fields = {rgb, weight};
  t.checkDescription = "rgb 0 where weight is 0 (no colour yet)";
  t.check = [](const OccupancyModel&, std::span<const std::byte> values, const BadVoxel& bad) {
    for (size_t i = 0; i < values.size() / 8; ++i) {
      gpu::TsdfColourVoxel v;
      std::memcpy(&v, values.data() + 8 * i, 8);
      if (v.weight == 0 && v.rgb != 0) bad(i, "rgb " + std::to_string(v.rgb) + " with weight 0 (no colour yet)");
    }
  };
  return t;
}

}  // namespace

std::vector<LayerType> builtinLayerTypes() {
  std::vector<LayerType> types = {occupancyType(),   voxelMeanType(),     traversalType(),   hitMissType(),
                                  touchTimeType(),   clearanceType(),     ndtCovarianceType(), ndtIntensityType(),
                                  occupancyRemainderType(), tsdfType(), tsdfColourType()};
  for (LayerType& t : types) t.initialValue.resize(t.bytesPerVoxel);
  return types;
}

}  // namespace voxen::detail
