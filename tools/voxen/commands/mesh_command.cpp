// `voxen mesh MAP.vxm|STORE --output MESH.ply [--min-weight W] [--bbox XMIN YMIN ZMIN XMAX YMAX ZMAX]
//              [--cpu] [--quiet] [--json]`: the surface of the map's TSDF (its `tsdf` layer, made from depth
// images) as a triangle mesh (voxen/tsdf/tsdf_mesh.hpp: marching cubes at the zero crossing,
// vertices welded across blocks and regions, normals from the TSDF's gradient), written
// atomically as a binary PLY that MeshLab and CloudCompare open (float x y z nx ny nz, faces as
// uint vertex indices). A summary on stdout, or JSON with --json whose compute_ms is the
// meshing alone (no loading or saving).
// Where: --cpu the CPU reference on the machine's cores; --device gpu (or a named device,
// --validation) the GPU (voxen/tsdf/gpu_tsdf_mesh.hpp: the same mesh, byte for byte);
// --device auto (the default) the GPU, except on a CPU driver (lavapipe), where the CPU
// reference is the faster of the two.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "commands/map_source.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "report/json_output.hpp"
#include "voxen/context.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/store/store_name.hpp"
#include "voxen/tsdf/gpu_tsdf_mesh.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"

namespace voxen::cli {

namespace {

struct MeshArgs {
  std::string mapPath, output, session;
  std::vector<double> bbox;
  TsdfMeshOptions options;
  bool cpu = false, quiet = false;
};

int meshOfMap(const CommonOptions& common, MeshArgs& args) {
  if (args.cpu)
    common.refuseWith({"--device", "--validation", "--hot-reload", "--profile"}, "--cpu",
                      "the CPU reference opens no device and runs no GPU passes");
  checkOutputs({{"--output", args.output}}, {{"the map", args.mapPath}});
  const std::optional<StoreBox> box = bboxOf(args.bbox);
  if (box) args.options.box = TsdfMeshBox{box->min, box->max};
  const auto start = std::chrono::steady_clock::now();
  // The header first: a map without the layer is refused before it loads, and the box read
  // grows by two voxels, the farthest a boxed cell's normals reach, so that the mesh equals
  // the whole map's mesh in that box.
  const MapFileInfo info = isStoreTarget(args.mapPath) ? storeInfo(args.mapPath, args.session) : readMapInfo(args.mapPath);
  if (!info.layers.has(kTsdfLayer))
    throw Error(redactedStoreName(args.mapPath) +
                ": the map has no 'tsdf' layer (a mesh is made from a TSDF: depth images integrated into the map)");
  std::optional<StoreBox> readBox = box;
  if (readBox) {
    readBox->min -= glm::dvec3(2.0 * info.model.resolution);
    readBox->max += glm::dvec3(2.0 * info.model.resolution);
  }
  std::optional<Context> context;
  if (!args.cpu) context.emplace(common.contextOptions());
  const OccupancyMap map = loadMapOrStore(args.mapPath, MapLoadOptions{}, readBox, args.quiet ? nullptr : "voxen mesh", args.session);
  const bool autoCpu = !args.cpu && deviceLeftToAuto(common) && context->deviceInfo().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const bool cpu = args.cpu || autoCpu;
  const std::string device = cpu ? (autoCpu ? "CPU reference (--device auto: " + context->deviceInfo().name +
                                                  " is a CPU driver, where the CPU reference is faster; --device gpu forces it)"
                                            : std::string("CPU reference"))
                                 : context->deviceInfo().name;
  const auto computeStart = std::chrono::steady_clock::now();
  const TsdfMesh mesh = cpu ? meshTsdfCpu(map, args.options) : meshTsdfGpu(context->scheduler(), map, args.options);
  const double computeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - computeStart).count();
  writeTsdfMeshPly(mesh, args.output);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (common.json) {
    printJson({{"map", redactedStoreName(args.mapPath)},
               {"output", args.output},
               {"device", device},
               {"path", cpu ? (autoCpu ? "cpu (device auto)" : "cpu") : "gpu"},
               {"resolution", map.model().resolution},
               {"min_weight", args.options.minWeight},
               {"vertices", mesh.positions.size()},
               {"faces", mesh.faces.size()},
               {"compute_ms", rounded(computeMs, 3)},
               {"wall_s", rounded(wall, 4)}});
    return 0;
  }
  std::printf("mesh of %s's TSDF (%g m voxels): %zu vertices, %zu triangles\n", redactedStoreName(args.mapPath).c_str(),
              map.model().resolution, mesh.positions.size(), mesh.faces.size());
  std::printf("meshed on %s in %.2f ms, wall %.2f s -> %s\n", device.c_str(), computeMs, wall, args.output.c_str());
  return 0;
}

CommandRun setupMesh(CLI::App& command) {
  auto args = std::make_shared<MeshArgs>();
  command.add_option("map", args->mapPath, "the map file or store (with a tsdf layer)")->type_name("MAP.vxm|STORE")->required();
  addSessionOption(command, args->session);
  command.add_option("--output", args->output, "write the mesh here (binary PLY)")->type_name("MESH.ply")->required();
  command.add_option("--min-weight", args->options.minWeight,
                     "measurements each corner of a cell needs for the cell to be meshed (0: observed at all)")
      ->type_name("W")
      ->capture_default_str()
      ->check(numberIn(0.0, 1e6, "measurements"));
  addBboxOption(command, args->bbox, "only cells whose voxel centres lie in this box");
  command.add_flag("--cpu", args->cpu, "mesh with the CPU reference instead of the GPU (the same mesh)");
  command.add_flag("--quiet", args->quiet, "no notes on stderr");
  return [args](const CommonOptions& options) { return meshOfMap(options, *args); };
}

}  // namespace

static CommandRegistration registration{"mesh", "the surface of a map's TSDF as a triangle mesh (binary PLY)", &setupMesh,
                                        Uses::Gpu | Uses::Json};

}  // namespace voxen::cli
