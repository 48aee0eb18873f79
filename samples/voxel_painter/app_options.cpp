#include "app_options.hpp"

#include "voxen_apps/help_formatter.hpp"
#include "voxen_apps/number_checks.hpp"
#include "voxen_apps/typo_hints.hpp"

#include <memory>

#include <CLI/CLI.hpp>


namespace voxel_painter {

namespace {

const char* kWindowControls =
    "Window controls: left-drag orbits, scroll zooms, right-drag or shift+left-drag paints with the tool,\n"
    "ctrl+left-drag erases, E toggles add/erase, [ and ] change the radius, 1-6 pick a colour,\n"
    "R resets the camera, Esc quits. See samples/voxel_painter/README.md.";

using voxen::apps::integerIn;

struct CommandLine {
  CLI::App app{"voxel_painter: paint a voxel grid with a spherical brush, in a window or headless", "voxel_painter"};
  CLI::Option* screenshot = nullptr;  // given at all (even empty) matters for the mode checks
  CLI::Option* every = nullptr;       // given or not: it needs --frames-dir
};

void declareOptions(CommandLine& cli, AppOptions& o) {
  CLI::App& app = cli.app;
  app.formatter(std::make_shared<voxen::apps::HelpFormatter>());
  const std::string shared = "Both modes", headless = "Headless (--headless)", window = "Window (the default)";
  app.add_option("--width", o.width, "the painter's frame width (and the window's first)")
      ->check(integerIn(16, 8192))
      ->capture_default_str()
      ->group(shared);
  app.add_option("--height", o.height, "the painter's frame height")->check(integerIn(16, 8192))->capture_default_str()->group(shared);
  app.add_option("--device", o.device, "device index or name substring")->type_name("INDEX|NAME")->group(shared);
  app.add_flag("--validation", o.validation, "Vulkan validation layer on (also VOXEN_VALIDATION=1)")->group(shared);
  app.add_flag("--sync-validation", o.syncValidation, "synchronisation validation too")->group(shared);
  app.add_flag("--hot-reload{}", o.hotReloadDir,
               "recompile shaders from DIR (default: the source tree's shaders/, else a bundle's beside the "
               "executable) when they change; on in a window")
      ->type_name("[=DIR]")
      ->group(shared);
  app.add_flag("--no-hot-reload", o.noHotReload, "no hot reload in the window")->group(shared);

  app.add_flag("--headless", o.headless, "replay a stroke script into PNG frames, no window")->group(headless);
  app.add_option("--script", o.script, "the stroke script (required headless)")->type_name("STROKES.txt")->group(headless);
  app.add_option("--frames-dir", o.framesDir, "write the frames here as PNG")->type_name("DIR")->group(headless);
  cli.every = app.add_option("--every", o.every, "write every Nth frame (and the last)")
      ->check(integerIn(1, 1000000))
      ->capture_default_str()
      ->group(headless);
  app.add_flag("--json", o.json, "the summary as one JSON object")->group(headless);

  app.add_option("--input-script", o.inputScript, "scripted input events")->type_name("FILE")->group(window);
  cli.screenshot =
      app.add_option("--screenshot", o.screenshot, "save the last presented image")->type_name("OUT.png")->group(window);
  app.add_option("--exit-after", o.exitAfter, "render N frames, then exit")
      ->type_name("N")
      ->check(integerIn(1, 100000000))
      ->group(window);
  app.add_flag("--test-pattern", o.testPattern, "present a synthetic gradient instead of the painter")->group(window);
  app.add_flag_callback("--no-vsync", [&o] { o.vsync = false; }, "present without waiting for the display")->group(window);
  app.footer(kWindowControls);
}

// The rules across flags, which no single flag's check can see.
void checkModes(const AppOptions& o, bool sawScreenshot, bool sawEvery) {
  if (o.hotReloadDir && o.noHotReload) throw UsageError("--hot-reload and --no-hot-reload contradict each other");
  if (o.headless) {
    if (o.script.empty()) throw UsageError("--headless needs --script STROKES.txt");
    if (sawEvery && o.framesDir.empty()) throw UsageError("--every has no effect without --frames-dir (no frames are written)");
    if (o.noHotReload)
      throw UsageError("--no-hot-reload has no effect with --headless (a headless run reloads shaders only with --hot-reload)");
    if (!o.inputScript.empty() || sawScreenshot || o.exitAfter || o.testPattern || !o.vsync)
      throw UsageError("--input-script, --screenshot, --exit-after, --test-pattern and --no-vsync belong to the windowed "
                       "mode, not --headless");
  } else {
    if (!o.script.empty() || !o.framesDir.empty() || o.json || sawEvery)
      throw UsageError("--script, --frames-dir, --every and --json belong to --headless");
    if (sawScreenshot && o.exitAfter == 0) throw UsageError("--screenshot needs --exit-after N (the frame to capture)");
  }
}

}  // namespace

AppOptions parseAppOptions(const std::vector<std::string>& args) {
  AppOptions options;
  CommandLine cli;
  declareOptions(cli, options);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    cli.app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested(cli.app.help());
  } catch (const CLI::ParseError& e) {
    throw UsageError(voxen::apps::parseErrorMessage(e, cli.app));  // a mistyped flag with the closest known ones
  }
  checkModes(options, cli.screenshot->count() > 0, cli.every->count() > 0);
  return options;
}

}  // namespace voxel_painter
