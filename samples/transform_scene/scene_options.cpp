#include "scene_options.hpp"

#include <filesystem>
#include <memory>
#include <system_error>

#include <CLI/CLI.hpp>

#include "voxen_apps/help_formatter.hpp"
#include "voxen_apps/number_checks.hpp"
#include "voxen_apps/typo_hints.hpp"
#include "voxen_apps/shader_source_dir.hpp"

namespace transform_scene {

namespace {

using voxen::apps::integerIn;
using voxen::apps::numberIn;

const char* kWindowControls =
    "Window controls: left-drag orbits, scroll zooms, space pauses the animation, Esc quits.\n"
    "See samples/transform_scene/README.md.";

void declareOptions(CLI::App& app, SceneOptions& o) {
  app.formatter(std::make_shared<voxen::apps::HelpFormatter>());
  const std::string scene = "Scene and camera", headless = "Headless (--headless)", window = "Window (the default)";
  app.add_option("--arms", o.arms, "articulated arms on a square grid")->check(integerIn(1, 1000000))->capture_default_str()->group(scene);
  app.add_option("--depth", o.depth, "levels per arm: base, depth - 2 segments, fingers")
      ->check(integerIn(2, 64))
      ->capture_default_str()
      ->group(scene);
  app.add_option("--fingers", o.fingers, "fingers per hand")->check(integerIn(0, 16))->capture_default_str()->group(scene);
  app.add_option("--dt", o.dt, "animation seconds per headless frame")->check(numberIn(0.0, 10.0, "seconds"))->capture_default_str()->group(scene);
  app.add_option("--orbit-speed", o.orbitSpeed, "camera orbit, radians per animation second (0: still)")
      ->check(numberIn(-10.0, 10.0, "radians per second"))
      ->capture_default_str()
      ->group(scene);
  app.add_option("--distance", o.distance, "camera distance from the field's centre, in field sizes")
      ->check(numberIn(0.05, 10.0, "field sizes"))
      ->capture_default_str()
      ->group(scene);
  app.add_option("--width", o.width, "frame width in pixels")->check(integerIn(16, 8192))->capture_default_str()->group(scene);
  app.add_option("--height", o.height, "frame height in pixels")->check(integerIn(16, 8192))->capture_default_str()->group(scene);
  app.add_option("--device", o.device, "device index or name substring")->type_name("INDEX|NAME")->group(scene);
  app.add_flag("--validation", o.validation, "Vulkan validation layer on (also VOXEN_VALIDATION=1)")->group(scene);
  app.add_flag("--hot-reload{}", o.hotReloadDir,
               "recompile shaders from DIR (default: the source tree's shaders/, else a bundle's beside the "
               "executable) when they change, in either mode (also VOXEN_SHADER_DIR=DIR)")
      ->type_name("[=DIR]")
      ->group(scene);

  app.add_flag("--headless", o.headless, "render frames without a window")->group(headless);
  app.add_option("--frames", o.frames, "frames to render")->check(integerIn(1, 1000000))->capture_default_str()->group(headless);
  app.add_option("--output", o.output, "write the frames here as PNG (frame_NNNNN.png)")->type_name("DIR")->group(headless);
  app.add_option("--every", o.every, "write every Nth frame (and the last)")->check(integerIn(1, 1000000))->capture_default_str()->group(headless);
  app.add_flag("--json", o.json, "the summary as one JSON object (visible nodes per frame, times)")->group(headless);
  app.add_flag("--verify", o.verify, "check every frame's culling and drawing against the CPU (slow)")->group(headless);

  app.add_option("--exit-after", o.exitAfter, "render N frames, then exit")->type_name("N")->check(integerIn(1, 100000000))->group(window);
  app.add_option("--screenshot", o.screenshot, "save the last frame (needs --exit-after)")->type_name("OUT.png")->group(window);
  app.add_flag_callback("--no-vsync", [&o] { o.vsync = false; }, "present without waiting for the display")->group(window);
  app.footer(kWindowControls);
}

// A bare --hot-reload becomes the folder it stands for; a folder that is not there is a
// usage error, before any device is opened.
void resolveHotReload(SceneOptions& o) {
  if (!o.hotReloadDir) return;
  if (o.hotReloadDir->empty()) {
    const voxen::apps::ShaderSourceDir found = voxen::apps::findShaderSourceDir(VOXEN_SOURCE_SHADER_DIR);
    if (!found.dir)
      throw UsageError("--hot-reload: no shader source folder (looked at " + found.looked +
                       "); name one with --hot-reload=DIR");
    o.hotReloadDir = found.dir->string();
  }
  std::error_code error;
  if (!std::filesystem::is_directory(*o.hotReloadDir, error))
    throw UsageError("--hot-reload: " + *o.hotReloadDir + " is not a folder of shaders");
}

// The rules across flags, which no single flag's check can see.
void checkModes(const CLI::App& app, const SceneOptions& o) {
  const uint64_t nodes = uint64_t(o.arms) * (uint64_t(o.depth) - 1 + o.fingers);
  if (nodes > kMaxNodes)
    throw UsageError("--arms " + std::to_string(o.arms) + " with --depth " + std::to_string(o.depth) + " and --fingers " +
                     std::to_string(o.fingers) + " make " + std::to_string(nodes) + " nodes; at most " +
                     std::to_string(kMaxNodes) + " fit culling's indirect dispatch");
  auto given = [&](const char* flag) { return app.count(flag) > 0; };
  if (o.headless) {
    for (const char* flag : {"--exit-after", "--screenshot", "--no-vsync"})
      if (given(flag)) throw UsageError(std::string(flag) + " belongs to the windowed mode, not --headless");
    if (given("--every") && o.output.empty()) throw UsageError("--every has no effect without --output (no frames are written)");
  } else {
    for (const char* flag : {"--frames", "--output", "--every", "--json", "--verify", "--dt"})
      if (given(flag)) throw UsageError(std::string(flag) + " needs --headless");
    if (!o.screenshot.empty() && o.exitAfter == 0) throw UsageError("--screenshot needs --exit-after N (the frame to capture)");
  }
}

}  // namespace

SceneOptions parseSceneOptions(const std::vector<std::string>& args) {
  SceneOptions options;
  CLI::App app{"transform_scene: thousands of articulated arms animated on the GPU transform tree, culled on the device "
               "and drawn by the painter's software rasterizer",
               "transform_scene"};
  declareOptions(app, options);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested(app.help());
  } catch (const CLI::ParseError& e) {
    throw UsageError(voxen::apps::parseErrorMessage(e, app));  // a mistyped flag with the closest known ones
  }
  checkModes(app, options);
  resolveHotReload(options);
  return options;
}

}  // namespace transform_scene
