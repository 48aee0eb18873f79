// `voxen query MAP --points FILE --kind occupancy|clearance [--json|--csv] [--output FILE]`
// `voxen query MAP --rays FILE --kind raycast [--max-range R] [--unknown-blocks] [--json|--csv]`:
// `voxen query MAP --kind sphere --points F --radius R`, `--kind path --paths F --radius R`,
// `--kind box --poses F --size SX SY SZ`, `--kind nearest --points F [--max-range R]`
// (`--unknown free|occupied|report` for the collision kinds; query_collision.cpp):
// batched queries of a map on the GPU (or the CPU reference with --cpu), one output row per
// input row, in order. CSV (the default) has a header row; --json writes the same fields as
// an array of objects (null where the CSV field is empty).
#include <charconv>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "commands/map_source.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "report/progress.hpp"
#include "commands/query_collision.hpp"
#include "commands/query_input.hpp"
#include "commands/query_table.hpp"
#include "report/text_output_file.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/gpu_queries.hpp"

namespace voxen::cli {

namespace {

struct QueryArgs {
  std::string mapPath, points, rays, kind, output;
  std::string paths, poses, unknown;  // the collision kinds (query_collision.hpp)
  double radius = 0.0;
  std::vector<double> size;
  CLI::Option* radiusOption = nullptr;
  std::string session;  // --session: one session of a server store
  double maxRange = 5.0;
  bool unknownBlocks = false, csv = false, cpu = false, quiet = false;
  CLI::Option* maxRangeOption = nullptr;
};

const char* className(VoxelClass c) {
  return c == VoxelClass::Occupied ? "occupied" : c == VoxelClass::Free ? "free" : "unknown";
}

std::vector<glm::dvec3> pointsOf(const QueryInput& input) {
  std::vector<glm::dvec3> points(input.size());
  for (size_t i = 0; i < points.size(); ++i) points[i] = {input.values[3 * i], input.values[3 * i + 1], input.values[3 * i + 2]};
  return points;
}

std::vector<QueryRay> raysOf(const QueryInput& input, double range) {
  std::vector<QueryRay> rays(input.size());
  for (size_t i = 0; i < rays.size(); ++i) {
    const double* v = &input.values[6 * i];
    rays[i] = {{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, range};
  }
  return rays;
}

// The collision kinds' flags: each kind its own input and sizes, nothing of the others'.
void checkCollisionArgs(const QueryArgs& args) {
  const std::string& kind = args.kind;
  const bool collision = isCollisionKind(kind);
  const bool pathKind = kind == "path", boxKind = kind == "box";
  if (!pathKind && !args.paths.empty()) throw UsageError("--paths is the input of --kind path, not --kind " + kind);
  if (!boxKind && !args.poses.empty()) throw UsageError("--poses is the input of --kind box, not --kind " + kind);
  if (pathKind && args.paths.empty())
    throw UsageError("--kind path needs --paths FILE (x1 y1 z1 x2 y2 z2 ... per line, at least two points)");
  if (boxKind && args.poses.empty()) throw UsageError("--kind box needs --poses FILE (x y z yaw per row)");
  if ((pathKind || boxKind) && !args.points.empty())
    throw UsageError("--kind " + kind + " takes " + (pathKind ? "--paths" : "--poses") + " FILE, not --points");
  const bool radiusKind = kind == "sphere" || pathKind;
  if (radiusKind && args.radiusOption->count() == 0) throw UsageError("--kind " + kind + " needs --radius R (metres)");
  if (!radiusKind && args.radiusOption->count() > 0) throw UsageError("--radius has no effect with --kind " + kind);
  if (boxKind && args.size.size() != 3) throw UsageError("--kind box needs --size SX SY SZ (metres)");
  if (!boxKind && !args.size.empty()) throw UsageError("--size has no effect with --kind " + kind);
  if ((!collision || kind == "nearest") && !args.unknown.empty())
    throw UsageError("--unknown has no effect with --kind " + kind + " (it is the collision kinds' policy)");
}

void checkArgs(const CommonOptions& common, const QueryArgs& args) {
  checkCollisionArgs(args);
  if (isCollisionKind(args.kind)) {
    if (!args.rays.empty()) throw UsageError("--kind " + args.kind + " takes no --rays");
    if (args.unknownBlocks) throw UsageError("--unknown-blocks is the ray casts' option; use --unknown with --kind " + args.kind);
    if (args.kind != "nearest" && args.maxRangeOption->count() > 0)
      throw UsageError("--max-range has no effect with --kind " + args.kind + " (it is the ray casts' and nearest's range)");
    if ((args.kind == "sphere" || args.kind == "nearest") && args.points.empty())
      throw UsageError("--kind " + args.kind + " needs --points FILE (x y z per row)");
    if (args.csv && common.json) throw UsageError("--csv and --json ask for two formats: give one");
    if (args.cpu) common.refuseWith({"--device", "--validation", "--hot-reload"}, "--cpu", "the CPU reference opens no device");
    return;
  }
  const bool rayKind = args.kind == "raycast";
  if (rayKind && !args.points.empty()) throw UsageError("--kind raycast takes --rays FILE, not --points");
  if (!rayKind && !args.rays.empty()) throw UsageError("--kind " + args.kind + " takes --points FILE, not --rays");
  if (rayKind && args.rays.empty()) throw UsageError("--kind raycast needs --rays FILE (ox oy oz dx dy dz per row)");
  if (!rayKind && args.points.empty()) throw UsageError("--kind " + args.kind + " needs --points FILE (x y z per row)");
  if (!rayKind && args.maxRangeOption->count() > 0)
    throw UsageError("--max-range has no effect with --kind " + args.kind + " (it is the ray casts' range)");
  if (!rayKind && args.unknownBlocks)
    throw UsageError("--unknown-blocks has no effect with --kind " + args.kind + " (it is the ray casts' option)");
  if (args.csv && common.json) throw UsageError("--csv and --json ask for two formats: give one");
  if (args.cpu) common.refuseWith({"--device", "--validation", "--hot-reload"}, "--cpu", "the CPU reference opens no device");
}

std::string run(const CommonOptions& common, QueryArgs& args) {
  const bool rayKind = args.kind == "raycast";
  const bool pathKind = args.kind == "path", boxKind = args.kind == "box";
  const std::string inputPath = rayKind ? args.rays : pathKind ? args.paths : boxKind ? args.poses : args.points;
  const std::string inputFlag = rayKind ? "--rays" : pathKind ? "--paths" : boxKind ? "--poses" : "--points";
  if (!args.output.empty()) checkOutputs({{"--output", args.output}}, {{"the map", args.mapPath}, {inputFlag, inputPath}});
  std::optional<QueryPaths> paths;
  if (pathKind) paths = readQueryPaths(inputPath);
  const QueryInput input = pathKind ? paths->points
                                    : readQueryInput(inputPath, rayKind ? 6 : isCollisionKind(args.kind)
                                                                                 ? collisionInputWidth(args.kind)
                                                                                 : 3);
  clearanceLayer();  // so that a map saved with clearance loads
  const OccupancyMap map = loadMapOrStore(args.mapPath, budgetedLoad(common), std::nullopt, nullptr, args.session);
  if (args.kind == "clearance" && !map.layout().has(clearanceLayer()))
    throw Error(redactedStoreName(args.mapPath) + ": the map has no clearance layer (compute it with voxen clearance)");

  // Long batches (millions of rays) show a rate and an ETA on stderr; short ones finish
  // before the first line is due.
  Progress progress("query", input.size(), !args.quiet, rayKind ? "rays" : pathKind ? "path points" : boxKind ? "poses" : "points");
  std::optional<Device> device;
  std::optional<ShaderLibrary> library;
  std::optional<Scheduler> scheduler;
  std::optional<GpuQueries> queries;
  if (!args.cpu) {
    device.emplace(common.device);
    library.emplace(*device, common.libraryOptions());
    scheduler.emplace(*device, *library);
    QueryOptions options;
    options.cacheBytes = std::min<uint64_t>(options.cacheBytes, common.memoryBudgetBytes() / 2);
    options.progress = [&progress](uint64_t done, uint64_t) { progress.update(done); };
    queries.emplace(*scheduler, map, options);
  }
  Table* table = nullptr;
  std::unique_ptr<Table> owned;
  const bool json = common.json;
  try {
    if (args.kind == "occupancy") {
      const std::vector<glm::dvec3> points = pointsOf(input);
      const std::vector<OccupancyAnswer> answers = args.cpu ? cpuOccupancy(map, points) : queries->occupancy(points);
      owned = std::make_unique<Table>(std::vector<std::string>{"x", "y", "z", "value", "class", "status"}, json);
      table = owned.get();
      for (size_t i = 0; i < points.size(); ++i) {
        table->beginRow();
        table->number(points[i].x), table->number(points[i].y), table->number(points[i].z);
        if (answers[i].voxelClass == VoxelClass::Unobserved)
          table->empty();
        else
          table->number(answers[i].value);
        table->string(className(answers[i].voxelClass));
        table->string(queryStatusName(answers[i].status));
        table->endRow();
      }
    } else if (args.kind == "clearance") {
      const std::vector<glm::dvec3> points = pointsOf(input);
      const std::vector<ClearanceSample> samples = args.cpu ? cpuClearance(map, points) : queries->clearance(points);
      owned = std::make_unique<Table>(std::vector<std::string>{"x", "y", "z", "clearance", "gx", "gy", "gz", "status"}, json);
      table = owned.get();
      for (size_t i = 0; i < points.size(); ++i) {
        table->beginRow();
        table->number(points[i].x), table->number(points[i].y), table->number(points[i].z);
        table->number(samples[i].clearance);
        // Without a value (-1) the gradient is undefined: empty cells (null in JSON), and the
        // status says why (out_of_range, outside_map).
        if (samples[i].clearance < 0.0f)
          table->empty(), table->empty(), table->empty();
        else
          table->number(samples[i].gradient.x), table->number(samples[i].gradient.y), table->number(samples[i].gradient.z);
        table->string(queryStatusName(samples[i].status));
        table->endRow();
      }
    } else if (isCollisionKind(args.kind)) {
      CollisionSettings settings;
      settings.radius = args.radius;
      if (boxKind) settings.size = {args.size[0], args.size[1], args.size[2]};
      if (args.maxRangeOption->count() > 0) settings.maxRange = args.maxRange;
      settings.unknown = args.unknown == "free" ? UnknownSpace::Free
                         : args.unknown == "report" ? UnknownSpace::Report
                                                    : UnknownSpace::Occupied;
      owned = std::make_unique<Table>(collisionColumns(args.kind), json);
      table = owned.get();
      writeCollisionRows(*table, args.kind, input, paths ? &*paths : nullptr, settings, map,
                         args.cpu ? nullptr : &*queries);
    } else {
      const std::vector<QueryRay> rays = raysOf(input, args.maxRange);
      const RaycastOptions options{args.unknownBlocks};
      const std::vector<RayHit> hits = args.cpu ? cpuRaycast(map, rays, options) : queries->raycast(rays, options);
      owned = std::make_unique<Table>(std::vector<std::string>{"hit", "distance", "px", "py", "pz", "vx", "vy", "vz", "status"}, json);
      table = owned.get();
      for (const RayHit& h : hits) {
        table->beginRow();
        table->number(h.hit ? 1.0 : 0.0);
        if (h.hit) {
          table->number(h.distance);
          table->number(h.point.x), table->number(h.point.y), table->number(h.point.z);
          table->number(double(h.voxel.x)), table->number(double(h.voxel.y)), table->number(double(h.voxel.z));
        } else {
          for (int k = 0; k < 7; ++k) table->empty();
        }
        table->string(queryStatusName(h.status));
        table->endRow();
      }
    }
  } catch (const QueryInputError& e) {
    throw Error(input.where(e.index()) + ": " + e.what());
  }
  progress.finish(input.size());
  return table->finish();
}

int query(const CommonOptions& common, QueryArgs& args) {
  checkArgs(common, args);
  const std::string text = run(common, args);
  if (args.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0) throw Error("cannot write the answers to stdout");
  } else {
    writeTextFile(args.output, text, "--output");
  }
  return 0;
}

CommandRun setupQuery(CLI::App& command) {
  auto args = std::make_shared<QueryArgs>();
  command.add_option("map", args->mapPath, "the map file or store")->type_name("MAP.vxm|STORE")->required();
  addSessionOption(command, args->session);
  command
      .add_option("--kind", args->kind,
                  "what to ask: occupancy or clearance at points, raycast for rays; collision of a sphere at points, of "
                  "a sphere swept along paths, of a yawed box at poses; the nearest occupied voxel to points")
      ->type_name("occupancy|clearance|raycast|sphere|path|box|nearest")
      ->required()
      ->check(CLI::IsMember({"occupancy", "clearance", "raycast", "sphere", "path", "box", "nearest"}));
  command.add_option("--points", args->points, "points, x y z per row: PLY (x, y, z) or whitespace-separated text")
      ->type_name("FILE");
  command
      .add_option("--rays", args->rays,
                  "rays, ox oy oz dx dy dz per row (the direction need not be unit length): PLY (ox|x, oy|y, oz|z, dx, dy, "
                  "dz) or whitespace-separated text")
      ->type_name("FILE");
  args->maxRangeOption =
      command.add_option("--max-range", args->maxRange, "metres each ray is cast (default 5; 0 tests the origin's voxel); --kind nearest: the search range (default 2)")
          ->type_name("R")
          ->check(numberIn(0.0, 1e6, "metres"));
  command.add_option("--paths", args->paths, "--kind path: one path per line, x1 y1 z1 x2 y2 z2 ... (at least two points)")
      ->type_name("FILE");
  command.add_option("--poses", args->poses, "--kind box: poses x y z yaw per row (yaw radians about +z): PLY or text")
      ->type_name("FILE");
  args->radiusOption = command.add_option("--radius", args->radius, "--kind sphere|path: the sphere's radius, metres")
                           ->type_name("R")
                           ->check(numberIn(0.0, 1e6, "metres"));
  command.add_option("--size", args->size, "--kind box: the box's full size along its x, its y and z, metres")
      ->type_name("SX SY SZ")
      ->expected(3)
      ->check(numberIn(0.0, 1e6, "metres"));
  command
      .add_option("--unknown", args->unknown,
                  "--kind sphere|path|box: unobserved voxels collide (occupied, the default), do not (free), or do not "
                  "and the status column says unobserved (report)")
      ->type_name("free|occupied|report")
      ->check(CLI::IsMember({"free", "occupied", "report"}));
  command.add_flag("--unknown-blocks", args->unknownBlocks, "unobserved voxels stop rays too (unknown space is an obstacle)");
  command.add_flag("--csv", args->csv, "CSV with a header row (the default)");
  command.add_option("--output", args->output, "write the answers here instead of stdout")->type_name("FILE");
  command.add_flag("--cpu", args->cpu, "answer with the single-threaded CPU reference instead of the GPU");
  command.add_flag("--quiet", args->quiet, "no progress on stderr");
  return [args](const CommonOptions& options) { return query(options, *args); };
}

}  // namespace

static CommandRegistration registration{"query", "occupancy, clearance, ray casts, collisions or nearest obstacles of a map from a file",
                                        &setupQuery, Uses::Gpu | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli
