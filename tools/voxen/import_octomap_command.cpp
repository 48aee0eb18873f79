// `voxen import-octomap IN.bt --output MAP.vxm [--region-size N]`: reads an OctoMap binary
// tree and saves it as a Voxen map. The resolution comes from the file; the occupancy model
// is OctoMap's defaults (occupied voxels at its upper clamp, free ones at its lower clamp).
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "commands.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/io/octomap_io.hpp"

namespace voxen::cli {

namespace {

int32_t parseRegionSize(const std::string& text) {
  int32_t value = 0;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || parsed.ec != std::errc() || parsed.ptr != text.data() + text.size())
    throw UsageError("--region-size needs a whole number of voxels, not '" + text + "'");
  return value;
}

}  // namespace

int importOctomapCommand(const CommonOptions& /*options*/, const std::vector<std::string>& args) {
  std::optional<std::string> input, output;
  OccupancyModel base = OccupancyModel::octomap();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= args.size()) throw UsageError(std::string(flag) + " needs a value");
      return args[++i];
    };
    if (arg == "--output" || arg == "-o") {
      output = value("--output");
    } else if (arg.rfind("--output=", 0) == 0) {
      output = arg.substr(9);
    } else if (arg == "--region-size") {
      base.regionSize = parseRegionSize(value("--region-size"));
    } else if (arg.rfind("--region-size=", 0) == 0) {
      base.regionSize = parseRegionSize(arg.substr(14));
    } else if (arg.rfind("-", 0) == 0 && arg.size() > 1) {
      throw UsageError("unknown option '" + arg + "'");
    } else if (!input) {
      input = arg;
    } else {
      throw UsageError("unexpected argument '" + arg + "'");
    }
  }
  if (!input) throw UsageError("usage: voxen import-octomap IN.bt --output MAP.vxm [--region-size N]");
  if (!output) throw UsageError("--output MAP.vxm is required");
  base.validate();  // a bad --region-size is reported before the file is read

  const OccupancyMap map = importOctomap(*input, base);
  saveMap(map, *output);
  const auto counts = map.counts();
  std::printf("imported %s: resolution %g m, %llu occupied and %llu free voxels in %llu regions of %d^3\n",
              input->c_str(), map.model().resolution, (unsigned long long)counts.occupied,
              (unsigned long long)counts.free, (unsigned long long)counts.regions, map.regionSize());
  std::printf("saved %s (%llu bytes)\n", output->c_str(), (unsigned long long)std::filesystem::file_size(*output));
  return 0;
}

static CommandRegistration registration{"import-octomap", "read an OctoMap binary tree (.bt) and save it as a Voxen map",
                                        &importOctomapCommand};

}  // namespace voxen::cli
