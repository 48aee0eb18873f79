// `voxen export MAP.vxm --occupied-ply OUT.ply [--with-value] [--double]
//                       --slice-png OUT.png (--z METRES | --z-voxel K) [--scale S]
//                       --octomap OUT.bt
//                       --ellipsoids-ply OUT.ply [--min-samples N] [--sigma K]
//                       --clearance-ply OUT.ply | --clearance-png OUT.png (--z M | --z-voxel K)
//                       --layer NAME [--voxels-ply OUT.ply] [--slice-png OUT.png (--z M | --z-voxel K) [--field F]]
//                       --esdf-slice OUT.pgm|OUT.yaml | --esdf-png OUT.png  --z-min A --z-max B [--max-distance D]
//                                    [--unknown-as-obstacle] [--npy PREFIX]`
// Any of the outputs may be combined in one run; the map is loaded once. With --layer,
// --slice-png draws that layer as a heat map instead of the occupancy classes.
// A heightmap file (voxen heightmap's HM.vxh, told by its content) takes its own outputs
// instead: commands/heightmap_export_cli.hpp.
// --esdf-slice and --esdf-png run their distance transform where --device says (commands/export_device.hpp):
// the GPU, or the CPU reference under --device auto on a CPU driver; the files are the same.
#include <chrono>
#include <climits>
#include <filesystem>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "commands/export_device.hpp"
#include "commands/heightmap_export_cli.hpp"
#include "commands/map_source.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/floor_check.hpp"
#include "voxen/export/map_export.hpp"
#include "voxen/export/clearance_export.hpp"
#include "voxen/export/esdf_slice.hpp"
#include "voxen/export/export_box.hpp"
#include "voxen/export/layer_export.hpp"
#include "voxen/export/map_picture_file.hpp"
#include "voxen/export/ndt_ellipsoids.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/export/octomap_io.hpp"
#include "voxen/heightmap/heightmap_file.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/store/map_store.hpp"

namespace voxen::cli {

namespace {

constexpr const char* kExportUsage =
    "export MAP.vxm|STORE [--bbox XMIN YMIN ZMIN XMAX YMAX ZMAX] [--occupied-ply OUT.ply [--with-value] [--double]] "
    "[--slice-png OUT.png (--z METRES | --z-voxel K) [--scale S]] [--octomap OUT.bt] "
    "[--ellipsoids-ply OUT.ply [--min-samples N] [--sigma K]] [--clearance-ply OUT.ply] "
    "[--clearance-png OUT.png (--z METRES | --z-voxel K) [--scale S] [--clearance-range M]] "
    "[--layer NAME [--voxels-ply OUT.ply] [--slice-png OUT.png (--z METRES | --z-voxel K) [--field F] [--scale S]]] "
    "[--esdf-slice OUT.pgm|OUT.yaml] [--esdf-png OUT.png] --z-min A --z-max B [--max-distance D] [--unknown-as-obstacle] "
    "[--npy PREFIX]";

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
  // --esdf-slice OUT --z-min A --z-max B [--max-distance D] [--unknown-as-obstacle]; its
  // --npy PREFIX is the heightmap options' (HeightmapExportArgs::npyPrefix).
  std::string esdfPath, esdfPng, esdfNpyPrefix;
  bool esdf() const { return !esdfPath.empty() || !esdfPng.empty(); }
  std::optional<double> zMin, zMax, maxDistance;
  bool unknownAsObstacle = false;
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

// "voxels x -3..4, y -2..5 at 4 pixels per voxel (0.025 m per pixel), placed by OUT.yaml"
std::string placement(const SliceImage& slice, double resolution) {
  char text[200];
  std::snprintf(text, sizeof text, "voxels x %d..%d, y %d..%d at %u pixels per voxel (%g m per pixel)", slice.minX, slice.maxX,
                slice.minY, slice.maxY, slice.scale, resolution / slice.scale);
  return text + (slice.yaml.empty() ? std::string() : ", placed in the world by " + slice.yaml.string());
}

// A clearance picture that mostly shows the height above the floor says so (one line), with
// the settings the map's clearance was computed with.
void warnIfFloorDominates(const OccupancyMap& map, int32_t z, const char* flag) {
  const std::optional<ClearanceOptions> settings = ClearanceOptions::parseSettings(map.derivedSettings(clearanceLayer()));
  if (!settings) return;
  const FloorDominance floor = floorDominance(map, *settings, z);
  if (floor.dominates())
    std::fprintf(stderr, "voxen export: warning: %s at layer z=%d: %s\n", flag, z, floorWarning(floor, map.model().resolution, "--ignore-below ").c_str());
}

// --esdf-slice's and --esdf-png's flags.
void checkEsdfFlags(const ExportArgs& args) {
  if (!args.esdf()) {
    if (args.zMin || args.zMax || args.maxDistance || args.unknownAsObstacle)
      throw UsageError("--z-min, --z-max, --max-distance and --unknown-as-obstacle go with --esdf-slice OUT.pgm or --esdf-png OUT.png");
    if (!args.esdfNpyPrefix.empty()) throw UsageError("--npy goes with --esdf-slice for a map (or with a heightmap, HM.vxh)");
    return;
  }
  if (!args.zMin || !args.zMax)
    throw UsageError(std::string(args.esdfPath.empty() ? "--esdf-png" : "--esdf-slice") +
                     " needs --z-min A and --z-max B: the height band (metres) whose occupied voxels are obstacles");
  if (*args.zMin > *args.zMax) {
    char text[160];
    std::snprintf(text, sizeof text, "--z-min (%g m) must not be above --z-max (%g m): the band is z-min..z-max", *args.zMin, *args.zMax);
    throw UsageError(text);
  }
}

// The flags that go together, checked before anything is read or written.
void checkExportFlags(const ExportArgs& args) {
  if (args.plyPath.empty() && args.pngPath.empty() && args.octomapPath.empty() && args.ellipsoidsPath.empty() &&
      args.clearancePlyPath.empty() && args.clearancePngPath.empty() && args.voxelsPlyPath.empty() && !args.esdf())
    throw UsageError(std::string("nothing to export: give --occupied-ply, --slice-png, --octomap, --ellipsoids-ply, "
                                 "--clearance-ply, --clearance-png, --esdf-slice, --esdf-png or --layer NAME with --voxels-ply or --slice-png "
                                 "(usage: ") +
                     kExportUsage + ")");
  checkEsdfFlags(args);
  if (!args.voxelsPlyPath.empty() && args.layer.empty()) throw UsageError("--voxels-ply needs --layer NAME: the layer to write");
  if (!args.layer.empty() && args.voxelsPlyPath.empty() && args.pngPath.empty())
    throw UsageError("--layer goes with --voxels-ply OUT.ply or --slice-png OUT.png");
  if (!args.field.empty() && (args.layer.empty() || args.pngPath.empty()))
    throw UsageError("--field goes with --layer NAME and --slice-png: the field of the layer drawn");
  const bool slices = !args.pngPath.empty() || !args.clearancePngPath.empty();
  if (args.ellipsoidsPath.empty() && args.ellipsoidOptionsGiven) throw UsageError("--min-samples and --sigma go with --ellipsoids-ply");
  if (slices && args.zMetres.has_value() == args.zVoxel.has_value())
    throw UsageError("--slice-png and --clearance-png need exactly one of --z METRES or --z-voxel K");
  if (!slices && (args.zMetres || args.zVoxel || (args.scale && args.esdfPng.empty())))
    throw UsageError("--z, --z-voxel and --scale go with --slice-png or --clearance-png (--scale with --esdf-png too)");
  if (args.clearancePngPath.empty() && args.clearanceRange > 0.0) throw UsageError("--clearance-range goes with --clearance-png");
  if (args.plyPath.empty() && args.ply.withValue) throw UsageError("--with-value goes with --occupied-ply");
  if (args.plyPath.empty() && args.ellipsoidsPath.empty() && args.clearancePlyPath.empty() && args.voxelsPlyPath.empty() &&
      args.ply.doublePrecision)
    throw UsageError("--double goes with --occupied-ply, --ellipsoids-ply, --clearance-ply or --voxels-ply");
}

void checkExportOutputs(const ExportArgs& args) {
  // A picture's map_server YAML (OUT.png -> OUT.yaml) is an output too.
  auto yamlOf = [](const std::string& png) { return png.empty() ? png : detail::pictureYamlPath(png).string(); };
  checkOutputs({{"--occupied-ply", args.plyPath},
                {"--slice-png", args.pngPath},
                {"--slice-png's YAML", yamlOf(args.pngPath)},
                {"--octomap", args.octomapPath},
                {"--ellipsoids-ply", args.ellipsoidsPath},
                {"--clearance-ply", args.clearancePlyPath},
                {"--clearance-png", args.clearancePngPath},
                {"--clearance-png's YAML", yamlOf(args.clearancePngPath)},
                {"--voxels-ply", args.voxelsPlyPath},
                {"--esdf-slice's YAML", args.esdfPath.empty() ? "" : esdfSliceFiles(args.esdfPath).yaml.string()},
                {"--esdf-slice's PGM", args.esdfPath.empty() ? "" : esdfSliceFiles(args.esdfPath).image.string()},
                {"--esdf-png", args.esdfPng},
                {"--esdf-png's YAML", yamlOf(args.esdfPng)},
                {"--npy", args.esdfNpyPrefix.empty() ? "" : args.esdfNpyPrefix + "-distance.npy"},
                {"--npy", args.esdfNpyPrefix.empty() ? "" : args.esdfNpyPrefix + "-obstacle.npy"},
                {"--npy", args.esdfNpyPrefix.empty() ? "" : args.esdfNpyPrefix + ".json"}},
               {{"the map", args.mapPath}});
}

// The map, cropped to --bbox; the layers it cannot export are named, and --z checked against
// its resolution.
OccupancyMap loadExportMap(const CommonOptions& options, const ExportArgs& args) {
  const std::optional<StoreBox> box = bboxOf(args.bbox);
  OccupancyMap map = loadMapOrStore(args.mapPath, budgetedLoad(options), box, "voxen export", args.session);
  // A store is read by region: what lies past the box in those regions is not exported.
  if (box) cropToBox(map, {box->min, box->max});
  // Layers whose type this build does not know have no fields to write: say so rather than
  // leave a reader to wonder where they went.
  for (const LayerId id : map.layout().ids())
    if (layerType(id).opaque && layerType(id).name != args.layer)
      std::fprintf(stderr, "voxen export: note: layer '%s' is opaque to this build (a type it does not know): not exported\n",
                   layerType(id).name.c_str());
  const bool slices = !args.pngPath.empty() || !args.clearancePngPath.empty();
  if (slices && args.zMetres) {
    if (const std::string problem = voxelIndexProblem(*args.zMetres, map.model().resolution); !problem.empty())
      throw UsageError("--z: " + problem);
  }
  return map;
}

// The pictures' titles name the map by its file name (a server store by its kind and session
// only: a URL may hold a password).
std::string pictureMapName(const ExportArgs& args) {
  return isPostgresTarget(args.mapPath) ? "PostgreSQL store" + (args.session.empty() ? std::string() : ", session " + args.session)
                                        : std::filesystem::path(args.mapPath).filename().string();
}

// `work`'s errors, named by the map and by the flag to change.
template <class Work>
auto withMapName(const ExportArgs& args, Work&& work, const char* flag) {
  try {
    return work();
  } catch (const SettingError& e) {
    throw e.withContext(redactedStoreName(args.mapPath) + ": " + flag + ": ");  // the tool names the flag to change
  } catch (const Error& e) {
    throw Error(redactedStoreName(args.mapPath) + ": " + flag + ": " + e.what());
  }
}

int32_t sliceZ(const OccupancyMap& map, const ExportArgs& args) {
  return args.zVoxel ? *args.zVoxel : sliceLayerAt(map, *args.zMetres);
}

// --slice-png: a layer's field as a heat map (with --layer), else the occupancy classes.
void writeSlicePng(const OccupancyMap& map, const ExportArgs& args, const std::optional<LayerId>& layer,
                   const std::string& mapName) {
  const int32_t z = sliceZ(map, args);
  const double res = map.model().resolution;
  if (layer) {
    const LayerSlice drawn = withMapName(
        args,
        [&] {
          return exportLayerSlicePng(map, *layer, args.pngPath,
                                     {.z = z, .scale = args.scale.value_or(0), .field = args.field, .mapName = mapName});
        },
        "--slice-png");
    std::printf("wrote %s: layer %s, field %s of voxel layer z=%d (%g..%g m) as a heat map from %g to %g with a colour bar, "
                "%s; %llu drawn%s\n",
                args.pngPath.c_str(), args.layer.c_str(), drawn.field.c_str(), z, z * res, (z + 1) * res, drawn.min, drawn.max,
                placement(drawn.slice, res).c_str(), (unsigned long long)drawn.drawn, nonFiniteNote(drawn.nonFinite).c_str());
    if (*layer == clearanceLayer()) warnIfFloorDominates(map, z, "--layer clearance --slice-png");
    return;
  }
  const SliceImage slice = exportSlicePng(map, args.pngPath, z, args.scale.value_or(0), mapName);
  std::printf("wrote %s: layer z=%d (%g..%g m) with metre axes and a legend, %s; %llu occupied, %llu free%s\n",
              args.pngPath.c_str(), z, z * res, (z + 1) * res, placement(slice, res).c_str(), (unsigned long long)slice.occupied,
              (unsigned long long)slice.free, nonFiniteNote(slice.nonFinite).c_str());
}

// --voxels-ply and --occupied-ply: voxel centres as point clouds.
void writeVoxelClouds(const OccupancyMap& map, const ExportArgs& args, const std::optional<LayerId>& layer) {
  if (!args.voxelsPlyPath.empty()) {
    const ExportCounts counts = withMapName(
        args, [&] { return exportLayerPly(map, *layer, args.voxelsPlyPath, args.ply.doublePrecision); }, "--voxels-ply");
    std::printf("wrote %s: %llu voxel centres with layer %s's fields as properties (%s)%s\n", args.voxelsPlyPath.c_str(),
                (unsigned long long)counts.written, args.layer.c_str(), fieldList(*layer).c_str(),
                nonFiniteNote(counts.nonFinite).c_str());
  }
  if (!args.plyPath.empty()) {
    const uint64_t points = exportOccupiedPly(map, args.plyPath, args.ply);
    std::printf("wrote %s: %llu occupied voxel centres (%s%s)\n", args.plyPath.c_str(), (unsigned long long)points,
                args.ply.doublePrecision ? "double" : "float", args.ply.withValue ? ", with value" : "");
  }
}

void writeEllipsoidsPly(const OccupancyMap& map, const ExportArgs& args) {
  EllipsoidOptions ellipsoids = args.ellipsoids;
  ellipsoids.doublePrecision = args.ply.doublePrecision;
  const ExportCounts counts =
      withMapName(args, [&] { return exportNdtEllipsoidsPly(map, args.ellipsoidsPath, ellipsoids); }, "--ellipsoids-ply");
  std::printf("wrote %s: %llu NDT ellipsoids (%.3g sigma, voxels with at least %u samples; 42 vertices and 80 "
              "triangles each, coloured by occupancy: blue free, white 0.5, red occupied)%s\n",
              args.ellipsoidsPath.c_str(), (unsigned long long)counts.written, ellipsoids.sigma, ellipsoids.minSamples,
              nonFiniteNote(counts.nonFinite).c_str());
}

// --clearance-ply and --clearance-png.
void writeClearance(const OccupancyMap& map, const ExportArgs& args, const std::string& mapName) {
  if (!args.clearancePlyPath.empty()) {
    const uint64_t points = withMapName(
        args, [&] { return exportClearancePly(map, args.clearancePlyPath, args.ply.doublePrecision); }, "--clearance-ply");
    std::printf("wrote %s: %llu observed voxel centres with their clearance (metres; 0 on obstacles, -1 for none within "
                "range)\n",
                args.clearancePlyPath.c_str(), (unsigned long long)points);
  }
  if (!args.clearancePngPath.empty()) {
    const int32_t z = sliceZ(map, args);
    const ClearanceImage drawn = withMapName(
        args,
        [&] { return exportClearancePng(map, args.clearancePngPath, z, args.scale.value_or(0), args.clearanceRange, mapName); },
        "--clearance-png");
    std::printf("wrote %s: clearance of layer z=%d as a heat map (red near obstacles to blue at %g m, black obstacles, white "
                "none within range, light grey unknown) with a colour bar, %s\n",
                args.clearancePngPath.c_str(), z, drawn.top, placement(drawn.slice, map.model().resolution).c_str());
    warnIfFloorDominates(map, z, "--clearance-png");
  }
}

// --esdf-slice: the 2D distance to the obstacles of a height band, as a PGM and its YAML (and
// arrays with --npy).
void writeEsdfSlice(const OccupancyMap& map, const ExportArgs& args, const CommonOptions& options, const std::string& mapName) {
  ExportDevice device(options);
  const EsdfSliceOptions settings{.zMin = *args.zMin,
                                  .zMax = *args.zMax,
                                  .maxDistance = args.maxDistance.value_or(2.0),
                                  .unknownAsObstacle = args.unknownAsObstacle,
                                  .scheduler = device.scheduler()};
  const auto start = std::chrono::steady_clock::now();
  const char* flag = args.esdfPath.empty() ? "--esdf-png" : "--esdf-slice";
  const EsdfSlice slice = withMapName(args, [&] { return esdfSlice(map, settings); }, flag);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::string wrote;
  if (!args.esdfPath.empty()) {
    const EsdfSliceFiles files = withMapName(args, [&] { return exportEsdfSlicePgm(slice, args.esdfPath); }, "--esdf-slice");
    wrote = files.image.string() + " and " + files.yaml.string() + " (pixel 0..254 = 0..max distance)";
  }
  if (!args.esdfPng.empty()) {
    const EsdfSlicePicture picture =
        withMapName(args, [&] { return exportEsdfSlicePng(slice, args.esdfPng, mapName, args.scale.value_or(0)); }, "--esdf-png");
    wrote += (wrote.empty() ? "" : ", ") + args.esdfPng + " (" + std::to_string(picture.scale) + " pixels per cell, a colour bar" +
             (picture.yaml.empty() ? std::string(")") : ", placed by " + picture.yaml.string() + ")");
  }
  std::printf("wrote %s: ESDF slice of z %g..%g m (voxel layers %d..%d), %u x %u cells at %g m, origin (%g, %g); %llu "
              "obstacle cells%s; max distance %g m; distance transform on %s, %.1f ms\n",
              wrote.c_str(), settings.zMin, settings.zMax, slice.zFirst, slice.zLast, slice.width,
              slice.height, slice.resolution, slice.originX(), slice.originY(), (unsigned long long)slice.obstacles,
              args.unknownAsObstacle ? (" (" + std::to_string(slice.unknownObstacles) + " of them for unknown voxels)").c_str() : "",
              settings.maxDistance, device.description().c_str(), ms);
  if (slice.obstacles == 0)
    std::fprintf(stderr, "voxen export: note: %s: no occupied voxel is centred in z %g..%g m: every cell reads 'no "
                 "obstacle' (254 in the PGM, +inf in --npy)\n", flag, settings.zMin, settings.zMax);
  if (!args.esdfNpyPrefix.empty())
    for (const auto& f : withMapName(args, [&] { return writeEsdfSliceArrays(slice, args.esdfNpyPrefix); }, "--npy"))
      std::printf("wrote %s\n", f.c_str());
}

int exportMap(const CommonOptions& options, const ExportArgs& args) {
  checkExportFlags(args);
  if (!args.esdf()) refuseDeviceFlags(options, "of a map's outputs only --esdf-slice and --esdf-png run on a device");
  checkExportOutputs(args);
  const OccupancyMap map = loadExportMap(options, args);
  const std::string mapName = pictureMapName(args);
  const std::optional<LayerId> layer =
      args.layer.empty() ? std::nullopt
                         : std::optional<LayerId>(withMapName(args, [&] { return requireMapLayer(map, args.layer); }, "--layer"));
  writeVoxelClouds(map, args, layer);
  if (!args.pngPath.empty()) writeSlicePng(map, args, layer, mapName);
  if (!args.ellipsoidsPath.empty()) writeEllipsoidsPly(map, args);
  writeClearance(map, args, mapName);
  if (args.esdf()) writeEsdfSlice(map, args, options, mapName);
  if (!args.octomapPath.empty()) {
    const ExportCounts counts = exportOctomap(map, args.octomapPath);
    std::printf("wrote %s: OctoMap binary tree of the %llu observed voxels (classes only)%s\n", args.octomapPath.c_str(),
                (unsigned long long)counts.written, nonFiniteNote(counts.nonFinite).c_str());
  }
  return 0;
}

void addEsdfOptions(CLI::App& command, ExportArgs& args) {
  command
      .add_option("--esdf-slice", args.esdfPath,
                  "write the 2D distance (metres) from each column to the nearest column with an occupied voxel centred "
                  "in --z-min..--z-max (nvblox's ESDF slice) as a PGM (0 on obstacles up to 254 at --max-distance) and "
                  "its map_server YAML (OUT.pgm and OUT.yaml, from either name)")
      ->type_name("OUT.pgm|OUT.yaml");
  command
      .add_option("--esdf-png", args.esdfPng,
                  "the same distances as a picture: red at the obstacles to blue at --max-distance, obstacle columns black, "
                  "with a colour bar, metre axes and its map_server YAML (--scale: pixels per cell)")
      ->type_name("OUT.png");
  command.add_option("--z-min", args.zMin, "--esdf-slice: the band's bottom (voxel centres at or above it)")
      ->type_name("METRES")
      ->check(numberIn(-kMaxMapMetres, kMaxMapMetres, "metres"));
  command.add_option("--z-max", args.zMax, "--esdf-slice: the band's top (voxel centres at or below it)")
      ->type_name("METRES")
      ->check(numberIn(-kMaxMapMetres, kMaxMapMetres, "metres"));
  command.add_option("--max-distance", args.maxDistance, "--esdf-slice: the distance the PGM's 254 stands for (default 2)")
      ->type_name("METRES")
      ->check(numberIn(0.0, 1e4, "metres", LowEnd::Open));
  command.add_flag("--unknown-as-obstacle", args.unknownAsObstacle,
                   "--esdf-slice: a column with an unobserved voxel in the band (within the map's observed heights) is "
                   "an obstacle too (default: unknown is free, as nvblox's slice)");
}

CommandRun setupExport(CLI::App& command) {
  auto args = std::make_shared<ExportArgs>();
  command.add_option("map", args->mapPath, "the map file or region store to export from, or a heightmap (voxen heightmap's HM.vxh)")
      ->type_name("MAP.vxm|STORE|HM.vxh")
      ->required();
  addBboxOption(command, args->bbox,
                "export only the voxels whose centre lies in this box (metres, faces included); a store reads only the "
                "rows of the regions it touches");
  addSessionOption(command, args->session);
  command.add_option("--occupied-ply", args->plyPath, "write the occupied voxel centres as a PLY cloud")->type_name("OUT.ply");
  command.add_flag("--with-value", args->ply.withValue, "PLY: add each voxel's occupancy value");
  command.add_flag("--double", args->ply.doublePrecision, "PLY: double-precision coordinates");
  command.add_option("--slice-png", args->pngPath, "write one height layer as a PNG image")->type_name("OUT.png");
  command.add_option("--z", args->zMetres,
                     "slice: the layer holding this height as written (a boundary belongs to the layer above it: 0.3 at "
                     "0.1 m per voxel is layer 3, 0.3 to 0.4 m)")->type_name("METRES")
      ->check(numberIn(-kMaxMapMetres, kMaxMapMetres, "metres"));
  command.add_option("--z-voxel", args->zVoxel, "slice: the layer with this voxel index")
      ->type_name("K")
      ->check(integerIn(-int64_t(kMaxVoxelIndex), int64_t(kMaxVoxelIndex)));
  command
      .add_option("--scale", args->scale,
                  "slice and clearance PNG: pixels per voxel edge (default: enough for about 800 pixels on the map's "
                  "longer side, at most 32)")
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
  addEsdfOptions(command, *args);
  auto heightmapArgs = std::make_shared<HeightmapExportArgs>();
  addHeightmapExportOptions(command, *heightmapArgs);
  // The subcommand outlives the run: its options tell which flags were given.
  return [args, heightmapArgs, &command](const CommonOptions& options) {
    if (isHeightmapFile(args->mapPath)) return exportHeightmapFile(command, args->mapPath, *heightmapArgs, options);
    // --npy is a map's too, with --esdf-slice: the heightmap flags checked are the others.
    HeightmapExportArgs heightmapFlags = *heightmapArgs;
    heightmapFlags.options.erase(command.get_option("--npy"));
    refuseHeightmapFlags(args->mapPath, heightmapFlags);
    args->esdfNpyPrefix = heightmapArgs->npyPrefix;
    return exportMap(options, *args);
  };
}

}  // namespace

static CommandRegistration registration{"export", "write a map's occupied voxels as PLY, a height slice as PNG, an OctoMap tree, NDT ellipsoids, clearance or an ESDF slice; a heightmap's Nav2 maps, costmaps and pictures",
                                        &setupExport,
                                        Uses::MemoryBudget | Uses::Device};

}  // namespace voxen::cli
