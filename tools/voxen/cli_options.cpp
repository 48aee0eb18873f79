#include "cli_options.hpp"

namespace voxen::cli {

ShaderLibraryOptions CommonOptions::libraryOptions() const {
  ShaderLibraryOptions options;
  if (hotReloadDir) options.hotReloadDir = hotReloadDir->empty() ? std::string(VOXEN_SOURCE_SHADER_DIR) : *hotReloadDir;
  return options;
}

std::vector<std::string> parseCommon(const std::vector<std::string>& args, CommonOptions& options) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--device") {
      if (i + 1 >= args.size()) throw UsageError("--device needs an index or a name substring");
      options.device.selector = args[++i];
    } else if (arg.rfind("--device=", 0) == 0) {
      options.device.selector = arg.substr(9);
    } else if (arg == "--validation") {
      options.device.validation = true;
    } else if (arg == "--profile") {
      options.profile = true;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--hot-reload") {
      options.hotReloadDir = "";
    } else if (arg.rfind("--hot-reload=", 0) == 0) {
      options.hotReloadDir = arg.substr(13);
    } else {
      rest.push_back(arg);
    }
  }
  return rest;
}

}  // namespace voxen::cli
