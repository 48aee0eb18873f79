// `voxen query MAP --points FILE --kind occupancy|clearance [--json|--csv] [--output FILE]`
// `voxen query MAP --rays FILE --kind raycast [--max-range R] [--unknown-blocks] [--json|--csv]`:
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
#include "commands/query_input.hpp"
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
  std::string session;  // --session: one session of a server store
  double maxRange = 5.0;
  bool unknownBlocks = false, csv = false, cpu = false, quiet = false;
  CLI::Option* maxRangeOption = nullptr;
};

// The shortest text that reads back as the same number.
void append(std::string& out, double value) {
  char text[32];
  out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}
void append(std::string& out, float value) {
  char text[32];
  out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}

const char* className(VoxelClass c) {
  return c == VoxelClass::Occupied ? "occupied" : c == VoxelClass::Free ? "free" : "unknown";
}

// Rows of named fields, written as CSV or JSON: a field is a number, a string, or empty.
class Table {
 public:
  Table(std::vector<std::string> columns, bool json) : columns_(std::move(columns)), json_(json) {
    if (json_) {
      text_ = "[";
    } else {
      for (size_t c = 0; c < columns_.size(); ++c) text_ += (c ? "," : "") + columns_[c];
      text_ += "\n";
    }
  }
  void beginRow() {
    field_ = 0;
    if (json_) text_ += rows_ ? ",\n{" : "\n{";
    ++rows_;
  }
  template <class T>
  void number(T value) {
    next();
    append(text_, value);
  }
  void string(const char* value) {
    next();
    text_ += json_ ? std::string("\"") + value + "\"" : std::string(value);
  }
  void empty() {
    next();
    if (json_) text_ += "null";
  }
  void endRow() { text_ += json_ ? "}" : "\n"; }
  std::string finish() { return text_ + (json_ ? (rows_ ? "\n]\n" : "]\n") : ""); }

 private:
  void next() {
    if (field_ > 0) text_ += ",";
    if (json_) text_ += "\"" + columns_[field_] + "\":";
    ++field_;
  }
  std::vector<std::string> columns_;
  bool json_;
  std::string text_;
  size_t field_ = 0;
  uint64_t rows_ = 0;
};

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

void checkArgs(const CommonOptions& common, const QueryArgs& args) {
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
  const std::string inputPath = rayKind ? args.rays : args.points;
  const std::string inputFlag = rayKind ? "--rays" : "--points";
  if (!args.output.empty()) checkOutputs({{"--output", args.output}}, {{"the map", args.mapPath}, {inputFlag, inputPath}});
  const QueryInput input = readQueryInput(inputPath, rayKind ? 6 : 3);
  clearanceLayer();  // so that a map saved with clearance loads
  const OccupancyMap map = loadMapOrStore(args.mapPath, budgetedLoad(common), std::nullopt, nullptr, args.session);
  if (args.kind == "clearance" && !map.layout().has(clearanceLayer()))
    throw Error(redactedStoreName(args.mapPath) + ": the map has no clearance layer (compute it with voxen clearance)");

  // Long batches (millions of rays) show a rate and an ETA on stderr; short ones finish
  // before the first line is due.
  Progress progress("query", input.size(), !args.quiet, rayKind ? "rays" : "points");
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
      owned = std::make_unique<Table>(std::vector<std::string>{"x", "y", "z", "value", "class"}, json);
      table = owned.get();
      for (size_t i = 0; i < points.size(); ++i) {
        table->beginRow();
        table->number(points[i].x), table->number(points[i].y), table->number(points[i].z);
        if (answers[i].voxelClass == VoxelClass::Unobserved)
          table->empty();
        else
          table->number(answers[i].value);
        table->string(className(answers[i].voxelClass));
        table->endRow();
      }
    } else if (args.kind == "clearance") {
      const std::vector<glm::dvec3> points = pointsOf(input);
      const std::vector<ClearanceSample> samples = args.cpu ? cpuClearance(map, points) : queries->clearance(points);
      owned = std::make_unique<Table>(std::vector<std::string>{"x", "y", "z", "clearance", "gx", "gy", "gz"}, json);
      table = owned.get();
      for (size_t i = 0; i < points.size(); ++i) {
        table->beginRow();
        table->number(points[i].x), table->number(points[i].y), table->number(points[i].z);
        table->number(samples[i].clearance);
        table->number(samples[i].gradient.x), table->number(samples[i].gradient.y), table->number(samples[i].gradient.z);
        table->endRow();
      }
    } else {
      const std::vector<QueryRay> rays = raysOf(input, args.maxRange);
      const RaycastOptions options{args.unknownBlocks};
      const std::vector<RayHit> hits = args.cpu ? cpuRaycast(map, rays, options) : queries->raycast(rays, options);
      owned = std::make_unique<Table>(std::vector<std::string>{"hit", "distance", "px", "py", "pz", "vx", "vy", "vz"}, json);
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
  command.add_option("--kind", args->kind, "what to ask: occupancy or clearance at points, or raycast for rays")
      ->type_name("occupancy|clearance|raycast")
      ->required()
      ->check(CLI::IsMember({"occupancy", "clearance", "raycast"}));
  command.add_option("--points", args->points, "points, x y z per row: PLY (x, y, z) or whitespace-separated text")
      ->type_name("FILE");
  command
      .add_option("--rays", args->rays,
                  "rays, ox oy oz dx dy dz per row (the direction need not be unit length): PLY (ox|x, oy|y, oz|z, dx, dy, "
                  "dz) or whitespace-separated text")
      ->type_name("FILE");
  args->maxRangeOption =
      command.add_option("--max-range", args->maxRange, "metres each ray is cast (default 5; 0 tests the origin's voxel)")
          ->type_name("R")
          ->check(numberIn(0.0, 1e6, "metres"));
  command.add_flag("--unknown-blocks", args->unknownBlocks, "unobserved voxels stop rays too (unknown space is an obstacle)");
  command.add_flag("--csv", args->csv, "CSV with a header row (the default)");
  command.add_option("--output", args->output, "write the answers here instead of stdout")->type_name("FILE");
  command.add_flag("--cpu", args->cpu, "answer with the single-threaded CPU reference instead of the GPU");
  command.add_flag("--quiet", args->quiet, "no progress on stderr");
  return [args](const CommonOptions& options) { return query(options, *args); };
}

}  // namespace

static CommandRegistration registration{"query", "occupancy, clearance or ray casts of a map at points or rays from a file",
                                        &setupQuery, Uses::Gpu | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli
