#include "voxen/export/layer_export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "voxen/export/colour_bar.hpp"
#include "export_helpers.hpp"
#include "voxen/export/raster_canvas.hpp"
#include "voxen/host/error.hpp"
#include "voxen/export/clearance_export.hpp"
#include "voxen/export/map_picture_file.hpp"
#include "voxen/export/plot_frame.hpp"
#include "voxen/export/png_writer.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen {

using detail::appendLE;
using detail::Canvas;
using detail::ColourRange;
using detail::kBlack;
using detail::kWhite;
using detail::Rgb;
using detail::sortedRegions;

namespace {

constexpr Rgb kNoDataRgb{170, 170, 170};
constexpr Rgb kNonFiniteRgb{255, 0, 255};

// Reads one layer of a region voxel by voxel: whether it holds data and its quantities.
class LayerReader {
 public:
  LayerReader(const OccupancyMap& map, LayerId layer) : type_(layerType(layer)), layer_(layer), resolution_(map.model().resolution) {}
  const LayerType& type() const { return type_; }

  bool holdsData(const Region& r, size_t i) const {
    if (r.occupancy()[i] != kUnobserved) return true;
    return std::memcmp(voxel(r, i), type_.initialValue.data(), type_.bytesPerVoxel) != 0;
  }
  double stored(const Region& r, size_t i, size_t field) const { return fieldValue(type_, voxel(r, i), field); }
  double quantity(const Region& r, size_t i, size_t field) const {
    return fieldQuantity(type_.fields[field], stored(r, i, field), resolution_);
  }
  bool finite(const Region& r, size_t i) const {
    for (size_t f = 0; f < type_.fields.size(); ++f)
      if (!std::isfinite(quantity(r, i, f))) return false;
    return true;
  }
  const std::byte* voxel(const Region& r, size_t i) const { return r.layers[layer_].data() + i * type_.bytesPerVoxel; }

 private:
  const LayerType& type_;
  LayerId layer_;
  double resolution_;
};

bool scaled(const LayerField& f) { return f.scale != 1.0 || f.perVoxelEdge; }

std::string unitText(const LayerField& f) { return f.unit.empty() ? std::string() : " (" + f.unit + ")"; }

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

void appendField(std::vector<uint8_t>& out, const LayerField& f, const std::byte* at, double quantity) {
  if (!scaled(f)) {
    switch (f.type) {
      case FieldType::U8: case FieldType::I8: out.push_back(uint8_t(*at)); return;
      case FieldType::U16: case FieldType::I16: {
        uint16_t v;
        std::memcpy(&v, at, 2);
        appendLE(out, v);
        return;
      }
      case FieldType::U32: case FieldType::I32: case FieldType::F32: {
        uint32_t v;
        std::memcpy(&v, at, 4);
        appendLE(out, v);
        return;
      }
      case FieldType::F64: {
        double v;
        std::memcpy(&v, at, 8);
        appendLE(out, v);
        return;
      }
      case FieldType::U64: case FieldType::I64: break;  // as double below
    }
  }
  appendLE(out, quantity);
}

// The clearance layer is drawn as voxen export --clearance-png draws it (one palette:
// obstacles black, unknown grey, none within range white), not as a plain heat map that
// would colour -1 (none within range) as the smallest distance.
LayerSlice clearanceSlice(const OccupancyMap& map, const std::filesystem::path& path, const LayerSliceOptions& options) {
  const ClearanceImage image = exportClearancePng(map, path, options.z, options.scale, 0.0, options.mapName);
  LayerSlice result;
  result.slice = image.slice;
  result.field = "distance";
  result.min = 0.0, result.max = image.top;
  result.drawn = image.obstacles + image.noneInRange + image.distances;
  return result;
}

// A TSDF's signed distance reads by its sign: blue behind the surface (negative), white on it,
// red in front (positive), over a range symmetric about 0, so the surface is where the colours
// turn. Unobserved voxels stay "no data" grey.
Rgb signedColour(double t) {
  const double u = std::clamp(2.0 * t - 1.0, -1.0, 1.0);  // -1 behind .. +1 in front
  const auto toward = [](double from, double to, double a) { return uint8_t(std::lround(from + (to - from) * a)); };
  if (u < 0.0) return Rgb{toward(255, 33, -u), toward(255, 102, -u), toward(255, 172, -u)};
  return Rgb{toward(255, 178, u), toward(255, 24, u), toward(255, 43, u)};
}

bool isSignedDistance(const LayerType& type, const LayerField& field) { return type.name == "tsdf" && field.name == "distance"; }

}  // namespace

LayerId requireMapLayer(const OccupancyMap& map, const std::string& name) {
  const std::optional<LayerId> id = findLayer(name);
  if (!id || !map.layout().has(*id)) throw Error("the map has no layer '" + name + "' (it has " + map.layout().names() + ")");
  if (layerType(*id).opaque)
    throw Error("layer '" + name + "' is opaque to this build (a type it does not know, kept as bytes): it has no fields to export");
  return *id;
}

const char* plyTypeOf(const LayerField& field) {
  if (scaled(field)) return "double";
  switch (field.type) {
    case FieldType::U8: return "uchar";
    case FieldType::U16: return "ushort";
    case FieldType::U32: return "uint";
    case FieldType::I8: return "char";
    case FieldType::I16: return "short";
    case FieldType::I32: return "int";
    case FieldType::F32: return "float";
    case FieldType::U64: case FieldType::I64: case FieldType::F64: return "double";
  }
  return "double";
}

ExportCounts exportLayerPly(const OccupancyMap& map, LayerId layer, const std::filesystem::path& path, bool doublePrecision) {
  if (!map.layout().has(layer)) throw Error("the map has no layer '" + layerType(layer).name + "' (it has " + map.layout().names() + ")");
  const LayerReader reader(map, layer);
  const LayerType& type = reader.type();
  const std::vector<const Region*> regions = sortedRegions(map);
  ExportCounts counts;
  for (const Region* r : regions)
    for (size_t i = 0; i < map.voxelsPerRegion(); ++i)
      if (reader.holdsData(*r, i)) (reader.finite(*r, i) ? counts.written : counts.nonFinite)++;

  const char* coordType = doublePrecision ? "double" : "float";
  std::string header = "ply\nformat binary_little_endian 1.0\n";
  header += "comment written by voxen: layer " + type.name + " (version " + std::to_string(type.version) + "): " +
            type.description + "\n";
  header += "comment voxel centres in metres (resolution " + number(map.model().resolution) +
            " m) of the voxels observed or holding a value other than the layer's initial one\n";
  std::vector<std::string> names;
  for (const LayerField& f : type.fields) {
    names.push_back(f.name == "x" || f.name == "y" || f.name == "z" ? type.name + "_" + f.name : f.name);
    header += "comment " + names.back() + ": " + (f.unit.empty() ? std::string("no unit") : f.unit) + "\n";
  }
  if (counts.nonFinite) header += "comment " + std::to_string(counts.nonFinite) + " voxels with a non-finite value left out\n";
  header += "element vertex " + std::to_string(counts.written) + "\n";
  for (const char* axis : {"x", "y", "z"}) header += std::string("property ") + coordType + " " + axis + "\n";
  for (size_t f = 0; f < type.fields.size(); ++f) header += std::string("property ") + plyTypeOf(type.fields[f]) + " " + names[f] + "\n";
  header += "end_header\n";

  detail::AtomicFileWriter out(path, "PLY");
  out.write(header.data(), header.size());
  detail::PlyRecords records(out, doublePrecision);
  for (const Region* r : regions) {
    for (size_t i = 0; i < map.voxelsPerRegion(); ++i) {
      if (!reader.holdsData(*r, i) || !reader.finite(*r, i)) continue;
      records.centre(map.voxelCentre(map.voxelOf(r->key, uint32_t(i))));
      for (size_t f = 0; f < type.fields.size(); ++f)
        appendField(records.bytes(), type.fields[f], reader.voxel(*r, i) + f * type.elementBytes, reader.quantity(*r, i, f));
      records.endRecord();
    }
  }
  records.finish();
  out.commit();
  return counts;
}

LayerSlice exportLayerSlicePng(const OccupancyMap& map, LayerId layer, const std::filesystem::path& path,
                               const LayerSliceOptions& options) {
  const std::string target = "cannot save PNG to '" + path.string() + "': ";
  if (!map.layout().has(layer))
    throw Error(target + "the map has no layer '" + layerType(layer).name + "' (it has " + map.layout().names() + ")");
  const LayerReader reader(map, layer);
  const LayerType& type = reader.type();
  size_t field = 0;
  if (!options.field.empty()) {
    while (field < type.fields.size() && type.fields[field].name != options.field) ++field;
    if (field == type.fields.size()) {
      std::string known;
      for (const LayerField& f : type.fields) known += (known.empty() ? "" : ", ") + f.name;
      throw Error(target + "layer '" + type.name + "' has no field '" + options.field + "' (its fields: " + known + ")");
    }
  }
  const LayerField& f = type.fields[field];
  if (options.scale > 1024) throw Error(target + "scale " + std::to_string(options.scale) + " is not in 1-1024");

  const int32_t n = map.regionSize(), z = options.z;
  if (type.name == "clearance") return clearanceSlice(map, path, options);
  const int32_t regionZ = floorDiv(z, n), localZ = z - regionZ * n;
  std::vector<const Region*> slab;
  for (const Region* r : sortedRegions(map))
    if (r->key.z == regionZ) slab.push_back(r);

  LayerSlice result;
  result.field = f.name;
  SliceImage& s = result.slice;
  s.z = z;
  bool any = false;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Region* r : slab)
    for (int32_t y = 0; y < n; ++y)
      for (int32_t x = 0; x < n; ++x) {
        const size_t i = size_t(x + n * (y + n * localZ));
        if (!reader.holdsData(*r, i)) continue;
        any = true;
        const double q = reader.quantity(*r, i, field);
        if (std::isfinite(q)) lo = std::min(lo, q), hi = std::max(hi, q);
      }
  const std::string heights = detail::layerHeights(map, z);
  if (!any) throw Error(target + "no voxel of " + heights + " holds data in layer '" + type.name + "'");
  // The extent of the layer's data at every height: pictures of two heights overlay.
  const detail::VoxelBoundsXY bounds = detail::xyBounds(map, [&](const Region& r, size_t i) { return reader.holdsData(r, i); });
  s.minX = bounds.minX, s.maxX = bounds.maxX, s.minY = bounds.minY, s.maxY = bounds.maxY;
  const uint64_t voxelsWide = bounds.wide(), voxelsHigh = bounds.high();
  s.scale = options.scale ? options.scale : autoSliceScale(voxelsWide, voxelsHigh);
  const uint64_t widthPx = voxelsWide * s.scale, heightPx = voxelsHigh * s.scale;
  if (widthPx > (1u << 20) || heightPx > (1u << 20) || widthPx * heightPx > (uint64_t(1) << 28))
    throw Error(target + std::to_string(widthPx) + "x" + std::to_string(heightPx) + " pixels is too large an image");
  s.width = uint32_t(widthPx), s.height = uint32_t(heightPx);
  if (lo <= hi) result.min = lo, result.max = hi;
  const bool signedDistance = isSignedDistance(type, f);
  const double reach = std::max(std::abs(lo), std::abs(hi));
  const ColourRange range = signedDistance && lo <= hi ? ColourRange::of(-reach, reach)
                            : lo <= hi                 ? ColourRange::of(lo, hi)
                                                       : ColourRange{};
  const std::function<Rgb(double)> colourOf = signedDistance ? signedColour : detail::heatColour;

  Canvas slice(s.width, s.height, kNoDataRgb);
  for (const Region* r : slab)
    for (int32_t y = 0; y < n; ++y)
      for (int32_t x = 0; x < n; ++x) {
        const size_t i = size_t(x + n * (y + n * localZ));
        if (!reader.holdsData(*r, i)) continue;
        const double q = reader.quantity(*r, i, field);
        Rgb colour = kNonFiniteRgb;
        if (std::isfinite(q)) colour = colourOf(range.fraction(q)), ++result.drawn;
        else ++result.nonFinite;
        const int64_t px = int64_t(r->key.x * n + x - s.minX) * s.scale, py = int64_t(s.maxY - (r->key.y * n + y)) * s.scale;
        slice.fill(px, py, s.scale, s.scale, colour);
      }

  const std::string title = detail::titled(options.mapName, "layer " + type.name + ", field " + f.name + unitText(f) + ", " + heights);
  const std::string caption = f.name + unitText(f) + (lo <= hi ? ", " + number(lo) + " to " + number(hi) : ", no finite value") +
                              (signedDistance ? "; behind the surface < 0 < in front" : "");
  detail::PlotFrame frame(title, detail::worldOf(map, s), s.width, s.height);
  frame.addColourBar(range, caption, colourOf);
  std::vector<detail::LegendSwatch> entries = {{kNoDataRgb, "no data"}};
  if (result.nonFinite) entries.push_back({kNonFiniteRgb, "not finite (" + std::to_string(result.nonFinite) + ")"});
  frame.addSwatches(entries);
  frame.addNote(detail::pixelNote(map, s.scale, path));
  const detail::FramedPicture picture = frame.draw(slice.rgb());
  detail::placeSlice(s, picture, detail::writeMapPicture(path, picture, title));
  return result;
}

}  // namespace voxen
