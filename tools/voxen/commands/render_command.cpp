// `voxen render MAP.vxm --output OUT.png [--width W --height H] [--view perspective|top]
//                [--camera EX,EY,EZ,TX,TY,TZ] [--fov DEG] [--crop X0,Y0,Z0,X1,Y1,Z1]
//                [--no-legend] [--max-samples N] [--json]`
// Draws an occupancy map with the painter's renderer: the occupied voxels become a density
// grid, marching cubes meshes it on the GPU and the software rasterizer draws it. Camera
// and crop are in map metres; without --camera the view frames where most occupied voxels
// are to fill the picture (--view top: an orthographic plan, pixels linear in x and y). A
// legend band below the map gives the height colours in metres and a scale bar.
//
// `voxen render HM.vxh --output OUT.png [--color cost|height] [--level K]` (a heightmap, told
// by its content or its .vxh name): the heightmap's surface mesh (voxen/render_heightmap.hpp)
// coloured by traversability cost (the --cost-png colours: lethal black, unknown grey) or by
// height, with the same views, camera and size options, and a legend with the cost colour
// bar, the lethal and unknown swatches and the scale bar.
//
// A map with a `tsdf` layer (voxen map --tsdf) is drawn as its TSDF's surface mesh
// (voxen/render_tsdf.hpp; the mesh voxen mesh writes, cells whose corners have at least
// --min-weight measurements), coloured by height (or in the mesh's own colours when it has
// them), with the same views, camera, crop and legend; --layer occupancy draws its occupied
// voxels instead. The mesh is made on the GPU, or by the CPU reference where --device auto
// finds a CPU driver (as voxen mesh chooses; the same mesh either way).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "commands/map_source.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "report/text_format.hpp"
#include "voxen/context.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/profile.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/export/png_writer.hpp"
#include "voxen/heightmap/heightmap_file.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/render_heightmap.hpp"
#include "voxen/render_map.hpp"
#include "voxen/render_tsdf.hpp"
#include "voxen/tsdf/gpu_tsdf_mesh.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen::cli {

namespace {

struct RenderArgs {
  std::string mapPath, outputPath;
  std::string session;  // --session: one session of a server store
  uint32_t width = 1280, height = 720;
  float fov = 50.0f;
  std::string camera, crop;  // six comma-separated numbers each, or empty
  uint64_t maxSamples = RenderOptions().maxSamples;
  std::string view = "perspective";  // --view
  bool noLegend = false;
  bool fovGiven = false;
  std::string colour = "cost";      // --color (a heightmap's)
  std::optional<uint32_t> level;    // --level (a heightmap's; default every level)
  std::string layer;                // --layer: occupancy or tsdf (default: tsdf when the map has it)
  double minWeight = 0.0;           // --min-weight (the TSDF mesh's)
  const CLI::Option *colourOption = nullptr, *maxSamplesOption = nullptr, *minWeightOption = nullptr;
};

// A heightmap file: its content says so, or its name ends in .vxh (then loading it says what
// is wrong with it, rather than the map loader's words about a map).
bool isHeightmapInput(const std::string& path) {
  return isHeightmapFile(path) || std::filesystem::path(path).extension() == ".vxh";
}

std::string metresText(const glm::dvec3& p) {
  char text[96];
  std::snprintf(text, sizeof text, "(%.6g, %.6g, %.6g)", p.x, p.y, p.z);
  return text;
}

// Why a frame drew no triangle, for the user: nothing to draw, or nothing in view.
std::string nothingDrawnReason(const RenderImage& image) {
  if (image.occupiedVoxels == 0) return "nothing drawn: the map (within --crop, if given) has no occupied voxels";
  return "nothing drawn: none of the " + withCommas(image.triangles) + " triangles of the " +
         withCommas(image.occupiedVoxels) + " occupied voxels (between " + metresText(image.occupiedMin) + " and " +
         metresText(image.occupiedMax) + " m) is in view of the camera at " + metresText(image.eye) + " looking at " +
         metresText(image.target) + " m; aim --camera at them, or leave it out to frame them";
}

// Where the picture lies in the world: the camera, and for the top view the exact mapping.
Json framingJson(const RenderImage& image, bool cameraGiven) {
  auto point = [](const glm::dvec3& p) { return Json{rounded(p.x, 6), rounded(p.y, 6), rounded(p.z, 6)}; };
  Json framing{{"camera", cameraGiven ? "--camera" : "framed"},
               {"eye", point(image.eye)},
               {"target", point(image.target)},
               {"plot_height_px", image.plotHeight},
               {"metres_per_pixel", image.metresPerPixel},
               {"metres_per_pixel_at", image.view == RenderView::Top ? "everywhere" : "target depth"},
               {"occupied_min", point(image.occupiedMin)},
               {"occupied_max", point(image.occupiedMax)}};
  if (image.view == RenderView::Top) {
    framing["plot_left_x"] = image.plotLeft;
    framing["plot_top_y"] = image.plotTop;
  }
  return framing;
}

std::string framingText(const RenderImage& image) {
  char text[320];
  if (image.view == RenderView::Top)
    std::snprintf(text, sizeof text,
                  "top view: %.6g m per pixel, x %.6g to %.6g m left to right, y %.6g to %.6g m top to bottom; heights "
                  "%.6g to %.6g m",
                  image.metresPerPixel, image.plotLeft, image.plotLeft + image.width * image.metresPerPixel,
                  image.plotTop, image.plotTop - image.plotHeight * image.metresPerPixel, image.heightMin,
                  image.heightMax);
  else
    std::snprintf(text, sizeof text, "perspective view from %s to %s m, %.6g m per pixel at the target; heights %.6g to %.6g m",
                  metresText(image.eye).c_str(), metresText(image.target).c_str(), image.metresPerPixel, image.heightMin,
                  image.heightMax);
  return text;
}

// The options both inputs share: size, view, camera and legend, checked as flags.
RenderOptions renderOptions(const RenderArgs& args) {
  RenderOptions render;
  render.width = args.width, render.height = args.height, render.fovDegrees = args.fov;
  render.maxSamples = args.maxSamples;
  render.view = args.view == "top" ? RenderView::Top : RenderView::Perspective;
  // A picture too small for the legend is drawn without it, and says so: a thumbnail or a
  // frame of a fly-through wants the map, not a refusal.
  render.legend = !args.noLegend && renderLegendFits(render.width, render.height);
  if (!args.noLegend && !render.legend)
    std::fprintf(stderr, "voxen render: note: a %u x %u picture is too small for the legend (at least 320 pixels wide, "
                 "the band a third of the height at most): drawn without it\n", render.width, render.height);
  if (render.view == RenderView::Top && !args.camera.empty())
    throw UsageError("--view top frames the map itself: leave out --camera (or use --view perspective)");
  if (render.view == RenderView::Top && args.fovGiven)
    throw UsageError("--view top is orthographic and has no field of view: leave out --fov (or use --view perspective)");
  if (!args.camera.empty()) {
    const std::vector<double> c = numberList(args.camera);
    render.eye = glm::dvec3(c[0], c[1], c[2]);
    render.target = glm::dvec3(c[3], c[4], c[5]);
    if (*render.eye == *render.target) throw UsageError("--camera: the eye and the target are the same point");
  }
  return render;
}

// The JSON fields and text line both inputs' reports share after their own.
void addPictureJson(Json& json, const RenderImage& image, const RenderArgs& args, const RenderOptions& render, double seconds,
                    const std::string& device, const std::string& warning) {
  json["triangles"] = image.triangles;
  json["drawn_triangles"] = image.drawnTriangles;
  json["view"] = image.view == RenderView::Top ? "top" : "perspective";
  json["framing"] = framingJson(image, !args.camera.empty());
  json["height_range_m"] = {rounded(image.heightMin, 6), rounded(image.heightMax, 6)};
  json["legend"] = render.legend;
  json["scale_bar_m"] = render.legend ? Json(image.scaleMetres) : Json(nullptr);
  json["wall_s"] = rounded(seconds, 4);
  json["device"] = device;
  json["warning"] = warning.empty() ? Json(nullptr) : Json(warning);
}

// A map with a tsdf layer: its TSDF's surface mesh (voxen/render_tsdf.hpp), made where voxen
// mesh would make it (the GPU; the CPU reference under --device auto on a CPU driver).
int renderTsdfOfMap(const CommonOptions& options, const RenderArgs& args, const OccupancyMap& map, RenderOptions render,
                    std::chrono::steady_clock::time_point start) {
  const std::string name = redactedStoreName(args.mapPath);
  if (args.maxSamplesOption->count() > 0)
    throw UsageError("--max-samples sizes the density grid of occupied voxels, and '" + name +
                     "' is drawn from its TSDF's mesh (--layer occupancy draws its occupied voxels)");
  TsdfMeshOptions meshOptions;
  meshOptions.minWeight = args.minWeight;
  if (render.cropMin) meshOptions.box = TsdfMeshBox{*render.cropMin, *render.cropMax};
  Context context(options.contextOptions());
  const bool cpuMesh = deviceLeftToAuto(options) && context.deviceInfo().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const TsdfRenderImage out = [&] {
    try {
      const TsdfMesh mesh = cpuMesh ? meshTsdfCpu(map, meshOptions) : meshTsdfGpu(context.scheduler(), map, meshOptions);
      // --color height: the height ramp even where the mesh has its own colours.
      const TsdfRenderOptions colouring{.colouring = args.colourOption->count() > 0 ? TsdfColouring::Height : TsdfColouring::Auto};
      return renderTsdfMesh(context, mesh, render, colouring);
    } catch (const SettingError& e) {
      throw e.withContext(name + ": ");
    } catch (const Error& e) {
      throw Error(name + ": " + e.what());
    }
  }();
  const RenderImage& image = out.image;
  writePng(args.outputPath, image.width, image.height, image.pixels, PngFormat::Rgba8);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string nothingDrawn =
      image.drawnTriangles > 0 ? std::string()
      : image.triangles == 0   ? "nothing drawn: the map's TSDF has no surface" +
                                   std::string(args.crop.empty() ? "" : " within --crop") +
                                   (args.minWeight > 0 ? " with --min-weight " + formatNumber(args.minWeight) : "")
                               : "nothing drawn: none of the TSDF mesh's " + withCommas(image.triangles) + " triangles (between " +
                                   metresText(image.occupiedMin) + " and " + metresText(image.occupiedMax) +
                                   " m) is in view; aim --camera at them, or leave it out to frame them";
  if (!nothingDrawn.empty()) std::fprintf(stderr, "voxen render: warning: %s\n", nothingDrawn.c_str());
  const std::string device = context.deviceInfo().name;
  const char* colours = out.meshColours ? "the map's colours" : "height";
  if (options.json) {
    Json json{{"map", name},
              {"output", args.outputPath},
              {"width", image.width},
              {"height", image.height},
              {"layer", "tsdf"},
              {"mesh", cpuMesh ? "cpu (device auto)" : "gpu"},
              {"min_weight", args.minWeight},
              {"vertices", out.vertices},
              {"faces", out.faces},
              {"drawn_vertices", image.occupiedVoxels},
              {"color", out.meshColours ? "mesh" : "height"}};
    addPictureJson(json, image, args, render, seconds, device, nothingDrawn);
    printJson(json);
  } else {
    std::printf("voxen render: %s -> %s (%ux%u) on %s\n", name.c_str(), args.outputPath.c_str(), image.width, image.height,
                device.c_str());
    std::printf("TSDF mesh (%s): %s vertices, %s triangles (%s drawn) coloured by %s, %.2f s\n",
                cpuMesh ? "CPU reference" : "GPU", withCommas(out.vertices).c_str(), withCommas(image.triangles).c_str(),
                withCommas(image.drawnTriangles).c_str(), colours, seconds);
    std::printf("%s\n", framingText(image).c_str());
  }
  if (options.profile) context.scheduler().profile().print(std::cout);
  return 0;
}

int render(const CommonOptions& options, const RenderArgs& args) {
  const std::string &mapPath = args.mapPath, &outputPath = args.outputPath;
  // --color height also goes with a TSDF's mesh (checked once the map's layers are known).
  if ((args.colourOption->count() > 0 && args.colour != "height") || args.level)
    throw UsageError(std::string(args.level ? "--level" : "--color") + " is for a heightmap (voxen heightmap MAP --output HM.vxh), and '" + redactedStoreName(mapPath) + "' is a map");
  RenderOptions render = renderOptions(args);
  std::optional<std::vector<double>> crop;
  if (!args.crop.empty()) crop = numberList(args.crop);
  if (crop) {
    render.cropMin = glm::dvec3((*crop)[0], (*crop)[1], (*crop)[2]);
    render.cropMax = glm::dvec3((*crop)[3], (*crop)[4], (*crop)[5]);
    if (render.cropMin->x > render.cropMax->x || render.cropMin->y > render.cropMax->y ||
        render.cropMin->z > render.cropMax->z)
      throw UsageError("--crop: the first corner must be below the second on every axis");
  }

  checkOutputs({{"--output", outputPath}}, {{"the map", mapPath}});
  const auto start = std::chrono::steady_clock::now();
  // The map's regions and then the render grid (with the map) are sized against the budget
  // before either is allocated.
  const OccupancyMap map = loadMapOrStore(mapPath, budgetedLoad(options), std::nullopt, nullptr, args.session);
  if (crop) {
    for (const double metres : *crop)
      if (const std::string problem = voxelIndexProblem(metres, map.model().resolution); !problem.empty())
        throw UsageError("--crop: " + problem);
  }
  if (args.layer == "tsdf" && !map.layout().has(kTsdfLayer))
    throw UsageError("--layer tsdf: '" + redactedStoreName(mapPath) + "' has no tsdf layer (depth images integrated with voxen map --tsdf)");
  if (map.layout().has(kTsdfLayer) && args.layer != "occupancy") return renderTsdfOfMap(options, args, map, render, start);
  if (args.colourOption->count() > 0)
    throw UsageError("--color is for a heightmap or (--color height) a TSDF's mesh, and '" + redactedStoreName(mapPath) +
                     "' is drawn from its occupied voxels, always by height");
  if (args.minWeightOption->count() > 0)
    throw UsageError("--min-weight is for a TSDF's mesh, and '" + redactedStoreName(mapPath) + "' is drawn from its occupied voxels" +
                     (map.layout().has(kTsdfLayer) ? " (--layer occupancy)" : ""));
  render.budgetHint = options.memoryBudgetHint() + " or render a part of the map with --crop";
  // The device opens once the grid is known to fit.
  Context context(options.contextOptions());
  const RenderImage image = [&] {
    try {
      return renderMap(context, map, render);
    } catch (const SettingError& e) {
      throw e.withContext(redactedStoreName(mapPath) + ": ");  // the tool names the flag to change
    } catch (const Error& e) {
      throw Error(redactedStoreName(mapPath) + ": " + e.what());
    }
  }();
  writePng(outputPath, image.width, image.height, image.pixels, PngFormat::Rgba8);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // A picture of nothing is written (it is what was asked for: an empty map, or a view that
  // looks away, as one frame of a fly-through may) but never silently: the warning says why.
  const std::string nothingDrawn = image.drawnTriangles > 0 ? std::string() : nothingDrawnReason(image);
  if (!nothingDrawn.empty()) std::fprintf(stderr, "voxen render: warning: %s\n", nothingDrawn.c_str());

  const std::string device = context.deviceInfo().name;
  if (options.json) {
    printJson({{"map", redactedStoreName(mapPath)},
               {"output", outputPath},
               {"width", image.width},
               {"height", image.height},
               {"grid", {image.grid[0], image.grid[1], image.grid[2]}},
               {"occupied_voxels", image.occupiedVoxels},
               {"triangles", image.triangles},
               {"drawn_triangles", image.drawnTriangles},
               {"view", image.view == RenderView::Top ? "top" : "perspective"},
               {"framing", framingJson(image, !args.camera.empty())},
               {"height_range_m", {rounded(image.heightMin, 6), rounded(image.heightMax, 6)}},
               {"legend", render.legend},
               {"scale_bar_m", render.legend ? Json(image.scaleMetres) : Json(nullptr)},
               {"wall_s", rounded(seconds, 4)},
               {"device", device},
               {"warning", nothingDrawn.empty() ? Json(nullptr) : Json(nothingDrawn)}});
  } else {
    std::printf("voxen render: %s -> %s (%ux%u) on %s\n", redactedStoreName(mapPath).c_str(), outputPath.c_str(), image.width,
                image.height, device.c_str());
    std::printf("%s occupied voxels on a %u x %u x %u grid, %s triangles (%s drawn), %.2f s\n",
                withCommas(image.occupiedVoxels).c_str(), image.grid[0], image.grid[1], image.grid[2],
                withCommas(image.triangles).c_str(), withCommas(image.drawnTriangles).c_str(), seconds);
    std::printf("%s\n", framingText(image).c_str());
  }
  if (options.profile) context.scheduler().profile().print(std::cout);
  return 0;
}

// `voxen render HM.vxh`: the heightmap's mesh. A map's own flags are refused by name.
int renderHeightmapFile(const CommonOptions& options, const RenderArgs& args) {
  const std::string &path = args.mapPath, &outputPath = args.outputPath;
  if (!args.crop.empty()) throw UsageError("--crop is for a map, and '" + path + "' is a heightmap: it is drawn whole");
  if (!args.session.empty()) throw UsageError("--session is for a store, and '" + path + "' is a heightmap");
  if (args.maxSamplesOption->count() > 0) throw UsageError("--max-samples is for a map, and '" + path + "' is a heightmap");
  if (!args.layer.empty() || args.minWeightOption->count() > 0)
    throw UsageError(std::string(args.layer.empty() ? "--min-weight" : "--layer") + " is for a map, and '" + path + "' is a heightmap");
  const RenderOptions render = renderOptions(args);
  checkOutputs({{"--output", outputPath}}, {{"the heightmap", path}});
  const auto start = std::chrono::steady_clock::now();
  const Heightmap hm = loadHeightmap(path);
  if (args.level && *args.level >= hm.levels())
    throw UsageError("--level " + std::to_string(*args.level) + ": '" + path + "' keeps " + std::to_string(hm.levels()) +
                     " level(s), 0.." + std::to_string(hm.levels() - 1));
  const HeightmapMeshOptions mesh{.level = args.level,
                                  .colouring = args.colour == "height" ? HeightmapColouring::Height : HeightmapColouring::Cost};
  Context context(options.contextOptions());
  const HeightmapRenderImage out = [&] {
    try {
      return renderHeightmap(context, hm, render, mesh);
    } catch (const Error& e) {
      throw Error(path + ": " + e.what());
    }
  }();
  const RenderImage& image = out.image;
  writePng(outputPath, image.width, image.height, image.pixels, PngFormat::Rgba8);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string nothingDrawn =
      image.drawnTriangles > 0 ? std::string()
      : out.cells == 0         ? "nothing drawn: the heightmap has no cell" + std::string(args.level ? " on --level " + std::to_string(*args.level) : "")
                               : "nothing drawn: none of the heightmap's " + withCommas(image.triangles) +
                                     " triangles is in view; aim --camera at them, or leave it out to frame them";
  if (!nothingDrawn.empty()) std::fprintf(stderr, "voxen render: warning: %s\n", nothingDrawn.c_str());
  const std::string device = context.deviceInfo().name;
  if (options.json) {
    printJson({{"heightmap", path},
               {"output", outputPath},
               {"width", image.width},
               {"height", image.height},
               {"color", args.colour},
               {"level", args.level ? Json(*args.level) : Json("all")},
               {"cells", out.cells},
               {"lethal_cells", out.lethal},
               {"unknown_cells", out.unknown},
               {"joins", out.joins},
               {"risers", out.risers},
               {"triangles", image.triangles},
               {"drawn_triangles", image.drawnTriangles},
               {"view", image.view == RenderView::Top ? "top" : "perspective"},
               {"framing", framingJson(image, !args.camera.empty())},
               {"height_range_m", {rounded(image.heightMin, 6), rounded(image.heightMax, 6)}},
               {"legend", render.legend},
               {"scale_bar_m", render.legend ? Json(image.scaleMetres) : Json(nullptr)},
               {"wall_s", rounded(seconds, 4)},
               {"device", device},
               {"warning", nothingDrawn.empty() ? Json(nullptr) : Json(nothingDrawn)}});
  } else {
    std::printf("voxen render: %s -> %s (%ux%u) on %s\n", path.c_str(), outputPath.c_str(), image.width, image.height, device.c_str());
    std::printf("heightmap: %s cells (%s lethal) coloured by %s, %s triangles (%s drawn), %.2f s\n", withCommas(out.cells).c_str(),
                withCommas(out.lethal).c_str(), args.colour.c_str(), withCommas(image.triangles).c_str(),
                withCommas(image.drawnTriangles).c_str(), seconds);
    std::printf("%s\n", framingText(image).c_str());
  }
  if (options.profile) context.scheduler().profile().print(std::cout);
  return 0;
}

CommandRun setupRender(CLI::App& command) {
  auto args = std::make_shared<RenderArgs>();
  command.add_option("map", args->mapPath, "the map file or store to draw, or a heightmap (voxen heightmap's HM.vxh)")
      ->type_name("MAP.vxm|STORE|HM.vxh")
      ->required();
  addSessionOption(command, args->session);
  command.add_option("--output", args->outputPath, "the PNG image to write")->type_name("OUT.png")->required();
  command.add_option("--width", args->width, "image width")->check(integerIn(16, 16384))->capture_default_str();
  command.add_option("--height", args->height, "image height")->check(integerIn(16, 16384))->capture_default_str();
  CLI::Option* fovOption = command.add_option("--fov", args->fov, "vertical field of view")->check(numberIn(1.0, 170.0, "degrees"))->capture_default_str();
  command.add_option("--view", args->view,
                     "perspective: from above and to the side; top: an orthographic plan (x right, y up, every pixel "
                     "the same metres, given by --json). Both frame the occupied voxels to fill the picture")
      ->check(CLI::IsMember({"perspective", "top"}))
      ->capture_default_str();
  command.add_option("--camera", args->camera, "eye and target in map metres (default: framing the occupied voxels; perspective only)")
      ->type_name("EX,EY,EZ,TX,TY,TZ")
      ->check(commaSeparatedNumbers(6, -kMaxMapMetres, kMaxMapMetres, "metres"));
  command.add_option("--crop", args->crop, "draw only this box, corners in map metres")
      ->type_name("X0,Y0,Z0,X1,Y1,Z1")
      ->check(commaSeparatedNumbers(6, -kMaxMapMetres, kMaxMapMetres, "metres"));
  command.add_flag("--no-legend", args->noLegend,
                   "leave out the band under the map with the height colour bar (metres, voxel centres; a heightmap's: "
                   "cost, with lethal and unknown swatches) and the scale bar (exact in the top view; in perspective at "
                   "the depth of the map's centre)");
  args->colourOption = command
                           .add_option("--color", args->colour,
                                       "heightmap: colour the surface by traversability cost (0..100 on the ramp of voxen "
                                       "export's cost picture, lethal black, unknown grey) or by height; a TSDF's mesh: "
                                       "height draws the height ramp where the map has its own colours")
                           ->check(CLI::IsMember({"cost", "height"}))
                           ->capture_default_str();
  command.add_option("--layer", args->layer,
                     "a map with a tsdf layer: draw its TSDF's surface mesh (tsdf, the default for such a map) or its "
                     "occupied voxels (occupancy)")
      ->check(CLI::IsMember({"occupancy", "tsdf"}));
  args->minWeightOption = command
                              .add_option("--min-weight", args->minWeight,
                                          "a TSDF's mesh: measurements each corner of a cell needs for the cell to be "
                                          "drawn (0: observed at all; as voxen mesh)")
                              ->type_name("W")
                              ->check(numberIn(0.0, 1e6, "measurements"));
  command.add_option("--level", args->level, "heightmap: draw only this level (default: every level)")
      ->type_name("K")
      ->check(integerIn(0, 7));
  args->maxSamplesOption = command.add_option("--max-samples", args->maxSamples, "largest density grid to build (8 bytes a sample; the grid and the map must also fit --memory-budget)")
      ->check(integerIn(4096, int64_t(1) << 34))
      ->capture_default_str();
  return [args, fovOption](const CommonOptions& options) {
    args->fovGiven = fovOption->count() > 0;
    if (isHeightmapInput(args->mapPath)) return renderHeightmapFile(options, *args);
    return render(options, *args);
  };
}

}  // namespace

static CommandRegistration registration{"render",
                                        "draw a map's occupied voxels (marching cubes) or a heightmap's surface (by cost) to a "
                                        "PNG with the software rasterizer",
                                        &setupRender,
                                        Uses::Gpu | Uses::Profile | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli
