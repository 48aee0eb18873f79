// `voxen render MAP.vxm --output OUT.png [--width W --height H] [--camera EX,EY,EZ,TX,TY,TZ]
//                [--fov DEG] [--crop X0,Y0,Z0,X1,Y1,Z1] [--max-samples N] [--json]`
// Draws an occupancy map with the painter's renderer: the occupied voxels become a density
// grid, marching cubes meshes it on the GPU and the software rasterizer draws it. Camera
// and crop are in map metres; without --camera the view frames where most occupied voxels are.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "json_output.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "text_format.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/io/png_writer.hpp"
#include "voxen/painter/map_grid.hpp"
#include "voxen/painter/painter.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen::cli {

namespace {

struct RenderArgs {
  std::string mapPath, outputPath;
  uint32_t width = 1280, height = 720;
  float fov = 50.0f;
  std::string camera, crop;  // six comma-separated numbers each, or empty
  MapGridOptions gridOptions;
};

std::string metresText(const glm::dvec3& p) {
  char text[96];
  std::snprintf(text, sizeof text, "(%.6g, %.6g, %.6g)", p.x, p.y, p.z);
  return text;
}

// Why a frame drew no triangle, for the user: nothing to draw, or nothing in view.
std::string nothingDrawnReason(const MapGrid& mapGrid, const FrameCounters& counters, const Camera& camera) {
  if (mapGrid.occupiedVoxels == 0) return "nothing drawn: the map (within --crop, if given) has no occupied voxels";
  const glm::dvec3 eye = glm::dvec3(camera.eye) + mapGrid.offset, target = glm::dvec3(camera.target) + mapGrid.offset;
  return "nothing drawn: none of the " + withCommas(counters.triangles) + " triangles of the " +
         withCommas(mapGrid.occupiedVoxels) + " occupied voxels (between " + metresText(mapGrid.occupiedMin) + " and " +
         metresText(mapGrid.occupiedMax) + " m) is in view of the camera at " + metresText(eye) + " looking at " +
         metresText(target) + " m; aim --camera at them, or leave it out to frame them";
}

int render(const CommonOptions& options, const RenderArgs& args) {
  const std::string &mapPath = args.mapPath, &outputPath = args.outputPath;
  const uint32_t width = args.width, height = args.height;
  const float fov = args.fov;
  MapGridOptions gridOptions = args.gridOptions;
  std::optional<std::vector<double>> cameraSpec, crop;
  if (!args.camera.empty()) cameraSpec = numberList(args.camera);
  if (!args.crop.empty()) crop = numberList(args.crop);
  if (crop) {
    gridOptions.cropMin = glm::dvec3((*crop)[0], (*crop)[1], (*crop)[2]);
    gridOptions.cropMax = glm::dvec3((*crop)[3], (*crop)[4], (*crop)[5]);
    if (gridOptions.cropMin->x > gridOptions.cropMax->x || gridOptions.cropMin->y > gridOptions.cropMax->y ||
        gridOptions.cropMin->z > gridOptions.cropMax->z)
      throw UsageError("--crop: the first corner must be below the second on every axis");
  }

  checkOutputs({{"--output", outputPath}}, {{"the map", mapPath}});
  const auto start = std::chrono::steady_clock::now();
  // The map's regions and then the render grid (with the map) are sized against the budget
  // before either is allocated.
  MapLoadOptions loadOptions;
  loadOptions.memoryBudgetBytes = options.memoryBudgetBytes();
  loadOptions.budgetHint = options.memoryBudgetHint();
  const OccupancyMap map = loadMap(mapPath, loadOptions);
  gridOptions.memoryBudgetBytes = loadOptions.memoryBudgetBytes;
  gridOptions.heldBytes = map.regions().size() * map.bytesPerRegion();
  gridOptions.budgetHint = options.memoryBudgetHint() + " or render a part of the map with --crop";
  if (crop) {
    for (const double metres : *crop)
      if (const std::string problem = voxelIndexProblem(metres, map.model().resolution); !problem.empty())
        throw UsageError("--crop: " + problem);
  }
  MapGrid mapGrid = [&] {
    try {
      return gridFromOccupancy(map, gridOptions);
    } catch (const SettingError& e) {
      throw e.withContext(mapPath + ": ");  // the tool names the flag to change
    } catch (const Error& e) {
      throw Error(mapPath + ": " + e.what());
    }
  }();
  const DensityGrid& grid = mapGrid.grid;

  Camera camera = cameraFraming(glm::vec3(mapGrid.bulkMin), glm::vec3(mapGrid.bulkMax), fov, float(width) / float(height));
  if (cameraSpec) {
    const auto& c = *cameraSpec;
    camera.eye = glm::vec3(glm::dvec3(c[0], c[1], c[2]) - mapGrid.offset);
    camera.target = glm::vec3(glm::dvec3(c[3], c[4], c[5]) - mapGrid.offset);
    if (glm::length(camera.eye - camera.target) <= 0.0f) throw UsageError("--camera: the eye and the target are the same point");
    const float reach = glm::length(glm::vec3(mapGrid.occupiedMax - mapGrid.occupiedMin)) + glm::length(camera.eye - camera.target);
    camera.nearPlane = std::max(0.01f, glm::length(camera.eye - camera.target) * 0.002f);
    camera.farPlane = 2.0f * reach + 1.0f;
  }

  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  PainterOptions po;
  po.gridX = grid.nx, po.gridY = grid.ny, po.gridZ = grid.nz;
  po.gridOrigin = glm::vec3(grid.origin[0], grid.origin[1], grid.origin[2]);
  po.voxelSize = grid.voxelSize;
  po.width = width, po.height = height;
  // A voxel's exposed faces give about 2 triangles each: 12 per voxel covers the worst case.
  po.maxTriangles = uint32_t(std::min<uint64_t>(mapGrid.occupiedVoxels * 12 + 65536, 1ull << 25));
  po.largeTriangleArea = 256;
  Painter painter(scheduler, po);
  painter.setGrid(grid.density, grid.color);
  painter.frame(camera);
  const std::vector<uint32_t> image = painter.readImage().get();
  const FrameCounters counters = painter.readCounters();
  if (counters.overflowTriangles > 0)
    throw Error(mapPath + ": the mesh has more triangles than the " + std::to_string(po.maxTriangles) +
                " reserved (" + std::to_string(counters.overflowTriangles) + " over): internal sizing error");
  std::vector<uint8_t> rgba(image.size() * 4);
  std::memcpy(rgba.data(), image.data(), rgba.size());
  writePng(outputPath, width, height, rgba, PngFormat::Rgba8);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // A picture of nothing is written (it is what was asked for: an empty map, or a view that
  // looks away, as one frame of a fly-through may) but never silently: the warning says why.
  const std::string nothingDrawn = counters.drawnTriangles > 0 ? std::string() : nothingDrawnReason(mapGrid, counters, camera);
  if (!nothingDrawn.empty()) std::fprintf(stderr, "voxen render: warning: %s\n", nothingDrawn.c_str());

  if (options.json) {
    printJson({{"map", mapPath},
               {"output", outputPath},
               {"width", width},
               {"height", height},
               {"grid", {grid.nx, grid.ny, grid.nz}},
               {"occupied_voxels", mapGrid.occupiedVoxels},
               {"triangles", counters.triangles},
               {"drawn_triangles", counters.drawnTriangles},
               {"wall_s", rounded(seconds, 4)},
               {"device", device.info().name},
               {"warning", nothingDrawn.empty() ? Json(nullptr) : Json(nothingDrawn)}});
  } else {
    std::printf("voxen render: %s -> %s (%ux%u) on %s\n", mapPath.c_str(), outputPath.c_str(), width, height,
                device.info().name.c_str());
    std::printf("%s occupied voxels on a %u x %u x %u grid, %s triangles (%s drawn), %.2f s\n",
                withCommas(mapGrid.occupiedVoxels).c_str(), grid.nx, grid.ny, grid.nz, withCommas(counters.triangles).c_str(),
                withCommas(counters.drawnTriangles).c_str(), seconds);
  }
  if (options.profile) scheduler.profile().print(std::cout);
  return 0;
}

CommandRun setupRender(CLI::App& command) {
  auto args = std::make_shared<RenderArgs>();
  command.add_option("map", args->mapPath, "the map file to draw")->type_name("MAP.vxm")->required();
  command.add_option("--output", args->outputPath, "the PNG image to write")->type_name("OUT.png")->required();
  command.add_option("--width", args->width, "image width")->check(integerIn(16, 16384))->capture_default_str();
  command.add_option("--height", args->height, "image height")->check(integerIn(16, 16384))->capture_default_str();
  command.add_option("--fov", args->fov, "vertical field of view")->check(numberIn(1.0, 170.0, "degrees"))->capture_default_str();
  command.add_option("--camera", args->camera, "eye and target in map metres (default: framing the occupied voxels)")
      ->type_name("EX,EY,EZ,TX,TY,TZ")
      ->check(commaSeparatedNumbers(6, -kMaxMapMetres, kMaxMapMetres, "metres"));
  command.add_option("--crop", args->crop, "draw only this box, corners in map metres")
      ->type_name("X0,Y0,Z0,X1,Y1,Z1")
      ->check(commaSeparatedNumbers(6, -kMaxMapMetres, kMaxMapMetres, "metres"));
  command.add_option("--max-samples", args->gridOptions.maxSamples, "largest density grid to build (8 bytes a sample; the grid and the map must also fit --memory-budget)")
      ->check(integerIn(4096, int64_t(1) << 34))
      ->capture_default_str();
  return [args](const CommonOptions& options) { return render(options, *args); };
}

}  // namespace

static CommandRegistration registration{"render", "draw a map's occupied voxels to a PNG (marching cubes + software rasterizer)",
                                        &setupRender,
                                        Uses::Gpu | Uses::Profile | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli
