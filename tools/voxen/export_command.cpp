// `voxen export MAP.vxm --occupied-ply OUT.ply [--with-value] [--double]
//                       --slice-png OUT.png (--z METRES | --z-voxel K) [--scale S]
//                       --octomap OUT.bt`
// Any of the outputs may be combined in one run; the map is loaded once.
#include <cstdio>
#include <optional>
#include <string>

#include "commands.hpp"
#include "voxen/io/map_export.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/io/octomap_io.hpp"
#include "voxen/host/error.hpp"

namespace voxen::cli {

namespace {

const char* kExportUsage =
    "export MAP.vxm [--occupied-ply OUT.ply [--with-value] [--double]] "
    "[--slice-png OUT.png (--z METRES | --z-voxel K) [--scale S]] [--octomap OUT.bt]";

double parseDouble(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(flag + " needs a number, got '" + text + "'");
}

long long parseInteger(const std::string& flag, const std::string& text, long long lo, long long hi) {
  try {
    size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size() && v >= lo && v <= hi) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(flag + " needs an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + text + "'");
}

}  // namespace

int exportCommand(const CommonOptions&, const std::vector<std::string>& args) {
  std::string mapPath, plyPath, pngPath, octomapPath;
  PlyOptions ply;
  std::optional<double> zMetres;
  std::optional<int32_t> zVoxel;
  uint32_t scale = 1;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(arg + " needs a value (usage: " + std::string(kExportUsage) + ")");
      return args[++i];
    };
    if (arg == "--occupied-ply")
      plyPath = value();
    else if (arg == "--with-value")
      ply.withValue = true;
    else if (arg == "--double")
      ply.doublePrecision = true;
    else if (arg == "--slice-png")
      pngPath = value();
    else if (arg == "--z")
      zMetres = parseDouble(arg, value());
    else if (arg == "--z-voxel")
      zVoxel = int32_t(parseInteger(arg, value(), INT32_MIN, INT32_MAX));
    else if (arg == "--scale")
      scale = uint32_t(parseInteger(arg, value(), 1, 1024));
    else if (arg == "--octomap")
      octomapPath = value();
    else if (!arg.empty() && arg[0] == '-')
      throw UsageError("unknown option '" + arg + "' (usage: " + std::string(kExportUsage) + ")");
    else if (mapPath.empty())
      mapPath = arg;
    else
      throw UsageError("unexpected argument '" + arg + "'");
  }
  if (mapPath.empty()) throw UsageError(std::string("needs a map file (usage: ") + kExportUsage + ")");
  if (plyPath.empty() && pngPath.empty() && octomapPath.empty())
    throw UsageError(std::string("nothing to export: give --occupied-ply, --slice-png or --octomap (usage: ") + kExportUsage + ")");
  if (!pngPath.empty() && zMetres.has_value() == zVoxel.has_value())
    throw UsageError("--slice-png needs exactly one of --z METRES or --z-voxel K");
  if (pngPath.empty() && (zMetres || zVoxel || scale != 1)) throw UsageError("--z, --z-voxel and --scale go with --slice-png");
  if (plyPath.empty() && (ply.withValue || ply.doublePrecision)) throw UsageError("--with-value and --double go with --occupied-ply");
  const OccupancyMap map = loadMap(mapPath);
  if (!plyPath.empty()) {
    const uint64_t points = exportOccupiedPly(map, plyPath, ply);
    std::printf("wrote %s: %llu occupied voxel centres (%s%s)\n", plyPath.c_str(), (unsigned long long)points,
                ply.doublePrecision ? "double" : "float", ply.withValue ? ", with value" : "");
  }
  if (!pngPath.empty()) {
    const int32_t z = zVoxel ? *zVoxel : sliceLayerAt(map, *zMetres);
    const SliceImage slice = exportSlicePng(map, pngPath, z, scale);
    const double res = map.model().resolution;
    std::printf("wrote %s: %ux%u pixels, layer z=%d (%g..%g m), voxels x %d..%d, y %d..%d; %llu occupied, %llu free\n",
                pngPath.c_str(), slice.width, slice.height, z, z * res, (z + 1) * res, slice.minX, slice.maxX, slice.minY,
                slice.maxY, (unsigned long long)slice.occupied, (unsigned long long)slice.free);
  }
  if (!octomapPath.empty()) {
    exportOctomap(map, octomapPath);
    std::printf("wrote %s: OctoMap binary tree of the observed voxels (classes only)\n", octomapPath.c_str());
  }
  return 0;
}

static CommandRegistration registration{"export", "write a map's occupied voxels as PLY or a height slice as PNG", &exportCommand};

}  // namespace voxen::cli
