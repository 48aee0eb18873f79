// The smallest Voxen program: one buffer, one pass, one readback.
//   hello_compute [--hot-reload]   then edit shaders/selftest/fill_iota.comp while it runs
//   (VOXEN_SHADER_DIR=DIR hello_compute watches DIR instead of the source tree)
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "voxen/gpu/selftest/selftest_push.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen_apps/shader_source_dir.hpp"
#include "voxen_apps/typo_hints.hpp"

int main(int argc, char** argv) {
  CLI::App app("The smallest Voxen program: fills a buffer on the GPU (selftest/fill_iota.comp) and prints it.", "hello_compute");
  bool hotReload = false;
  app.add_flag("--hot-reload", hotReload,
               "watch the source tree's shaders, or a bundle's beside the executable (VOXEN_SHADER_DIR, when set, wins), "
               "and run once a second for a minute; "
               "edit shaders/selftest/fill_iota.comp meanwhile");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", app.help().c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    // A usage error exits with 2, as the voxen tool's do, and a mistyped flag gets the closest known one.
    std::fprintf(stderr, "hello_compute: %s\nRun 'hello_compute --help' for its options.\n",
                 voxen::apps::parseErrorMessage(e, app).c_str());
    return 2;
  }
  try {
    voxen::Device device;
    voxen::ShaderLibraryOptions libraryOptions;
    if (hotReload && !std::getenv("VOXEN_SHADER_DIR")) {
      // The source tree's shaders/, or a bundle's copy beside the executable (scripts/bundle.sh).
      const voxen::apps::ShaderSourceDir found = voxen::apps::findShaderSourceDir(VOXEN_SOURCE_SHADER_DIR);
      if (!found.dir) {
        std::fprintf(stderr, "hello_compute: --hot-reload: no shader source folder (looked at %s); set VOXEN_SHADER_DIR=DIR\n",
                     found.looked.c_str());
        return 2;
      }
      libraryOptions.hotReloadDir = *found.dir;
    }
    voxen::ShaderLibrary library(device, libraryOptions);
    const bool watch = library.hotReloadEnabled();
    voxen::Scheduler scheduler(device, library);
    voxen::Buffer numbers(device, "numbers", 8 * sizeof(uint32_t));
    auto kernel = library.kernel("selftest/fill_iota.comp");
    // With --hot-reload, run once a second for a minute so an edit shows up in the output.
    for (int frame = 0; frame < (watch ? 60 : 1); ++frame) {
      scheduler.dispatchThreads({"iota", kernel.get(), {}, voxen::gpu::FillIotaPush{numbers.address(), 8, 10, 1}, {voxen::writes(numbers)}}, 8);
      const auto values = scheduler.readback<uint32_t>(numbers).get();
      std::printf("%s (pipeline generation %llu):", device.info().name.c_str(), (unsigned long long)kernel->generation());
      for (uint32_t v : values) std::printf(" %u", v);
      std::printf("\n");
      std::fflush(stdout);
      if (watch) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hello_compute: %s\n", e.what());
    return 1;
  }
  return 0;
}
