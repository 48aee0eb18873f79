// `voxen info MAP.vxm [--verify]`: what a map file holds, read from its header and block
// headers (nothing is decompressed unless --verify asks for every region to be loaded and
// checked). Reached through `voxen info` (info_command.cpp) when its argument is a map file.
#include <chrono>
#include <cmath>
#include <cstdio>
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

}  // namespace

int mapInfo(const CommonOptions& options, const std::string& target, bool verify, const std::string& session) {
  const bool server = isPostgresTarget(target);
  if (!session.empty() && !server)
    throw UsageError("--session " + session + ": '" + redactedStoreName(target) + "' is not a PostgreSQL store (a postgresql:// URL); only a server store holds sessions");
  const bool store = server || isRegionStoreFile(target);
  const MapFileInfo info = store ? storeInfo(target, session) : readMapInfo(target);
  // A URL is shown without its password.
  const std::string path = redactedStoreName(target) + (session.empty() ? "" : " session '" + session + "'");
  const OccupancyModel& m = info.model;
  const uint64_t voxelsPerRegion = uint64_t(m.regionSize) * m.regionSize * m.regionSize;
  RegionKey lo, hi;
  const bool any = info.regionBounds(lo, hi);
  const double edge = m.resolution * m.regionSize;
  const double ratio = info.compressedBytes() ? double(info.uncompressedBytes()) / double(info.compressedBytes()) : 0.0;

  // --verify: decompress and check every region, count the voxels.
  OccupancyMap::Counts counts;
  double loadMs = 0.0;
  const NdtMode ndt = ndtModeOf(info.layout);
  NdtSummary gaussians;
  if (verify) {
    const auto start = std::chrono::steady_clock::now();
    // Loaded as it is, so that every layer's impossible values are counted, not only the first.
    MapLoadOptions load = budgetedLoad(options);
    load.refuseImpossibleValues = false;
    const OccupancyMap map = loadMapOrStore(target, load, std::nullopt, nullptr, session);
    if (const std::vector<LayerValueFaults> faults = findImpossibleValues(map); !faults.empty())
      throw Error(std::string(store ? "store '" : "map file '") + path + "': impossible contents (every checksum is valid): " + describeFaults(map, faults));
    loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    counts = map.counts();
    gaussians = ndtSummary(map);
  }

  // A store a voxen map run maps into records its progress: what a second terminal watching
  // the run wants to see (store_run_info.hpp).
  const std::optional<StoreRunInfo> run = store ? storeRunOf(target, session) : std::nullopt;
  if (options.json) {
    Json summary = {{"file", path},
                    {"kind", server ? "postgresql_store" : store ? "region_store" : "map_file"},
                    {"file_bytes", info.fileBytes},
                    {"format_version", info.version},
                    {"model",
                     {{"resolution", m.resolution},
                      {"region_size", m.regionSize},
                      {"hit_probability", floatValue(m.hitProbability)},
                      {"miss_probability", floatValue(m.missProbability)},
                      {"occupancy_threshold", floatValue(m.occupancyThreshold)},
                      {"clamp_min", floatValue(m.clampMin)},
                      {"clamp_max", floatValue(m.clampMax)}}},
                    {"layer_names", layerNamesJson(info.layout)},
                    {"builtin_layer_flags", info.layers.builtinFlags()},
                    {"layer_table", layerTableJson(info.layout)},
                    {"ndt", ndtModeName(ndt)},
                    {"clearance", clearanceSettingsInWords(info.layout, info.derivedSettings[clearanceLayer()])},
                    {"time_origin", info.timeOrigin},
                    {"regions", info.regions.size()}};
    if (any) {
      summary["region_bounds"] = {{lo.x, lo.y, lo.z}, {hi.x, hi.y, hi.z}};
      summary["metre_bounds"] = {{lo.x * edge, lo.y * edge, lo.z * edge}, {(hi.x + 1) * edge, (hi.y + 1) * edge, (hi.z + 1) * edge}};
    }
    summary["memory_bytes"] = info.memoryBytes();
    summary["compressed_bytes"] = info.compressedBytes();
    summary["compression_ratio"] = rounded(ratio, 4);
    if (run) summary["mapping_run"] = storeRunJson(*run);
    summary["verified"] = verify;  // false: the voxels were not read (--verify reads and checks them)
    if (verify) {
      summary["load_ms"] = rounded(loadMs, 3);
      summary["occupied"] = counts.occupied;
      summary["free"] = counts.free;
      if (ndt != NdtMode::Off)
        summary["ndt_gaussians"] = {{"voxels", gaussians.gaussians},
                                    {"with_3_or_more_samples", gaussians.aboveThreshold},
                                    {"median_extent_m", rounded(gaussians.medianExtent, 6)},
                                    {"p95_extent_m", rounded(gaussians.p95Extent, 6)}};
    }
    printJson(summary);
    return 0;
  }

  std::printf("%s %s: %s, format version %u\n", server ? (session.empty() ? "PostgreSQL store, fused map" : "PostgreSQL store")
                                                        : store ? "region store (SQLite)" : "map file", path.c_str(),
              formatBytes(info.fileBytes).c_str(), info.version);
  std::printf("model:\n");
  // The model's settings as stored, in their shortest exact decimals (voxen/host/number_text.hpp).
  std::printf("  %-22s %s m per voxel\n", "resolution", formatNumber(m.resolution).c_str());
  std::printf("  %-22s %d voxels per edge (%s voxels, %s m)\n", "region size", m.regionSize,
              withCommas(voxelsPerRegion).c_str(), formatSignificant(edge, 6).c_str());  // derived: 0.1 x 32 is 3.2000000000000002
  std::printf("  %-22s %s (log-odds %+.4f)\n", "hit probability", formatFloat(m.hitProbability).c_str(), m.hitValue());
  std::printf("  %-22s %s (log-odds %+.4f)\n", "miss probability", formatFloat(m.missProbability).c_str(), m.missValue());
  std::printf("  %-22s %s (log-odds %+.4f)\n", "occupancy threshold", formatFloat(m.occupancyThreshold).c_str(),
              m.thresholdValue());
  std::printf("  %-22s [%s, %s] log-odds\n", "clamp", formatFloat(m.clampMin).c_str(), formatFloat(m.clampMax).c_str());
  printLayers(info.layout);
  // Lines about how a derived layer was computed (clearance's settings) belong right here,
  // after the layers they describe.
  if (ndt != NdtMode::Off)
    std::printf("ndt:                     NDT-%s layers (a Gaussian per voxel: voxel_mean and ndt_covariance%s)\n",
                ndt == NdtMode::Tm ? "TM" : "OM", ndt == NdtMode::Tm ? ", plus hit_miss and ndt_intensity" : "");
  if (const std::string c = clearanceSettingsInWords(info.layout, info.derivedSettings[clearanceLayer()]); !c.empty())
    std::printf("clearance:               %s\n", c.c_str());
  if (run) std::printf("mapping run:             %s\n", storeRunText(*run, target, session).c_str());
  std::printf("time origin:             %.6f s\n", info.timeOrigin);
  std::printf("regions:                 %s\n", withCommas(info.regions.size()).c_str());
  if (any) {
    std::printf("bounds:                  region keys (%d, %d, %d) .. (%d, %d, %d)\n", lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
    std::printf("                         voxels (%lld, %lld, %lld) .. (%lld, %lld, %lld)\n", (long long)lo.x * m.regionSize,
                (long long)lo.y * m.regionSize, (long long)lo.z * m.regionSize, (long long)(hi.x + 1) * m.regionSize - 1,
                (long long)(hi.y + 1) * m.regionSize - 1, (long long)(hi.z + 1) * m.regionSize - 1);
    std::printf("                         metres (%g, %g, %g) .. (%g, %g, %g)\n", lo.x * edge, lo.y * edge, lo.z * edge,
                (hi.x + 1) * edge, (hi.y + 1) * edge, (hi.z + 1) * edge);
  } else {
    std::printf("bounds:                  none (the map is empty)\n");
  }
  std::printf("memory when loaded:      %s of voxel arrays (%s per region)\n", formatBytes(info.memoryBytes()).c_str(),
              formatBytes(voxelsPerRegion * info.layout.bytesPerVoxel()).c_str());
  std::printf("compressed regions:      %s (%.1f : 1)\n", formatBytes(info.compressedBytes()).c_str(), ratio);
  if (verify) {
    std::printf("verified:                every region decompressed, its checksum matched and every layer's values are possible (%.1f ms)\n",
                loadMs);
    std::printf("voxels:                  %s occupied, %s free, %s unobserved\n", withCommas(counts.occupied).c_str(),
                withCommas(counts.free).c_str(),
                withCommas(info.regions.size() * voxelsPerRegion - counts.occupied - counts.free).c_str());
    if (ndt != NdtMode::Off)
      std::printf("gaussians:               %s voxels, %s with 3 or more samples; 1-sigma extent (largest axis) "
                  "median %.3g m, 95th percentile %.3g m\n",
                  withCommas(gaussians.gaussians).c_str(), withCommas(gaussians.aboveThreshold).c_str(),
                  gaussians.medianExtent, gaussians.p95Extent);
  } else {
    std::printf("verified:                no: only the %s were read (--verify decompresses every\n"
                "                         region and checks its checksum and contents)\n",
                store ? "description and row sizes" : "header and block headers");
  }
  return 0;
}

}  // namespace voxen::cli
