#pragma once
// `voxen map --profile`: what opening the GPU cost, by stage (instance, device, shader
// library with the pipeline cache's file, scheduler, pipeline creation) and the first
// batch, as --json fields and as text. Start-up dominates small inputs (issue 26).
#include <string>

#include "report/json_output.hpp"

namespace voxen {
class Context;
}

namespace voxen::cli {

struct RunStartTimes {
  double firstBatchSeconds = 0;  // from the start of integration to the first batch handed to the GPU
  double syncSeconds = 0;        // from then to the map synced (the first dispatches compile here)
};

// "setup": {instance_ms, device_ms, shader_library_ms, scheduler_ms, pipelines_created,
// pipeline_ms, first_batch_ms, sync_ms, pipeline_cache: {file, state, bytes_loaded}}.
void addStartupJson(Json& out, Context& context, const RunStartTimes& run);
std::string startupText(Context& context, const RunStartTimes& run);

}  // namespace voxen::cli
