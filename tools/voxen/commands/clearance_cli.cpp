#include "commands/clearance_cli.hpp"

#include <cstdio>

#include "option_checks.hpp"
#include "voxen/clearance/floor_check.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/map/region_cache.hpp"

namespace voxen::cli {

void addClearanceSettings(CLI::App& command, ClearanceOptions& options, std::vector<double>& axisScale) {
  command
      .add_option("--range", options.range,
                  "search range in metres: farther obstacles are not looked for. It spans at most (512 - region size) / 2 "
                  "voxels per axis (range / (resolution x axis scale)): with 32^3 regions 240 voxels, 24 m at 0.1 m per "
                  "voxel, 12 m at 0.05 m")
      ->check(numberIn(0.0, 1e4, "metres", LowEnd::Open))
      ->capture_default_str();
  command
      .add_option_function<std::string>(
          "--technique", [&options](const std::string& name) { options.technique = clearanceTechniqueNamed(name); },
          kClearanceTechniqueHelp)
      ->check(CLI::IsMember({"exact", "roi", "neighbour", "openlist"}))
      ->default_str("exact");
  command.add_flag("--unknown-free", options.unknownFree, "unobserved voxels are free (default: obstacles)");
  command
      .add_option("--axis-scale", axisScale,
                  "multiply each axis' offsets: distance = sqrt((X dx)^2 + (Y dy)^2 + (Z dz)^2). A scale below 1 "
                  "shortens distances along that axis and stretches the range (range / (resolution x scale) voxels); it does not make "
                  "obstacles there count less: with 1 1 0.5 a floor 1 m below is 0.5 m away. To leave the floor or the "
                  "ceiling out, use --ignore-below / --ignore-above")
      ->expected(3)
      ->check(numberIn(0.0, 100.0, "", LowEnd::Open))
      ->type_name("X Y Z");
  command
      .add_option_function<double>(
          "--ignore-below", [&options](const double& z) { options.ignoreBelow = z; },
          "voxels whose centre is below this height (metres, compared as written) are never obstacles: e.g. 0.3 "
          "leaves out the floor and what lies on it lower than 0.3 m. A ground robot wants the floor left out: without "
          "it the floor is the nearest obstacle almost everywhere (voxen clearance warns when it is)")
      ->type_name("Z")
      ->check(numberIn(-kMaxMapMetres, kMaxMapMetres, "metres"));
  command
      .add_option_function<double>(
          "--ignore-above", [&options](const double& z) { options.ignoreAbove = z; },
          "voxels whose centre is above this height (metres) are never obstacles: e.g. the ceiling")
      ->type_name("Z")
      ->check(numberIn(-kMaxMapMetres, kMaxMapMetres, "metres"));
}

void validateClearanceSettings(const ClearanceOptions& options, const OccupancyModel& model,
                               const std::map<std::string, std::string>& renamed) {
  try {
    options.validate(model);
  } catch (const ClearanceSettingsError& e) {
    // "range/axis-scale" -> "--range/--axis-scale"
    std::string flags, setting = e.setting();
    for (size_t start = 0; start <= setting.size();) {
      const size_t end = std::min(setting.find('/', start), setting.size());
      const std::string name = setting.substr(start, end - start);
      const auto other = renamed.find(name);
      const std::string flag = other == renamed.end() ? "--" + name : other->second;
      if (!flag.empty()) flags += (flags.empty() ? "" : "/") + flag;
      start = end + 1;
    }
    throw UsageError(flags + ": " + e.what());
  }
}

void warnIfSlow(const GpuClearance& clearance, const ClearanceOptions& options) {
  const double work = clearance.relativeWork();
  if (work < 10.0) return;
  std::fprintf(stderr,
               "voxen clearance: note: the %s technique at a range of %g m runs %u propagation steps per batch, about %.0f "
               "times the exact technique's work per region: expect it to be slow (--technique exact is exact and the "
               "default)\n",
               clearanceTechniqueName(options.technique), options.range, clearance.iterationsPerBatch(), work);
}

void warnIfFloorDominates(const OccupancyMap& map, const ClearanceOptions& options) {
  const FloorDominance floor = floorDominance(map, options);
  if (floor.dominates())
    std::fprintf(stderr, "voxen clearance: warning: %s\n", floorWarning(floor, map.model().resolution, "--ignore-below ").c_str());
}

}  // namespace voxen::cli
