#include "report/startup_report.hpp"

#include <cstdio>

#include "voxen/context.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen::cli {

namespace {
double ms(double seconds) { return rounded(seconds * 1e3, 3); }
}  // namespace

void addStartupJson(Json& out, Context& context, const RunStartTimes& run) {
  const ContextSetupTimes& setup = context.setupTimes();
  const ShaderLibraryStartup& library = context.shaders().startup();
  out["setup"] = {{"instance_ms", ms(setup.instanceSeconds)},
                  {"device_ms", ms(setup.deviceSeconds)},
                  {"shader_library_ms", ms(setup.shaderLibrarySeconds)},
                  {"scheduler_ms", ms(setup.schedulerSeconds)},
                  {"pipelines_created", library.pipelinesCreated},
                  {"pipelines_created_ahead", library.pipelinesCreatedAhead},
                  {"pipeline_ms", ms(library.pipelineSeconds)},
                  {"first_batch_ms", ms(run.firstBatchSeconds)},
                  {"sync_ms", ms(run.syncSeconds)},
                  {"pipeline_cache",
                   {{"file", library.cacheFile}, {"state", library.cacheState}, {"bytes_loaded", library.cacheBytesLoaded}}}};
}

std::string startupText(Context& context, const RunStartTimes& run) {
  const ContextSetupTimes& setup = context.setupTimes();
  const ShaderLibraryStartup& library = context.shaders().startup();
  char text[1024];
  std::snprintf(text, sizeof text,
                "\nDevice set-up (wall ms): instance %.1f, device %.1f, shader library and pipeline cache %.1f, scheduler "
                "%.1f; %zu pipelines created (%zu of them ahead, on worker threads) in %.1f summed over threads; first batch "
                "handed to the GPU %.1f after "
                "integration began, synced %.1f later\n",
                setup.instanceSeconds * 1e3, setup.deviceSeconds * 1e3, setup.shaderLibrarySeconds * 1e3,
                setup.schedulerSeconds * 1e3, library.pipelinesCreated, library.pipelinesCreatedAhead, library.pipelineSeconds * 1e3,
                run.firstBatchSeconds * 1e3, run.syncSeconds * 1e3);
  std::string out = text;
  if (library.cacheFile.empty())
    out += "  pipeline cache: off\n";
  else
    out += "  pipeline cache " + library.cacheFile + ": " + library.cacheState +
           (library.cacheBytesLoaded ? " (" + std::to_string(library.cacheBytesLoaded) + " bytes)" : std::string()) + "\n";
  return out;
}

}  // namespace voxen::cli
