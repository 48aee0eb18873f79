#include "pcd_viewpoint_option.hpp"

#include <cstdio>

namespace voxen::cli {

CLI::Option* addPcdViewpointOption(CLI::App& command, std::optional<PcdViewpoint>& reading) {
  return command
      .add_option_function<std::string>(
          "--pcd-viewpoint", [&reading](const std::string& name) { reading = parsePcdViewpoint(name); },
          "how a PCD file's VIEWPOINT (tx ty tz qw qx qy qz) is read: origin (the points are already in the cloud's "
          "frame and were recorded from VIEWPOINT's position, as PCL's reader takes it; the default) or pose (the "
          "points are in the sensor's frame and VIEWPOINT is the sensor's pose, applied to them, as PCLVisualizer and "
          "CloudCompare take it). Without it, a VIEWPOINT that is not the identity is read as origin with a warning")
      ->check(CLI::IsMember({"origin", "pose"}))
      ->type_name("origin|pose");
}

void printSettingWarnings(const std::string& command, const std::vector<SettingWarning>& warnings) {
  for (const SettingWarning& warning : warnings) {
    const std::string name = warning.field == "RayReaderOptions::pcdViewpoint" ? "--pcd-viewpoint" : warning.words;
    std::fprintf(stderr, "voxen %s: warning: %s\n", command.c_str(), warning.naming(name).c_str());
  }
}

}  // namespace voxen::cli
