#pragma once
// The voxel_painter command line (parsed by CLI11): shared options, then those of the
// headless and the windowed mode. parseAppOptions throws UsageError with a message naming
// the flag, or HelpRequested carrying the help text.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sample_common/usage_errors.hpp"

namespace voxel_painter {

using voxen_samples::HelpRequested;
using voxen_samples::UsageError;

struct AppOptions {
  // Shared.
  uint32_t width = 640, height = 480;  // the painter's framebuffer (and the window's first size)
  std::string device;                  // index or name substring (--device)
  bool validation = false;             // also VOXEN_VALIDATION=1
  bool syncValidation = false;         // synchronisation validation too (implies validation)
  // Hot reload: unset means the mode's default (on in a window, off headless); an empty
  // string means the source tree's shaders/.
  std::optional<std::string> hotReloadDir;
  bool noHotReload = false;
  bool testPattern = false;            // present a synthetic gradient instead of the painter

  // Headless.
  bool headless = false;
  std::string script;                  // stroke script (required headless)
  std::string framesDir;               // PNG frames go here (optional)
  uint32_t every = 1;                  // write every Nth frame (and always the last)
  bool json = false;                   // the summary as one JSON object

  // Windowed.
  std::string inputScript;             // scripted input events
  std::string screenshot;              // PNG of the last presented image
  uint64_t exitAfter = 0;              // frames; 0: run until the window closes
  bool vsync = true;
};

// `args` without the program name.
AppOptions parseAppOptions(const std::vector<std::string>& args);

}  // namespace voxel_painter
