// `voxen export MAP.vxm --occupied-ply OUT.ply [--with-value] [--double]
//                       --slice-png OUT.png (--z METRES | --z-voxel K) [--scale S]
//                       --octomap OUT.bt
//                       --ellipsoids-ply OUT.ply [--min-samples N] [--sigma K]
//                       --clearance-ply OUT.ply | --clearance-png OUT.png (--z M | --z-voxel K)
//                       --layer NAME [--voxels-ply OUT.ply] [--slice-png OUT.png (--z M | --z-voxel K) [--field F]]`
// Any of the outputs may be combined in one run; the map is loaded once. With --layer,
// --slice-png draws that layer as a heat map instead of the occupancy classes.
#include <climits>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "map_source.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "voxen/io/map_export.hpp"
#include "voxen/io/clearance_export.hpp"
#include "voxen/io/layer_export.hpp"
#include "voxen/io/ndt_ellipsoids.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/io/octomap_io.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen::cli {

namespace {

constexpr const char* kExportUsage =
    "export MAP.vxm|STORE [--bbox XMIN YMIN ZMIN XMAX YMAX ZMAX] [--occupied-ply OUT.ply [--with-value] [--double]] "
    "[--slice-png OUT.png (--z METRES | --z-voxel K) [--scale S]] [--octomap OUT.bt] "
    "[--ellipsoids-ply OUT.ply [--min-samples N] [--sigma K]] [--clearance-ply OUT.ply] "
    "[--clearance-png OUT.png (--z METRES | --z-voxel K) [--scale S] [--clearance-range M]] "
    "[--layer NAME [--voxels-ply OUT.ply] [--slice-png OUT.png (--z METRES | --z-voxel K) [--field F] [--scale S]]]";

struct ExportArgs {
  std::string mapPath, plyPath, pngPath, octomapPath, ellipsoidsPath, clearancePlyPath, clearancePngPath;
  std::string layer, field, voxelsPlyPath;  // --layer NAME, --field F, --voxels-ply OUT.ply
  double clearanceRange = 0.0;
  PlyOptions ply;
  EllipsoidOptions ellipsoids;
  bool ellipsoidOptionsGiven = false;
  std::optional<double> zMetres;
  std::optional<int32_t> zVoxel;
  std::optional<uint32_t> scale;  // pixels per voxel; default: autoSliceScale (the clearance PNG: 1)
  std::vector<double> bbox;       // --bbox: only the regions intersecting it are read
  std::string session;            // --session: one session of a server store
};

// " (12 voxels with a non-finite value left out)" when any were.
std::string nonFiniteNote(uint64_t count) {
  return count ? " (" + std::to_string(count) + " voxels with a non-finite value left out)" : std::string();
}

// "hits uint, misses uint", "length double m": the PLY properties a layer gets
std::string fieldList(LayerId layer) {
  std::string text;
  for (const LayerField& f : layerType(layer).fields)
    text += (text.empty() ? "" : ", ") + f.name + " " + plyTypeOf(f) + (f.unit.empty() ? "" : " " + f.unit);
  return text;
}

int exportMap(const CommonOptions& options, const ExportArgs& args) {
  if (args.plyPath.empty() && args.pngPath.empty() && args.octomapPath.empty() && args.ellipsoidsPath.empty() &&
      args.clearancePlyPath.empty() && args.clearancePngPath.empty() && args.voxelsPlyPath.empty())
    throw UsageError(std::string("nothing to export: give --occupied-ply, --slice-png, --octomap, --ellipsoids-ply, "
                                 "--clearance-ply, --clearance-png or --layer NAME with --voxels-ply or --slice-png (usage: ") +
                     kExportUsage + ")");
  if (!args.voxelsPlyPath.empty() && args.layer.empty()) throw UsageError("--voxels-ply needs --layer NAME: the layer to write");
  if (!args.layer.empty() && args.voxelsPlyPath.empty() && args.pngPath.empty())
    throw UsageError("--layer goes with --voxels-ply OUT.ply or --slice-png OUT.png");
  if (!args.field.empty() && (args.layer.empty() || args.pngPath.empty()))
    throw UsageError("--field goes with --layer NAME and --slice-png: the field of the layer drawn");
  const bool slices = !args.pngPath.empty() || !args.clearancePngPath.empty();
  if (args.ellipsoidsPath.empty() && args.ellipsoidOptionsGiven) throw UsageError("--min-samples and --sigma go with --ellipsoids-ply");
  if (slices && args.zMetres.has_value() == args.zVoxel.has_value())
    throw UsageError("--slice-png and --clearance-png need exactly one of --z METRES or --z-voxel K");
  if (!slices && (args.zMetres || args.zVoxel || args.scale))
    throw UsageError("--z, --z-voxel and --scale go with --slice-png or --clearance-png");
  if (args.clearancePngPath.empty() && args.clearanceRange > 0.0) throw UsageError("--clearance-range goes with --clearance-png");
  if (args.plyPath.empty() && args.ply.withValue) throw UsageError("--with-value goes with --occupied-ply");
  if (args.plyPath.empty() && args.ellipsoidsPath.empty() && args.clearancePlyPath.empty() && args.voxelsPlyPath.empty() &&
      args.ply.doublePrecision)
    throw UsageError("--double goes with --occupied-ply, --ellipsoids-ply, --clearance-ply or --voxels-ply");
  checkOutputs({{"--occupied-ply", args.plyPath},
                {"--slice-png", args.pngPath},
                {"--octomap", args.octomapPath},
                {"--ellipsoids-ply", args.ellipsoidsPath},
                {"--clearance-ply", args.clearancePlyPath},
                {"--clearance-png", args.clearancePngPath},
                {"--voxels-ply", args.voxelsPlyPath}},
               {{"the map", args.mapPath}});
  const OccupancyMap map = loadMapOrStore(args.mapPath, budgetedLoad(options), bboxOf(args.bbox), "voxen export", args.session);
  // Layers whose type this build does not know have no fields to write: say so rather than
  // leave a reader to wonder where they went.
  for (const LayerId id : map.layout().ids())
    if (layerType(id).opaque && layerType(id).name != args.layer)
      std::fprintf(stderr, "voxen export: note: layer '%s' is opaque to this build (a type it does not know): not exported\n",
                   layerType(id).name.c_str());
  if (slices && args.zMetres) {
    if (const std::string problem = voxelIndexProblem(*args.zMetres, map.model().resolution); !problem.empty())
      throw UsageError("--z: " + problem);
  }
  auto withMapName = [&](auto&& work, const char* flag) {
    try {
      return work();
    } catch (const SettingError& e) {
      throw e.withContext(redactedStoreName(args.mapPath) + ": " + flag + ": ");  // the tool names the flag to change
    } catch (const Error& e) {
      throw Error(redactedStoreName(args.mapPath) + ": " + flag + ": " + e.what());
    }
  };
  const std::optional<LayerId> layer =
      args.layer.empty() ? std::nullopt : std::optional<LayerId>(withMapName([&] { return requireMapLayer(map, args.layer); }, "--layer"));
  if (!args.voxelsPlyPath.empty()) {
    const ExportCounts counts =
        withMapName([&] { return exportLayerPly(map, *layer, args.voxelsPlyPath, args.ply.doublePrecision); }, "--voxels-ply");
    std::printf("wrote %s: %llu voxel centres with layer %s's fields as properties (%s)%s\n", args.voxelsPlyPath.c_str(),
                (unsigned long long)counts.written, args.layer.c_str(), fieldList(*layer).c_str(),
                nonFiniteNote(counts.nonFinite).c_str());
  }
  if (!args.plyPath.empty()) {
    const uint64_t points = exportOccupiedPly(map, args.plyPath, args.ply);
    std::printf("wrote %s: %llu occupied voxel centres (%s%s)\n", args.plyPath.c_str(), (unsigned long long)points,
                args.ply.doublePrecision ? "double" : "float", args.ply.withValue ? ", with value" : "");
  }
  if (!args.pngPath.empty() && layer) {
    const int32_t z = args.zVoxel ? *args.zVoxel : sliceLayerAt(map, *args.zMetres);
    const LayerSlice drawn = withMapName(
        [&] { return exportLayerSlicePng(map, *layer, args.pngPath, {.z = z, .scale = args.scale.value_or(0), .field = args.field}); },
        "--slice-png");
    const double res = map.model().resolution;
    std::printf("wrote %s: layer %s, field %s of voxel layer z=%d (%g..%g m) as a heat map from %g to %g with a colour bar, "
                "%u pixels per voxel; voxels x %d..%d, y %d..%d; %llu drawn%s\n",
                args.pngPath.c_str(), args.layer.c_str(), drawn.field.c_str(), z, z * res, (z + 1) * res, drawn.min, drawn.max,
                drawn.slice.scale, drawn.slice.minX, drawn.slice.maxX, drawn.slice.minY, drawn.slice.maxY,
                (unsigned long long)drawn.drawn, nonFiniteNote(drawn.nonFinite).c_str());
  } else if (!args.pngPath.empty()) {
    const int32_t z = args.zVoxel ? *args.zVoxel : sliceLayerAt(map, *args.zMetres);
    const SliceImage slice = exportSlicePng(map, args.pngPath, z, args.scale.value_or(0));
    const double res = map.model().resolution;
    std::printf("wrote %s: layer z=%d (%g..%g m) at %u pixels per voxel with a legend, voxels x %d..%d, y %d..%d; %llu "
                "occupied, %llu free%s\n",
                args.pngPath.c_str(), z, z * res, (z + 1) * res, slice.scale, slice.minX, slice.maxX, slice.minY, slice.maxY,
                (unsigned long long)slice.occupied, (unsigned long long)slice.free, nonFiniteNote(slice.nonFinite).c_str());
  }
  if (!args.ellipsoidsPath.empty()) {
    EllipsoidOptions ellipsoids = args.ellipsoids;
    ellipsoids.doublePrecision = args.ply.doublePrecision;
    const ExportCounts counts =
        withMapName([&] { return exportNdtEllipsoidsPly(map, args.ellipsoidsPath, ellipsoids); }, "--ellipsoids-ply");
    std::printf("wrote %s: %llu NDT ellipsoids (%.3g sigma, voxels with at least %u samples; 42 vertices and 80 "
                "triangles each, coloured by occupancy: blue free, white 0.5, red occupied)%s\n",
                args.ellipsoidsPath.c_str(), (unsigned long long)counts.written, ellipsoids.sigma, ellipsoids.minSamples,
                nonFiniteNote(counts.nonFinite).c_str());
  }
  if (!args.clearancePlyPath.empty()) {
    const uint64_t points = withMapName([&] { return exportClearancePly(map, args.clearancePlyPath, args.ply.doublePrecision); },
                                        "--clearance-ply");
    std::printf("wrote %s: %llu observed voxel centres with their clearance (metres; 0 on obstacles, -1 for none within "
                "range)\n",
                args.clearancePlyPath.c_str(), (unsigned long long)points);
  }
  if (!args.clearancePngPath.empty()) {
    const int32_t z = args.zVoxel ? *args.zVoxel : sliceLayerAt(map, *args.zMetres);
    const SliceImage slice = withMapName(
        [&] { return exportClearancePng(map, args.clearancePngPath, z, args.scale.value_or(1), args.clearanceRange); },
        "--clearance-png");
    std::printf("wrote %s: clearance of layer z=%d as a heat map (red near obstacles to blue at the scale's top, black "
                "obstacles, white none within range, light grey unknown) with a colour bar; voxels x %d..%d, y %d..%d\n",
                args.clearancePngPath.c_str(), z, slice.minX, slice.maxX, slice.minY, slice.maxY);
  }
  if (!args.octomapPath.empty()) {
    const ExportCounts counts = exportOctomap(map, args.octomapPath);
    std::printf("wrote %s: OctoMap binary tree of the %llu observed voxels (classes only)%s\n", args.octomapPath.c_str(),
                (unsigned long long)counts.written, nonFiniteNote(counts.nonFinite).c_str());
  }
  return 0;
}

CommandRun setupExport(CLI::App& command) {
  auto args = std::make_shared<ExportArgs>();
  command.add_option("map", args->mapPath, "the map file or region store to export from")->type_name("MAP.vxm|STORE")->required();
  addBboxOption(command, args->bbox, "read only the regions intersecting this box (metres; a store reads only their rows)");
  addSessionOption(command, args->session);
  command.add_option("--occupied-ply", args->plyPath, "write the occupied voxel centres as a PLY cloud")->type_name("OUT.ply");
  command.add_flag("--with-value", args->ply.withValue, "PLY: add each voxel's occupancy value");
  command.add_flag("--double", args->ply.doublePrecision, "PLY: double-precision coordinates");
  command.add_option("--slice-png", args->pngPath, "write one height layer as a PNG image")->type_name("OUT.png");
  command.add_option("--z", args->zMetres, "slice: the layer at this height")->type_name("METRES")
      ->check(numberIn(-kMaxMapMetres, kMaxMapMetres, "metres"));
  command.add_option("--z-voxel", args->zVoxel, "slice: the layer with this voxel index")
      ->type_name("K")
      ->check(integerIn(-int64_t(kMaxVoxelIndex), int64_t(kMaxVoxelIndex)));
  command
      .add_option("--scale", args->scale,
                  "slice: pixels per voxel edge (default: enough for about 800 pixels across, at most 32 and 4096 "
                  "pixels on the longer side; the clearance PNG: 1)")
      ->type_name("S")
      ->check(integerIn(1, 1024));
  command
      .add_option("--layer", args->layer,
                  "the layer --voxels-ply writes and --slice-png draws as a heat map (occupancy, voxel_mean, traversal, "
                  "hit_miss, touch_time, ndt_covariance, ndt_intensity, clearance or any registered layer the map has)")
      ->type_name("NAME");
  command
      .add_option("--voxels-ply", args->voxelsPlyPath,
                  "with --layer: write the voxels holding data in it (observed, or not at its initial value) with its "
                  "fields as PLY properties")
      ->type_name("OUT.ply");
  command.add_option("--field", args->field, "with --layer and --slice-png: the field drawn (default: the layer's first)")
      ->type_name("F");
  command.add_option("--octomap", args->octomapPath, "write an OctoMap binary tree (classes only)")->type_name("OUT.bt");
  command.add_option("--clearance-ply", args->clearancePlyPath, "write the observed voxels with their clearance (voxen clearance)")
      ->type_name("OUT.ply");
  command.add_option("--clearance-png", args->clearancePngPath,
                     "write one height layer's clearance as a heat map with a colour bar (with --z or --z-voxel)")
      ->type_name("OUT.png");
  command.add_option("--clearance-range", args->clearanceRange, "clearance PNG: the colour scale's top (default: the slice's largest)")
      ->type_name("METRES")
      ->check(numberIn(0.0, 1e4, "metres", LowEnd::Open));
  command
      .add_option("--ellipsoids-ply", args->ellipsoidsPath,
                  "write each NDT voxel's Gaussian as an ellipsoid mesh (maps made with voxen map --ndt), coloured by "
                  "occupancy: blue free, white 0.5, red occupied")
      ->type_name("OUT.ply");
  command.add_option_function<uint32_t>(
             "--min-samples", [args](const uint32_t& n) { args->ellipsoids.minSamples = n, args->ellipsoidOptionsGiven = true; },
             "ellipsoids: voxels with fewer samples are left out (default 3)")
      ->type_name("N")
      ->check(integerIn(1, 1 << 30));
  command.add_option_function<double>(
             "--sigma", [args](const double& k) { args->ellipsoids.sigma = k, args->ellipsoidOptionsGiven = true; },
             "ellipsoids: the surface drawn, in standard deviations (default 2)")
      ->type_name("K")
      ->check(numberIn(0.0, 100.0, "standard deviations", LowEnd::Open));
  return [args](const CommonOptions& options) { return exportMap(options, *args); };
}

}  // namespace

static CommandRegistration registration{"export", "write a map's occupied voxels as PLY, a height slice as PNG, an OctoMap tree, NDT ellipsoids or clearance",
                                        &setupExport,
                                        Uses::MemoryBudget};

}  // namespace voxen::cli
