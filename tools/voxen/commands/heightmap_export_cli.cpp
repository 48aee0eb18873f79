#include "commands/heightmap_export_cli.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "commands/export_device.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "voxen/export/heightmap_export.hpp"
#include "voxen/export/heightmap_mesh.hpp"
#include "voxen/export/map_picture_file.hpp"
#include "voxen/heightmap/heightmap_file.hpp"
#include "voxen/heightmap/heightmap_ground.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen::cli {

namespace {

std::string flagName(const CLI::Option* option) { return "--" + option->get_lnames().front(); }

// The common flags a heightmap's export acts on (--costmap's device).
bool isDeviceFlag(const CLI::Option* option) {
  const std::string name = flagName(option);
  return name == "--device" || name == "--validation";
}

// The flags that go together, checked before anything is read or written.
void checkHeightmapFlags(const HeightmapExportArgs& args) {
  if (args.nav2Yaml.empty() && args.costmapYaml.empty() && args.heightPng.empty() && args.costPng.empty() && args.npyPrefix.empty() &&
      args.meshPly.empty())
    throw UsageError(std::string("nothing to export from a heightmap: give --nav2, --costmap, --height-png, --cost-png, --npy or "
                                 "--mesh-ply "
                                 "(usage: ") + kHeightmapExportUsage + ")");
  if (args.nav2MaxCost && args.nav2Yaml.empty()) throw UsageError("--nav2-max-cost goes with --nav2 OUT.yaml");
  if (args.inflation && args.costmapYaml.empty()) throw UsageError("--inflation goes with --costmap OUT.yaml");
  if (!args.costmapYaml.empty() && !args.inflation)
    throw UsageError("--costmap needs --inflation R: the radius (metres) the cost spreads around lethal cells (0: none)");
  if ((args.inscribedRadius || args.costScaling) && args.costmapYaml.empty())
    throw UsageError("--inscribed-radius and --cost-scaling go with --costmap OUT.yaml --inflation R");
  if (args.inscribedRadius && args.inflation && *args.inscribedRadius > *args.inflation)
    throw UsageError("--inscribed-radius must not exceed --inflation (the inflation radius)");
  if (args.level && args.nav2Yaml.empty() && args.costmapYaml.empty() && args.heightPng.empty() && args.costPng.empty() &&
      args.meshPly.empty())
    throw UsageError("--level goes with --nav2, --costmap, --height-png, --cost-png or --mesh-ply (--npy writes every level)");
  if (args.colourGiven() && args.meshPly.empty()) throw UsageError("--color goes with --mesh-ply OUT.ply");
  if (!args.seed.empty() && args.level) throw UsageError("--seed and --level: the seed chooses each column's level itself");
}

std::vector<NamedPath> heightmapOutputs(const HeightmapExportArgs& args) {
  auto pgmOf = [](const std::string& yaml) { return yaml.empty() ? yaml : nav2ImagePath(yaml).string(); };
  auto yamlOf = [](const std::string& png) { return png.empty() ? png : detail::pictureYamlPath(png).string(); };
  std::vector<NamedPath> outputs{{"--nav2", args.nav2Yaml},
                                 {"--nav2's PGM", pgmOf(args.nav2Yaml)},
                                 {"--costmap", args.costmapYaml},
                                 {"--costmap's PGM", pgmOf(args.costmapYaml)},
                                 {"--height-png", args.heightPng},
                                 {"--height-png's YAML", yamlOf(args.heightPng)},
                                 {"--cost-png", args.costPng},
                                 {"--cost-png's YAML", yamlOf(args.costPng)},
                                 {"--mesh-ply", args.meshPly}};
  if (!args.npyPrefix.empty()) {
    for (const char* array : {"-height.npy", "-clearance.npy", "-slope.npy", "-cost.npy", ".json"})
      outputs.push_back({"--npy", args.npyPrefix + array});
  }
  return outputs;
}

// `work`'s errors, named by the heightmap and the flag.
template <class Work>
auto named(const std::string& path, const char* flag, Work&& work) {
  try {
    return work();
  } catch (const SettingError& e) {
    throw Error(path + ": " + flag + ": " + e.what());
  } catch (const Error& e) {
    throw Error(path + ": " + flag + ": " + e.what());
  }
}

}  // namespace

void addHeightmapExportOptions(CLI::App& command, HeightmapExportArgs& args) {
  auto keep = [&args](CLI::Option* option) { return args.options.insert(option), option; };
  keep(command
           .add_option("--nav2", args.nav2Yaml,
                       "heightmap: write a ROS/Nav2 map_server pair, OUT.yaml and OUT.pgm (trinary: free 254, lethal 0, "
                       "unknown 205; free_thresh 0.196)")
           ->type_name("OUT.yaml"));
  keep(command.add_option("--nav2-max-cost", args.nav2MaxCost, "heightmap, --nav2: costs above C count as occupied (default: only lethal)")
           ->type_name("C")
           ->check(integerIn(0, 100)));
  keep(command
           .add_option("--costmap", args.costmapYaml,
                       "heightmap: write a costmap pair, OUT.yaml and OUT.pgm (mode raw: pixel = OccupancyGrid value, 100 "
                       "lethal, 99 inscribed, inflation 98 exp(-K (d - R0)) up to --inflation, 255 unknown; Nav2's "
                       "StaticLayer with trinary_costmap: false reads it as costs)")
           ->type_name("OUT.yaml"));
  keep(command.add_option("--inflation", args.inflation, "heightmap, --costmap: the inflation radius around lethal cells")
           ->type_name("METRES")
           ->check(numberIn(0.0, 1e4, "metres")));
  keep(command.add_option("--inscribed-radius", args.inscribedRadius, "heightmap, --costmap: within it the inflation is 99 (default 0)")
           ->type_name("R0")
           ->check(numberIn(0.0, 1e4, "metres")));
  keep(command.add_option("--cost-scaling", args.costScaling, "heightmap, --costmap: the inflation's decay per metre (default 3)")
           ->type_name("K")
           ->check(numberIn(0.0, 1e4, "per metre")));
  keep(command.add_option("--height-png", args.heightPng, "heightmap: the level's height as a heat map with a colour bar and metre axes")
           ->type_name("OUT.png"));
  keep(command.add_option("--cost-png", args.costPng, "heightmap: the level's traversability cost (0..100, lethal black, unknown grey)")
           ->type_name("OUT.png"));
  keep(command.add_option("--level", args.level,
                          "heightmap: the level drawn or exported (default 0, the lowest surface per column: the ground; "
                          "--mesh-ply: every level)")
           ->type_name("K")
           ->check(integerIn(0, 7)));
  keep(command.add_option("--seed", args.seed,
                          "heightmap: instead of --level, per column the surface a robot standing at X Y Z (metres) reaches "
                          "over steps within the heightmap's max step (up ramps, under bridges, not up walls); columns it "
                          "cannot reach are lethal where they hold an obstacle, unknown elsewhere; every output shows that ground")
           ->type_name("X Y Z")
           ->expected(3)
           ->check(numberIn(-1e7, 1e7, "metres")));
  keep(command.add_option("--npy", args.npyPrefix,
                          "heightmap: PREFIX-height.npy, -clearance.npy, -slope.npy, -cost.npy (float32, levels x rows x "
                          "columns) and PREFIX.json (origin, resolution); a map's --esdf-slice: PREFIX-distance.npy (float32 "
                          "metres, rows x columns, +inf without an obstacle), PREFIX-obstacle.npy (uint8) and PREFIX.json")
           ->type_name("PREFIX"));
  keep(command
           .add_option("--mesh-ply", args.meshPly,
                       "heightmap: the surface as a PLY mesh with vertex colours (MeshLab, CloudCompare): a square per cell at "
                       "its height, risers where neighbours within the max step join; every level unless --level")
           ->type_name("OUT.ply"));
  args.colourOption = keep(command
                               .add_option("--color", args.meshColour,
                                           "heightmap, --mesh-ply: colour by cost (0..100 on the --cost-png ramp, lethal black, "
                                           "unknown grey) or by height")
                               ->check(CLI::IsMember({"cost", "height"}))
                               ->capture_default_str());
}

void refuseHeightmapFlags(const std::string& path, const HeightmapExportArgs& args) {
  for (const CLI::Option* option : args.options) {
    if (option->count() == 0) continue;
    std::error_code error;
    if (!std::filesystem::exists(path, error))  // neither a heightmap nor a map: say what is wrong with it
      throw Error("cannot read '" + path + "': no such file (" + flagName(option) +
                  " needs a heightmap: voxen heightmap MAP --output HM.vxh)");
    throw UsageError(flagName(option) + " is a heightmap output, and '" + path +
                     "' is not a heightmap (voxen heightmap MAP --output HM.vxh makes one)");
  }
}

int exportHeightmapFile(const CLI::App& command, const std::string& path, const HeightmapExportArgs& args,
                        const CommonOptions& common) {
  for (const CLI::Option* option : command.get_options())
    if (option->count() > 0 && !option->get_lnames().empty() && !args.options.contains(option) && !isDeviceFlag(option))
      throw UsageError(flagName(option) + " is for a map, and '" + path +
                       "' is a heightmap: it takes --nav2, --costmap, --height-png, --cost-png, --level, --seed, --npy, --mesh-ply and --color");
  checkHeightmapFlags(args);
  if (args.costmapYaml.empty())
    refuseDeviceFlags(common, "of a heightmap's outputs only --costmap runs on a device (its inflation's distance transform)");
  checkOutputs(heightmapOutputs(args), {{"the heightmap", path}});
  Heightmap hm = loadHeightmap(path);
  if (!args.seed.empty()) {
    try {
      hm = groundLevelHeightmap(hm, groundFromSeed(hm, {args.seed[0], args.seed[1], args.seed[2]}));
    } catch (const SettingError& e) {
      throw UsageError(e.naming("--seed"));
    }
  }
  const uint32_t level = args.level.value_or(0);
  if (level >= hm.levels())
    throw UsageError("--level " + std::to_string(level) + ": '" + path + "' keeps " + std::to_string(hm.levels()) +
                     " level(s), 0.." + std::to_string(hm.levels() - 1));
  const std::string name = std::filesystem::path(path).filename().string();
  if (!args.nav2Yaml.empty()) {
    const Nav2MapCounts c =
        named(path, "--nav2", [&] { return exportNav2Map(hm, args.nav2Yaml, {.level = level, .maxCost = args.nav2MaxCost}); });
    std::printf("wrote %s and %s: level %u, %u x %u cells at %g m; %llu free, %llu occupied, %llu unknown\n", args.nav2Yaml.c_str(),
                nav2ImagePath(args.nav2Yaml).c_str(), level, hm.width(), hm.height(), hm.resolution(), (unsigned long long)c.free,
                (unsigned long long)c.occupied, (unsigned long long)c.unknown);
  }
  if (!args.costmapYaml.empty()) {
    CostmapOptions options{.level = level, .inflationRadius = *args.inflation};
    if (args.inscribedRadius) options.inscribedRadius = *args.inscribedRadius;
    if (args.costScaling) options.costScaling = *args.costScaling;
    ExportDevice device(common);
    options.scheduler = device.scheduler();
    const CostmapCounts c = named(path, "--costmap", [&] { return exportCostmap(hm, args.costmapYaml, options); });
    const std::string where = options.inflationRadius > 0.0 || options.inscribedRadius > 0.0
                                  ? "distance transform on " + device.description()
                                  : std::string("no distance transform (no radius: nothing inflates)");
    std::printf("wrote %s and %s: level %u costmap (raw), inflation %g m; %llu lethal, %llu inflated, %llu unknown of %llu cells; "
                "%s\n",
                args.costmapYaml.c_str(), nav2ImagePath(args.costmapYaml).c_str(), level, options.inflationRadius,
                (unsigned long long)c.lethal, (unsigned long long)c.inflated, (unsigned long long)c.unknown,
                (unsigned long long)c.cells, where.c_str());
  }
  const HeightmapPictureOptions picture{.level = level, .name = name};
  if (!args.heightPng.empty()) {
    const HeightmapPicture p = named(path, "--height-png", [&] { return exportHeightPng(hm, args.heightPng, picture); });
    std::printf("wrote %s: level %u height %g..%g m as a heat map with a colour bar; %llu cells, %llu obstacle, %llu unknown\n",
                args.heightPng.c_str(), level, p.lo, p.hi, (unsigned long long)p.drawn, (unsigned long long)p.lethal,
                (unsigned long long)p.unknown);
  }
  if (!args.costPng.empty()) {
    const HeightmapPicture p = named(path, "--cost-png", [&] { return exportCostPng(hm, args.costPng, picture); });
    std::printf("wrote %s: level %u traversability cost with a colour bar; %llu passable, %llu lethal, %llu unknown\n",
                args.costPng.c_str(), level, (unsigned long long)p.drawn, (unsigned long long)p.lethal,
                (unsigned long long)p.unknown);
  }
  if (!args.meshPly.empty()) {
    const HeightmapMeshOptions options{.level = args.level,
                                       .colouring = args.meshColour == "height" ? HeightmapColouring::Height : HeightmapColouring::Cost};
    const HeightmapMesh mesh = named(path, "--mesh-ply", [&] {
      HeightmapMesh m = heightmapMesh(hm, options);
      writeHeightmapMeshPly(m, args.meshPly);
      return m;
    });
    const std::string levels = args.level ? "level " + std::to_string(*args.level) : "every level";
    std::printf("wrote %s: %s coloured by %s; %zu vertices, %zu triangles: %llu cells (%llu lethal), %llu joins, %llu risers\n",
                args.meshPly.c_str(), levels.c_str(), args.meshColour.c_str(), mesh.positions.size(), mesh.triangles.size(),
                (unsigned long long)mesh.cells, (unsigned long long)mesh.lethal, (unsigned long long)mesh.joins,
                (unsigned long long)mesh.risers);
  }
  if (!args.npyPrefix.empty()) {
    const std::vector<std::filesystem::path> files = named(path, "--npy", [&] { return writeHeightmapArrays(hm, args.npyPrefix); });
    for (const auto& f : files) std::printf("wrote %s\n", f.c_str());
  }
  return 0;
}

}  // namespace voxen::cli
