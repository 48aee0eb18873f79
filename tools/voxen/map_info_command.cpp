// `voxen info MAP.vxm [--verify]`: what a map file holds, read from its header and block
// headers (nothing is decompressed unless --verify asks for every region to be loaded and
// checked). Reached through `voxen info` (info_command.cpp) when its argument is a map file.
#include <chrono>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/host/memory_stats.hpp"

namespace voxen::cli {

namespace {

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (uint8_t(c) < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", unsigned(c));
      out += esc;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

int mapInfoCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  std::string path;
  bool verify = false;
  for (const std::string& arg : args) {
    if (arg == "--verify")
      verify = true;
    else if (!arg.empty() && arg[0] == '-')
      throw UsageError("unknown option '" + arg + "' (map info takes MAP.vxm [--verify])");
    else if (path.empty())
      path = arg;
    else
      throw UsageError("unexpected argument '" + arg + "'");
  }
  if (path.empty()) throw UsageError("map info needs a map file");

  const MapFileInfo info = readMapInfo(path);
  const OccupancyModel& m = info.model;
  const uint64_t voxelsPerRegion = uint64_t(m.regionSize) * m.regionSize * m.regionSize;
  RegionKey lo, hi;
  const bool any = info.regionBounds(lo, hi);
  const double edge = m.resolution * m.regionSize;
  const double ratio = info.compressedBytes() ? double(info.uncompressedBytes()) / double(info.compressedBytes()) : 0.0;

  // --verify: decompress and check every region, count the voxels.
  OccupancyMap::Counts counts;
  double loadMs = 0.0;
  if (verify) {
    const auto start = std::chrono::steady_clock::now();
    const OccupancyMap map = loadMap(path);
    loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    counts = map.counts();
  }

  if (options.json) {
    std::printf("{\"file\": %s, \"file_bytes\": %llu, \"format_version\": %u,\n", jsonString(path).c_str(),
                (unsigned long long)info.fileBytes, info.version);
    std::printf(" \"model\": {\"resolution\": %.17g, \"region_size\": %d, \"hit_probability\": %.9g, \"miss_probability\": %.9g,"
                " \"occupancy_threshold\": %.9g, \"clamp_min\": %.9g, \"clamp_max\": %.9g},\n",
                m.resolution, m.regionSize, m.hitProbability, m.missProbability, m.occupancyThreshold, m.clampMin, m.clampMax);
    std::printf(" \"layers\": %u, \"layer_names\": %s, \"time_origin\": %.17g, \"regions\": %zu,\n", info.layers,
                jsonString(layerNames(info.layers)).c_str(), info.timeOrigin, info.regions.size());
    if (any)
      std::printf(" \"region_bounds\": [[%d, %d, %d], [%d, %d, %d]],\n"
                  " \"metre_bounds\": [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]],\n",
                  lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, lo.x * edge, lo.y * edge, lo.z * edge, (hi.x + 1) * edge, (hi.y + 1) * edge,
                  (hi.z + 1) * edge);
    std::printf(" \"memory_bytes\": %llu, \"compressed_bytes\": %llu, \"compression_ratio\": %.4f",
                (unsigned long long)info.memoryBytes(), (unsigned long long)info.compressedBytes(), ratio);
    if (verify)
      std::printf(",\n \"verified\": true, \"load_ms\": %.3f, \"occupied\": %llu, \"free\": %llu", loadMs,
                  (unsigned long long)counts.occupied, (unsigned long long)counts.free);
    std::printf("}\n");
    return 0;
  }

  std::printf("map file %s: %s, format version %u\n", path.c_str(), formatBytes(info.fileBytes).c_str(), info.version);
  std::printf("model:\n");
  std::printf("  %-22s %g m per voxel\n", "resolution", m.resolution);
  std::printf("  %-22s %d voxels per edge (%llu voxels, %g m)\n", "region size", m.regionSize,
              (unsigned long long)voxelsPerRegion, edge);
  std::printf("  %-22s %g (log-odds %+.4f)\n", "hit probability", m.hitProbability, m.hitValue());
  std::printf("  %-22s %g (log-odds %+.4f)\n", "miss probability", m.missProbability, m.missValue());
  std::printf("  %-22s %g (log-odds %+.4f)\n", "occupancy threshold", m.occupancyThreshold, m.thresholdValue());
  std::printf("  %-22s [%g, %g] log-odds\n", "clamp", m.clampMin, m.clampMax);
  std::printf("layers:                  %s (mask 0x%x, %llu bytes per voxel)\n", layerNames(info.layers).c_str(), info.layers,
              (unsigned long long)bytesPerVoxel(info.layers));
  std::printf("time origin:             %.6f s\n", info.timeOrigin);
  std::printf("regions:                 %zu\n", info.regions.size());
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
              formatBytes(voxelsPerRegion * bytesPerVoxel(info.layers)).c_str());
  std::printf("compressed regions:      %s (%.1f : 1)\n", formatBytes(info.compressedBytes()).c_str(), ratio);
  if (verify) {
    std::printf("verified:                every region decompressed and its checksum matched (%.1f ms)\n", loadMs);
    std::printf("voxels:                  %llu occupied, %llu free, %llu unobserved\n", (unsigned long long)counts.occupied,
                (unsigned long long)counts.free,
                (unsigned long long)(info.regions.size() * voxelsPerRegion - counts.occupied - counts.free));
  }
  return 0;
}

}  // namespace voxen::cli
