#pragma once
// `voxen export HM.vxh ...`: a heightmap's outputs (voxen/export/heightmap_export.hpp), for the
// export command, which tells a heightmap from a map by the file's content
// (voxen::isHeightmapFile) and hands it here.
//   --nav2 OUT.yaml [--nav2-max-cost C]    map_server trinary pair (OUT.pgm + OUT.yaml)
//   --costmap OUT.yaml --inflation R [--inscribed-radius R0] [--cost-scaling K]   raw costmap pair
//   --height-png OUT.png  --cost-png OUT.png   pictures (and their YAMLs)
//   --level K (default 0)  --npy PREFIX (float32 arrays, voxen/heightmap/heightmap_file.hpp)
//   --mesh-ply OUT.ply [--color cost|height]   the surface mesh (voxen/export/heightmap_mesh.hpp),
//                                              every level unless --level
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_options.hpp"

namespace voxen::cli {

struct HeightmapExportArgs {
  std::string nav2Yaml, costmapYaml, heightPng, costPng, npyPrefix;
  std::string meshPly, meshColour = "cost";  // --mesh-ply, --color
  std::optional<uint32_t> nav2MaxCost, level;
  std::optional<double> inflation, inscribedRadius, costScaling;
  std::vector<double> seed;  // --seed X Y Z: the ground the robot standing there reaches
  std::set<const CLI::Option*> options;  // the flags above, to tell them from a map's
  const CLI::Option* colourOption = nullptr;
  bool colourGiven() const { return colourOption && colourOption->count() > 0; }
};

// The synopsis line of --help.
inline constexpr const char* kHeightmapExportUsage =
    "export HM.vxh [--nav2 OUT.yaml [--nav2-max-cost C]] [--costmap OUT.yaml --inflation R [--inscribed-radius R0] "
    "[--cost-scaling K]] [--height-png OUT.png] [--cost-png OUT.png] [--level K | --seed X Y Z] [--npy PREFIX] "
    "[--mesh-ply OUT.ply [--color cost|height]]";

void addHeightmapExportOptions(CLI::App& command, HeightmapExportArgs& args);

// The export of a heightmap file: `command`'s other flags (a map's) are refused, by name.
// --costmap's inflation runs its distance transform where `common`'s --device says
// (commands/export_device.hpp); --device and --validation without --costmap are refused.
int exportHeightmapFile(const CLI::App& command, const std::string& path, const HeightmapExportArgs& args,
                        const CommonOptions& common);

// A heightmap flag given with a map (or a missing file): an error naming it.
void refuseHeightmapFlags(const std::string& path, const HeightmapExportArgs& args);

}  // namespace voxen::cli
