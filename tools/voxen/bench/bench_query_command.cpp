// `voxen bench query`: the batched map queries on the GPU beside their single-threaded CPU
// references in the same run, in queries per second: occupancy and clearance at random
// points, ray casts (5 m by default) from random origins in random directions, and the
// occupied voxels of a box. The map is a MAP.vxm given with --map (the README's run), or
// one built from a generated lidar run. Every timed configuration runs once untimed first
// (lavapipe compiles a pipeline at its first dispatch, and the first call loads the map
// into the query cache); the medians of --repeat runs are reported, and the GPU's answers
// are checked against the CPU's (a mismatch fails the run). --points-file and --rays-file
// query given items instead of random ones, and --only picks the kinds, so that another
// client of the engine (the Python package's benchmark) can be timed against these calls on
// the same map and items; --mapper answers through voxen::Mapper, the call they make. The
// GPU side answers occupancy, clearance and ray casts into memory kept across the runs (the
// span overloads), as a caller asking every frame would; the CPU references return vectors.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "commands/query_input.hpp"
#include "stopwatch.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/context.hpp"
#include "voxen/mapper.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/gpu_queries.hpp"
#include "voxen/testdata/split_mix.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen::cli {

namespace {

struct BenchQueryArgs {
  std::string mapPath;
  double resolution = 0.1;
  int scans = 10;
  uint64_t points = 1u << 20;
  uint64_t rays = 1u << 20;
  double range = 5.0;
  double clearanceRange = 1.0;
  int repeat = 3;
  std::string pointsFile, raysFile;  // given items instead of random ones
  std::vector<std::string> only;     // kinds to run; empty: all
  bool viaMapper = false;            // through voxen::Mapper (--map loaded by Mapper::load), not GpuQueries
  // Collision kinds (issue 38): swept spheres along random paths, nearest obstacles.
  uint64_t paths = 10000, pathSegments = 50, nearestPoints = 1u << 20;
  double segmentLength = 5.0, pathRadius = 0.3, nearestRange = 1.0;
  // The collision kinds run only when --only names them: on lavapipe their default sizes take
  // many minutes (BENCHMARKS.md, "Collision queries").
  bool runs(const std::string& kind) const {
    const bool named = std::find(only.begin(), only.end(), kind) != only.end();
    if (kind == "swept_sphere_paths" || kind == "nearest") return named;
    return only.empty() || named;
  }
};

const std::vector<std::string> kQueryKinds = {"occupancy", "clearance", "raycast", "raycast_unknown_blocks", "box_voxels",
                                              "swept_sphere_paths", "nearest"};

struct Row {
  std::string kind;
  uint64_t items = 0;
  double gpuSeconds = 0, cpuSeconds = 0;
  bool match = true;
  std::string profile;  // GPU time per pass over the timed GPU runs
  double gpuRate() const { return gpuSeconds > 0 ? double(items) / gpuSeconds : 0.0; }
  double cpuRate() const { return cpuSeconds > 0 ? double(items) / cpuSeconds : 0.0; }
};

OccupancyMap benchMap(const BenchQueryArgs& args) {
  if (!args.mapPath.empty()) return loadMap(args.mapPath);
  OccupancyModel model;
  model.resolution = args.resolution;
  OccupancyMap map(model);
  LidarConfig lidar;
  lidar.scans = args.scans;
  lidar.speed = 3.0;
  std::vector<uint8_t> noReturn;
  const std::vector<Ray> rays = generateLidarRays(SyntheticScene::generate(1), lidar, &noReturn);
  CpuIntegrator integrator(map, {.order = UpdateOrder::TwoPhase});
  integrator.integrate(rays);
  return map;
}

// Uniform in the box of the map's regions.
struct Sampler {
  glm::dvec3 lo{0.0}, hi{0.0};
  SplitMix rng{7};
  explicit Sampler(const OccupancyMap& map) {
    bool first = true;
    for (const auto& [key, region] : map.regions()) {
      const glm::dvec3 a = glm::dvec3(key.x, key.y, key.z) * double(map.regionSize()) * map.model().resolution;
      const glm::dvec3 b = a + double(map.regionSize()) * map.model().resolution;
      lo = first ? a : glm::min(lo, a);
      hi = first ? b : glm::max(hi, b);
      first = false;
    }
  }
  double unit() { return double(rng.next() >> 11) * 0x1p-53; }
  glm::dvec3 point() { return lo + (hi - lo) * glm::dvec3(unit(), unit(), unit()); }
  glm::dvec3 direction() { return glm::dvec3(unit(), unit(), unit()) * 2.0 - 1.0 + 1e-9; }
};

// Medians of `repeat` timed runs after an untimed one; with a scheduler, its profile of the
// timed runs into `profile`.
template <class Run>
double timed(int repeat, Run&& run, Scheduler* scheduler = nullptr, std::string* profile = nullptr) {
  run();
  if (scheduler) scheduler->resetProfile();
  std::vector<double> seconds;
  for (int i = 0; i < repeat; ++i) {
    const auto start = Clock::now();
    run();
    seconds.push_back(secondsSince(start));
  }
  if (scheduler && profile) *profile = profileText(scheduler->profile());
  return median(seconds);
}

// The items queried: given (--points-file, --rays-file) or drawn uniformly in the box of the
// map's regions (the points first, then the rays, from one generator), and a box of 100^3
// voxels at its centre.
struct QueryItems {
  std::vector<glm::dvec3> points;
  std::vector<QueryRay> rays;
  QueryBox box;
  std::vector<glm::dvec3> pathPoints;  // --paths paths of --path-segments segments, each --segment-length long
  std::vector<uint64_t> pathOffsets{0};
  std::vector<glm::dvec3> nearestPoints;
};

QueryItems queryItems(const BenchQueryArgs& args, const OccupancyMap& map) {
  Sampler sampler(map);
  QueryItems items;
  if (!args.pointsFile.empty()) {
    const QueryInput input = readQueryInput(args.pointsFile, 3);
    for (size_t i = 0; i < input.size(); ++i)
      items.points.emplace_back(input.values[3 * i], input.values[3 * i + 1], input.values[3 * i + 2]);
  } else {
    items.points.resize(args.points);
    for (auto& p : items.points) p = sampler.point();
  }
  if (!args.raysFile.empty()) {
    const QueryInput input = readQueryInput(args.raysFile, 6);
    for (size_t i = 0; i < input.size(); ++i) {
      const double* v = &input.values[6 * i];
      items.rays.push_back({{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, args.range});
    }
  } else {
    items.rays.resize(args.rays);
    for (auto& r : items.rays) r = {sampler.point(), sampler.direction(), args.range};
  }
  if (args.runs("swept_sphere_paths"))
    for (uint64_t p = 0; p < args.paths; ++p) {
      glm::dvec3 at = sampler.point();
      for (uint64_t k = 0; k <= args.pathSegments; ++k) {
        items.pathPoints.push_back(at);
        const glm::dvec3 d = sampler.direction();
        at += d / std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z) * args.segmentLength;
      }
      items.pathOffsets.push_back(items.pathPoints.size());
    }
  if (args.runs("nearest")) {
    items.nearestPoints.resize(args.nearestPoints);
    for (auto& p : items.nearestPoints) p = sampler.point();
  }
  const glm::dvec3 centre = (sampler.lo + sampler.hi) * 0.5;
  const double half = 50 * map.model().resolution;  // a box of 100^3 voxels
  items.box = QueryBox{centre - half, centre + half - 0.5 * map.model().resolution};
  return items;
}

// What answers: the Mapper (which answers small batches on the CPU) or GpuQueries.
struct QueryPath {
  std::optional<Mapper>& mapper;
  std::optional<GpuQueries>& queries;
  void occupancy(std::span<const glm::dvec3> p, std::span<OccupancyAnswer> out) {
    mapper ? mapper->occupancy(p, out) : queries->occupancy(p, out);
  }
  void clearance(std::span<const glm::dvec3> p, std::span<ClearanceSample> out) {
    mapper ? mapper->clearance(p, out) : queries->clearance(p, out);
  }
  void raycast(std::span<const QueryRay> r, std::span<RayHit> out, const RaycastOptions& o) {
    mapper ? mapper->raycast(r, out, o) : queries->raycast(r, out, o);
  }
  BoxVoxels voxelsInBox(const QueryBox& b, VoxelClass c) {
    return mapper ? mapper->voxelsInBox(b, c) : queries->voxelsInBox(b, c);
  }
  std::vector<PathAnswer> paths(std::span<const glm::dvec3> p, std::span<const uint64_t> o, double r) {
    return mapper ? mapper->pathCollisions(p, o, r) : queries->pathCollisions(p, o, r);
  }
  std::vector<NearestAnswer> nearest(std::span<const glm::dvec3> p, double range) {
    return mapper ? mapper->nearestObstacles(p, range) : queries->nearestObstacles(p, range);
  }
};

// Each kind --only leaves in, on the path and with the CPU reference on `reference`, timed.
std::vector<Row> timeQueries(const BenchQueryArgs& args, Scheduler& scheduler, QueryPath& queries,
                             const OccupancyMap& reference, const QueryItems& items) {
  const std::vector<glm::dvec3>& points = items.points;
  const std::vector<QueryRay>& rays = items.rays;
  std::vector<Row> rows;
  if (args.runs("occupancy")) {
    Row row{"occupancy", points.size()};
    std::vector<OccupancyAnswer> gpu(points.size()), cpu;
    row.gpuSeconds = timed(args.repeat, [&] { queries.occupancy(points, gpu); }, &scheduler, &row.profile);
    row.cpuSeconds = timed(args.repeat, [&] { cpu = cpuOccupancy(reference, points); });
    row.match = gpu == cpu;
    rows.push_back(row);
  }
  if (args.runs("clearance")) {
    Row row{"clearance", points.size()};
    std::vector<ClearanceSample> gpu(points.size()), cpu;
    row.gpuSeconds = timed(args.repeat, [&] { queries.clearance(points, gpu); }, &scheduler, &row.profile);
    row.cpuSeconds = timed(args.repeat, [&] { cpu = cpuClearance(reference, points); });
    row.match = gpu == cpu;
    rows.push_back(row);
  }
  for (bool unknownBlocks : {false, true}) {
    if (!args.runs(unknownBlocks ? "raycast_unknown_blocks" : "raycast")) continue;
    Row row{unknownBlocks ? "raycast_unknown_blocks" : "raycast", rays.size()};
    std::vector<RayHit> gpu(rays.size()), cpu;
    row.gpuSeconds = timed(args.repeat, [&] { queries.raycast(rays, gpu, {unknownBlocks}); }, &scheduler, &row.profile);
    row.cpuSeconds = timed(args.repeat, [&] { cpu = cpuRaycast(reference, rays, {unknownBlocks}); });
    row.match = gpu == cpu;
    rows.push_back(row);
  }
  if (args.runs("box_voxels")) {
    Row row{"box_voxels", 100ull * 100 * 100};
    BoxVoxels gpu, cpu;
    row.gpuSeconds =
        timed(args.repeat, [&] { gpu = queries.voxelsInBox(items.box, VoxelClass::Occupied); }, &scheduler, &row.profile);
    row.cpuSeconds = timed(args.repeat, [&] { cpu = cpuVoxelsInBox(reference, items.box, VoxelClass::Occupied); });
    row.match = gpu.voxels == cpu.voxels;
    rows.push_back(row);
  }
  if (args.runs("swept_sphere_paths")) {
    Row row{"swept_sphere_paths", args.paths};
    std::vector<PathAnswer> gpu, cpu;
    row.gpuSeconds = timed(args.repeat, [&] { gpu = queries.paths(items.pathPoints, items.pathOffsets, args.pathRadius); },
                           &scheduler, &row.profile);
    row.cpuSeconds =
        timed(args.repeat, [&] { cpu = cpuPathCollisions(reference, items.pathPoints, items.pathOffsets, args.pathRadius); });
    row.match = gpu == cpu;
    rows.push_back(row);
  }
  if (args.runs("nearest")) {
    Row row{"nearest", items.nearestPoints.size()};
    std::vector<NearestAnswer> gpu, cpu;
    row.gpuSeconds = timed(args.repeat, [&] { gpu = queries.nearest(items.nearestPoints, args.nearestRange); }, &scheduler,
                           &row.profile);
    row.cpuSeconds = timed(args.repeat, [&] { cpu = cpuNearestObstacles(reference, items.nearestPoints, args.nearestRange); });
    row.match = gpu == cpu;
    rows.push_back(row);
  }
  return rows;
}

// What the table says of the run besides the rows.
struct QueryRunFacts {
  std::string source;  // the map: its path, or "generated (N scans)"
  bool viaMapper = false;
  double resolution = 0;
  size_t regions = 0;
  double setupSeconds = 0;
};

void printQueryJson(const Device& device, const BenchQueryArgs& args, const QueryRunFacts& run, const std::vector<Row>& rows) {
  printJson({{"device", device.info().name},
             {"map", run.source},
             {"path", run.viaMapper ? "mapper" : "gpu_queries"},
             {"resolution", run.resolution},
             {"regions", run.regions},
             {"ray_range_m", args.range},
             {"repeat", args.repeat},
             {"setup_s", rounded(run.setupSeconds, 3)},
             {"rows", jsonArray(rows, [](const Row& r) -> Json {
                return {{"kind", r.kind},
                        {"items", r.items},
                        {"gpu_s", rounded(r.gpuSeconds, 9)},
                        {"cpu_s", rounded(r.cpuSeconds, 9)},
                        {"gpu_per_s", rounded(r.gpuRate(), 0)},
                        {"cpu_per_s", rounded(r.cpuRate(), 0)},
                        {"gpu_equals_cpu", r.match}};
              })}});
}

void printQueryText(const Device& device, const CommonOptions& options, const BenchQueryArgs& args, const QueryRunFacts& run,
                    const std::vector<Row>& rows) {
  std::printf("voxen bench query on %s: map %s, %zu regions at %g m; rays of %g m; medians of %d runs after a warm-up, "
              "the CPU reference on one thread%s\n\n",
              device.info().name.c_str(), run.source.c_str(), run.regions, run.resolution, args.range, args.repeat,
              run.viaMapper ? "; the \"GPU\" columns through voxen::Mapper (small batches on the CPU)" : "");
  const TextTable table({{"kind", 24, Align::Left},
                         {"items", 10},
                         {"GPU s", 10},
                         {"GPU items/s", 14},
                         {"CPU s", 10},
                         {"CPU items/s", 14},
                         {"GPU=CPU", 8}});
  table.printHead();
  for (const Row& r : rows)
    table.printRow({r.kind, count(r.items), fixed(r.gpuSeconds, 4), fixed(r.gpuRate(), 0), fixed(r.cpuSeconds, 4),
                    fixed(r.cpuRate(), 0), r.match ? "yes" : "NO"});
  if (options.profile)
    for (const Row& r : rows) std::printf("\n%s, GPU passes (all timed runs):\n%s", r.kind.c_str(), r.profile.c_str());
}

// A clearance layer for the clearance queries when the map has none (range --clearance-range).
ClearanceOptions clearanceForQueries(const BenchQueryArgs& args) {
  ClearanceOptions clearance;
  clearance.range = args.clearanceRange;
  return clearance;
}

int benchQuery(const CommonOptions& options, const BenchQueryArgs& args) {
  clearanceLayer();
  const auto buildStart = Clock::now();
  OccupancyMap map = benchMap(args);
  if (map.regions().empty()) throw Error("the bench map has no regions");
  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  // --mapper: the Mapper's own copy of the map file answers (and gets its own clearance), and
  // the CPU references read that copy.
  std::optional<Context> context;
  std::optional<Mapper> mapper;
  if (args.viaMapper) {
    context.emplace(scheduler, ContextOptions{.memoryBudgetBytes = options.memoryBudgetBytes()});
    mapper.emplace(Mapper::load(*context, args.mapPath));
    if (!mapper->map().layout().has(clearanceLayer()) && args.runs("clearance")) mapper->computeClearance(clearanceForQueries(args));
  } else if (!map.layout().has(clearanceLayer()) && args.runs("clearance")) {
    GpuClearance(scheduler, map, clearanceForQueries(args)).compute();
  }
  const double buildSeconds = secondsSince(buildStart);
  const QueryItems items = queryItems(args, map);
  std::optional<GpuQueries> gpuQueries;
  if (!mapper) gpuQueries.emplace(scheduler, map);
  QueryPath queries{mapper, gpuQueries};
  const std::vector<Row> rows = timeQueries(args, scheduler, queries, mapper ? mapper->map() : map, items);
  const QueryRunFacts run{.source = args.mapPath.empty() ? "generated (" + std::to_string(args.scans) + " scans)" : args.mapPath,
                          .viaMapper = mapper.has_value(),
                          .resolution = map.model().resolution,
                          .regions = map.regions().size(),
                          .setupSeconds = buildSeconds};
  if (options.json)
    printQueryJson(device, args, run, rows);
  else
    printQueryText(device, options, args, run, rows);
  const bool allMatch = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.match; });
  if (!allMatch) throw Error("the GPU's answers differ from the CPU reference's (see the table)");
  return 0;
}

CommandRun setupBenchQuery(CLI::App& command) {
  auto args = std::make_shared<BenchQueryArgs>();
  CLI::Option* mapPath =
      command.add_option("--map", args->mapPath, "query this map (default: one built from a generated lidar run)")
          ->type_name("MAP.vxm");
  command.add_option("--resolution", args->resolution, "voxel edge of the generated map in metres")
      ->check(numberIn(0.01, 10.0, "metres"))
      ->capture_default_str();
  command.add_option("--scans", args->scans, "lidar scans the generated map is built from (64 x 1024 rays each)")
      ->check(integerIn(1, 1000))
      ->capture_default_str();
  CLI::Option* points = command.add_option("--points", args->points, "points per occupancy and clearance batch")
                            ->check(integerIn(1, 1 << 26))
                            ->capture_default_str();
  CLI::Option* rays =
      command.add_option("--rays", args->rays, "rays per ray-cast batch")->check(integerIn(1, 1 << 26))->capture_default_str();
  command.add_option("--points-file", args->pointsFile,
                     "query these points (PLY vertices x y z, or text lines of x y z) instead of random ones")
      ->type_name("POINTS")
      ->excludes(points);
  command.add_option("--rays-file", args->raysFile,
                     "cast these rays (PLY vertices ox oy oz dx dy dz, or text lines of them; each --range long) "
                     "instead of random ones")
      ->type_name("RAYS")
      ->excludes(rays);
  command.add_option("--only", args->only,
                     "run only these kinds (repeat for several; default: all but swept_sphere_paths and nearest, "
                     "which run only when named)")
      ->check(CLI::IsMember(kQueryKinds));
  command.add_flag("--mapper", args->viaMapper,
                   "query through voxen::Mapper, as embedding programs and the Python package do (small batches are "
                   "answered on the CPU: MapperRunOptions::hostQueryVoxels), instead of GpuQueries; needs --map")
      ->needs(mapPath);
  command.add_option("--range", args->range, "ray length in metres")
      ->check(numberIn(0.0, 1e4, "metres"))
      ->capture_default_str();
  command.add_option("--clearance-range", args->clearanceRange,
                     "range of the clearance layer computed for a map that has none, in metres")
      ->check(numberIn(0.0, 100.0, "metres", LowEnd::Open))
      ->capture_default_str();
  command.add_option("--paths", args->paths, "swept_sphere_paths: random paths per batch")
      ->check(integerIn(1, 1 << 24))
      ->capture_default_str();
  command.add_option("--path-segments", args->pathSegments, "swept_sphere_paths: segments per path")
      ->check(integerIn(1, 10000))
      ->capture_default_str();
  command.add_option("--segment-length", args->segmentLength, "swept_sphere_paths: metres per segment")
      ->check(numberIn(0.0, 1000.0, "metres"))
      ->capture_default_str();
  command.add_option("--path-radius", args->pathRadius, "swept_sphere_paths: the sphere's radius in metres")
      ->check(numberIn(0.0, 100.0, "metres"))
      ->capture_default_str();
  command.add_option("--nearest-points", args->nearestPoints, "nearest: points per batch")
      ->check(integerIn(1, 1 << 26))
      ->capture_default_str();
  command.add_option("--nearest-range", args->nearestRange, "nearest: search range in metres")
      ->check(numberIn(0.0, 100.0, "metres"))
      ->capture_default_str();
  command.add_option("--repeat", args->repeat, "timed repetitions (medians are reported)")
      ->check(integerIn(1, 100))
      ->capture_default_str();
  return [args](const CommonOptions& options) { return benchQuery(options, *args); };
}

}  // namespace

static CommandRegistration registration{"bench query",
                                        "batched map queries per second on the GPU beside the CPU reference",
                                        &setupBenchQuery, Uses::Gpu | Uses::Profile | Uses::Json};

}  // namespace voxen::cli
