#pragma once
// CLI11's help with one change: a flag that takes an optional `=VALUE` is listed as
// `--hot-reload [=DIR]` rather than in CLI11's own notation, `--hot-reload{}`. Shared by the
// voxen tool and the samples (target voxen_apps_common).
#include <string>

#include <CLI/CLI.hpp>

namespace voxen::apps {

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* option, bool positional) const override {
    std::string name = CLI::Formatter::make_option_name(option, positional);
    for (size_t at = name.find("{}"); at != std::string::npos; at = name.find("{}")) name.erase(at, 2);
    return name;
  }
};

}  // namespace voxen::apps
