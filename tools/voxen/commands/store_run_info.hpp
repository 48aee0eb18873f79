#pragma once
// What `voxen info` says about the mapping run a store holds (voxen/store/store_mapping.hpp):
// how far it got, and whether it is still running: a run whose writer is gone (killed, the
// machine restarted) is "stopped", with the command that resumes it; a writer on another host
// is named as such, since this host cannot tell whether it still runs.
#include <optional>
#include <string>

#include "report/json_output.hpp"
#include "voxen/store/writer_process.hpp"

namespace voxen::cli {

struct StoreRunInfo {
  std::string state;  // "complete", "running", "stopped" (running, its writer gone), or "unknown"
  std::string checkpoints, rays, savedAt;
  std::optional<WriterProcess> writer;
  std::optional<WriterStatus> writerStatus;  // for a run not complete
};

// The run in the store `target` (a server's session), or nullopt when it holds none.
std::optional<StoreRunInfo> storeRunOf(const std::string& target, const std::string& session);

// The "mapping run:" line's text (after the label) and the JSON object.
std::string storeRunText(const StoreRunInfo& run, const std::string& target, const std::string& session);
Json storeRunJson(const StoreRunInfo& run);

}  // namespace voxen::cli
