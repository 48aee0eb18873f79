// `voxen info MAP.vxm [--verify]`: what a map file holds, read from its header and block
// headers (nothing is decompressed unless --verify asks for every region to be loaded and
// checked). Reached through `voxen info` (info_command.cpp) when its argument is a map file.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "voxen/clearance/clearance.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/layer.hpp"
#include "voxen/map/layer_domain.hpp"
#include "voxen/map/map_file.hpp"
#include "commands/map_source.hpp"
#include "commands/store_run_info.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/store_file.hpp"
#include "voxen/host/memory_stats.hpp"

namespace voxen::cli {

namespace {

// "sum_x u32 m (x 0.000976562 voxel): any"
std::string fieldText(const LayerField& f) {
  std::string text = f.name + " " + fieldTypeName(f.type) + (f.unit.empty() ? "" : " " + f.unit);
  if (f.scale != 1.0 || f.perVoxelEdge) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%g", f.scale);
    text += std::string(" (x ") + scale + (f.perVoxelEdge ? " voxel" : "") + ")";
  }
  return text + ": " + fieldDomainText(f);
}

Json fieldJson(const LayerField& f) {
  Json field = {{"name", f.name}, {"type", fieldTypeName(f.type)}, {"unit", f.unit}};
  // JSON has no infinity: an unbounded side is null.
  auto bound = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  field["min"] = bound(f.min);
  field["max"] = bound(f.max);
  if (f.special) field["special"] = std::isfinite(*f.special) ? Json(*f.special) : Json(*f.special > 0 ? "+inf" : "-inf");
  if (f.scale != 1.0 || f.perVoxelEdge) field["scale"] = f.scale, field["per_voxel_edge"] = f.perVoxelEdge;
  field["domain"] = fieldDomainText(f);
  return field;
}

// The map's layers in file order, as `layer_table` entries: what a reader needs to know
// whether it understands the file (name and content version), what each costs and holds.
Json layerTableJson(const MapLayout& layout) {
  Json table = Json::array();
  for (const LayerId id : layout.ids()) {
    const LayerType& type = layerType(id);
    Json fields = Json::array();
    for (const LayerField& f : type.fields) fields.push_back(fieldJson(f));
    table.push_back({{"name", type.name},
                     {"bytes_per_voxel", type.bytesPerVoxel},
                     {"version", type.version},
                     {"description", type.description},
                     {"fields", fields}});
    if (!type.checkDescription.empty()) table.back()["check"] = type.checkDescription;
    if (type.opaque) table.back()["opaque"] = true;
  }
  return table;
}

Json layerNamesJson(const MapLayout& layout) {
  Json names = Json::array();
  for (const LayerId id : layout.ids()) names.push_back(layerType(id).name);
  return names;
}

// Every layer of the layout, built-in or registered: what it holds, its version and size,
// and its fields with their units and the values they can take.
void printLayers(const MapLayout& layout) {
  std::printf("layers:                  %zu (%s), %llu bytes per voxel\n", layout.ids().size(), layout.names().c_str(),
              (unsigned long long)layout.bytesPerVoxel());
  for (const LayerId id : layout.ids()) {
    const LayerType& type = layerType(id);
    std::printf("  %-22s version %u, %u bytes per voxel: %s\n", type.name.c_str(), type.version, type.bytesPerVoxel,
                type.description.c_str());
    std::string fields;
    for (const LayerField& f : type.fields) fields += (fields.empty() ? "" : "; ") + fieldText(f);
    if (type.opaque)
      fields = "unknown to this build (" + std::to_string(type.bytesPerVoxel / type.elementBytes) + " elements of " +
               std::to_string(type.elementBytes) + " bytes)";
    if (!type.checkDescription.empty()) fields += "; " + type.checkDescription;
    std::printf("  %-22s fields: %s\n", "", fields.c_str());
  }
}

// --verify: every region decompressed and checked, the voxels counted.
struct VerifiedContents {
  OccupancyMap::Counts counts;
  double loadMs = 0.0;
  NdtSummary gaussians;
};

// What `voxen info MAP` reports, read once for the text and the JSON forms.
struct MapInfoFacts {
  std::string target, session;
  bool server = false, store = false;  // a PostgreSQL store; any store (SQLite or PostgreSQL)
  MapFileInfo info;
  std::string path;  // as shown: a URL without its password
  uint64_t voxelsPerRegion = 0;
  bool any = false;  // the map has regions: lo .. hi bound them
  RegionKey lo, hi;
  double edge = 0, ratio = 0;
  NdtMode ndt = NdtMode::Off;
  bool verify = false;
  VerifiedContents verified;
  std::optional<StoreRunInfo> run;
};

VerifiedContents verifyContents(const CommonOptions& options, const MapInfoFacts& f) {
  VerifiedContents out;
  const auto start = std::chrono::steady_clock::now();
  // Loaded as it is, so that every layer's impossible values are counted, not only the first.
  MapLoadOptions load = budgetedLoad(options);
  load.refuseImpossibleValues = false;
  const OccupancyMap map = loadMapOrStore(f.target, load, std::nullopt, nullptr, f.session);
  if (const std::vector<LayerValueFaults> faults = findImpossibleValues(map); !faults.empty())
    throw Error(std::string(f.store ? "store '" : "map file '") + f.path + "': impossible contents (every checksum is valid): " + describeFaults(map, faults));
  out.loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.counts = map.counts();
  out.gaussians = ndtSummary(map);
  return out;
}

MapInfoFacts readMapInfoFacts(const CommonOptions& options, const std::string& target, bool verify, const std::string& session) {
  MapInfoFacts f;
  f.target = target;
  f.session = session;
  f.server = isPostgresTarget(target);
  if (!session.empty() && !f.server)
    throw UsageError("--session " + session + ": '" + redactedStoreName(target) + "' is not a PostgreSQL store (a postgresql:// URL); only a server store holds sessions");
  f.store = f.server || isRegionStoreFile(target);
  f.info = f.store ? storeInfo(target, session) : readMapInfo(target);
  // A URL is shown without its password.
  f.path = redactedStoreName(target) + (session.empty() ? "" : " session '" + session + "'");
  const OccupancyModel& m = f.info.model;
  f.voxelsPerRegion = uint64_t(m.regionSize) * m.regionSize * m.regionSize;
  f.any = f.info.regionBounds(f.lo, f.hi);
  f.edge = m.resolution * m.regionSize;
  f.ratio = f.info.compressedBytes() ? double(f.info.uncompressedBytes()) / double(f.info.compressedBytes()) : 0.0;
  f.ndt = ndtModeOf(f.info.layout);
  f.verify = verify;
  if (verify) f.verified = verifyContents(options, f);
  // A store a voxen map run maps into records its progress: what a second terminal watching
  // the run wants to see (store_run_info.hpp).
  f.run = f.store ? storeRunOf(target, session) : std::nullopt;
  return f;
}

// The TSDF settings a map's tsdf layer records ("truncation_voxels=4;max_weight=64;
// weighting=constant", voxen/tsdf/tsdf.hpp), in words with the band in metres; "" without the
// layer.
std::string tsdfSettingsInWords(const MapFileInfo& info) {
  if (!info.layout.has(kTsdfLayer)) return "";
  const std::string& recorded = info.derivedSettings[kTsdfLayer];
  if (recorded.empty()) return "settings not recorded";
  auto field = [&](const std::string& key) {
    const size_t at = recorded.find(key + "=");
    if (at == std::string::npos) return std::string("?");
    const size_t from = at + key.size() + 1;
    return recorded.substr(from, recorded.find(';', from) - from);
  };
  const std::string truncation = field("truncation_voxels");
  const double voxels = std::strtod(truncation.c_str(), nullptr);
  return "truncation " + truncation + " voxels (" + formatSignificant(voxels * info.model.resolution, 6) + " m), largest weight " +
         field("max_weight") + ", " + field("weighting") + " weighting";
}

Json modelJson(const OccupancyModel& m) {
  return {{"resolution", m.resolution},
          {"region_size", m.regionSize},
          {"hit_probability", floatValue(m.hitProbability)},
          {"miss_probability", floatValue(m.missProbability)},
          {"occupancy_threshold", floatValue(m.occupancyThreshold)},
          {"clamp_min", floatValue(m.clampMin)},
          {"clamp_max", floatValue(m.clampMax)}};
}

void printMapInfoJson(const MapInfoFacts& f) {
  const MapFileInfo& info = f.info;
  const RegionKey &lo = f.lo, &hi = f.hi;
  const double edge = f.edge;
  Json summary = {{"file", f.path},
                  {"kind", f.server ? "postgresql_store" : f.store ? "region_store" : "map_file"},
                  {"file_bytes", info.fileBytes},
                  {"format_version", info.version},
                  {"model", modelJson(info.model)},
                  {"layer_names", layerNamesJson(info.layout)},
                  {"builtin_layer_flags", info.layers.builtinFlags()},
                  {"layer_table", layerTableJson(info.layout)},
                  {"ndt", ndtModeName(f.ndt)},
                  {"clearance", clearanceSettingsInWords(info.layout, info.derivedSettings[clearanceLayer()])},
                  {"tsdf", info.layout.has(kTsdfLayer) ? Json(info.derivedSettings[kTsdfLayer]) : Json(nullptr)},
                  {"time_origin", info.timeOrigin},
                  {"regions", info.regions.size()}};
  if (f.any) {
    summary["region_bounds"] = {{lo.x, lo.y, lo.z}, {hi.x, hi.y, hi.z}};
    summary["metre_bounds"] = {{lo.x * edge, lo.y * edge, lo.z * edge}, {(hi.x + 1) * edge, (hi.y + 1) * edge, (hi.z + 1) * edge}};
  }
  summary["memory_bytes"] = info.memoryBytes();
  summary["compressed_bytes"] = info.compressedBytes();
  summary["compression_ratio"] = rounded(f.ratio, 4);
  if (f.run) summary["mapping_run"] = storeRunJson(*f.run);
  summary["verified"] = f.verify;  // false: the voxels were not read (--verify reads and checks them)
  if (f.verify) {
    const VerifiedContents& v = f.verified;
    summary["load_ms"] = rounded(v.loadMs, 3);
    summary["occupied"] = v.counts.occupied;
    summary["free"] = v.counts.free;
    if (f.ndt != NdtMode::Off)
      summary["ndt_gaussians"] = {{"voxels", v.gaussians.gaussians},
                                  {"with_3_or_more_samples", v.gaussians.aboveThreshold},
                                  {"median_extent_m", rounded(v.gaussians.medianExtent, 6)},
                                  {"p95_extent_m", rounded(v.gaussians.p95Extent, 6)}};
  }
  printJson(summary);
}

// The file's kind, size and version, its model and its layers.
void printMapInfoHead(const MapInfoFacts& f) {
  const MapFileInfo& info = f.info;
  const OccupancyModel& m = info.model;
  std::printf("%s %s: %s, format version %u\n", f.server ? (f.session.empty() ? "PostgreSQL store, fused map" : "PostgreSQL store")
                                                          : f.store ? "region store (SQLite)" : "map file", f.path.c_str(),
              formatBytes(info.fileBytes).c_str(), info.version);
  std::printf("model:\n");
  // The model's settings as stored, in their shortest exact decimals (voxen/host/number_text.hpp).
  std::printf("  %-22s %s m per voxel\n", "resolution", formatNumber(m.resolution).c_str());
  std::printf("  %-22s %d voxels per edge (%s voxels, %s m)\n", "region size", m.regionSize,
              withCommas(f.voxelsPerRegion).c_str(), formatSignificant(f.edge, 6).c_str());  // derived: 0.1 x 32 is 3.2000000000000002
  std::printf("  %-22s %s (log-odds %+.4f)\n", "hit probability", formatFloat(m.hitProbability).c_str(), m.hitValue());
  std::printf("  %-22s %s (log-odds %+.4f)\n", "miss probability", formatFloat(m.missProbability).c_str(), m.missValue());
  std::printf("  %-22s %s (log-odds %+.4f)\n", "occupancy threshold", formatFloat(m.occupancyThreshold).c_str(),
              m.thresholdValue());
  std::printf("  %-22s [%s, %s] log-odds\n", "clamp", formatFloat(m.clampMin).c_str(), formatFloat(m.clampMax).c_str());
  printLayers(info.layout);
  // Lines about how a derived layer was computed (clearance's settings) belong right here,
  // after the layers they describe.
  if (f.ndt != NdtMode::Off)
    std::printf("ndt:                     NDT-%s layers (a Gaussian per voxel: voxel_mean and ndt_covariance%s)\n",
                f.ndt == NdtMode::Tm ? "TM" : "OM", f.ndt == NdtMode::Tm ? ", plus hit_miss and ndt_intensity" : "");
  if (const std::string c = clearanceSettingsInWords(info.layout, info.derivedSettings[clearanceLayer()]); !c.empty())
    std::printf("clearance:               %s\n", c.c_str());
  if (const std::string t = tsdfSettingsInWords(info); !t.empty()) std::printf("tsdf:                    %s\n", t.c_str());
}

// The regions, their bounds, memory and compression, and what --verify found.
void printMapInfoContents(const MapInfoFacts& f) {
  const MapFileInfo& info = f.info;
  const int size = info.model.regionSize;
  const RegionKey &lo = f.lo, &hi = f.hi;
  const double edge = f.edge;
  if (f.run) std::printf("mapping run:             %s\n", storeRunText(*f.run, f.target, f.session).c_str());
  std::printf("time origin:             %.6f s\n", info.timeOrigin);
  std::printf("regions:                 %s\n", withCommas(info.regions.size()).c_str());
  if (f.any) {
    std::printf("bounds:                  region keys (%d, %d, %d) .. (%d, %d, %d)\n", lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
    std::printf("                         voxels (%lld, %lld, %lld) .. (%lld, %lld, %lld)\n", (long long)lo.x * size,
                (long long)lo.y * size, (long long)lo.z * size, (long long)(hi.x + 1) * size - 1,
                (long long)(hi.y + 1) * size - 1, (long long)(hi.z + 1) * size - 1);
    std::printf("                         metres (%g, %g, %g) .. (%g, %g, %g)\n", lo.x * edge, lo.y * edge, lo.z * edge,
                (hi.x + 1) * edge, (hi.y + 1) * edge, (hi.z + 1) * edge);
  } else {
    std::printf("bounds:                  none (the map is empty)\n");
  }
  std::printf("memory when loaded:      %s of voxel arrays (%s per region)\n", formatBytes(info.memoryBytes()).c_str(),
              formatBytes(f.voxelsPerRegion * info.layout.bytesPerVoxel()).c_str());
  std::printf("compressed regions:      %s (%.1f : 1)\n", formatBytes(info.compressedBytes()).c_str(), f.ratio);
  if (f.verify) {
    const VerifiedContents& v = f.verified;
    std::printf("verified:                every region decompressed, its checksum matched and every layer's values are possible (%.1f ms)\n",
                v.loadMs);
    std::printf("voxels:                  %s occupied, %s free, %s unobserved\n", withCommas(v.counts.occupied).c_str(),
                withCommas(v.counts.free).c_str(),
                withCommas(info.regions.size() * f.voxelsPerRegion - v.counts.occupied - v.counts.free).c_str());
    if (f.ndt != NdtMode::Off)
      std::printf("gaussians:               %s voxels, %s with 3 or more samples; 1-sigma extent (largest axis) "
                  "median %.3g m, 95th percentile %.3g m\n",
                  withCommas(v.gaussians.gaussians).c_str(), withCommas(v.gaussians.aboveThreshold).c_str(),
                  v.gaussians.medianExtent, v.gaussians.p95Extent);
  } else {
    std::printf("verified:                no: only the %s were read (--verify decompresses every\n"
                "                         region and checks its checksum and contents)\n",
                f.store ? "description and row sizes" : "header and block headers");
  }
}

}  // namespace

int mapInfo(const CommonOptions& options, const std::string& target, bool verify, const std::string& session) {
  const MapInfoFacts facts = readMapInfoFacts(options, target, verify, session);
  if (options.json) {
    printMapInfoJson(facts);
    return 0;
  }
  printMapInfoHead(facts);
  printMapInfoContents(facts);
  return 0;
}

}  // namespace voxen::cli
