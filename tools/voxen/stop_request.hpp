#pragma once
// Ctrl-C (SIGINT) and SIGTERM during `voxen map --store`: instead of ending the process at
// once (the work since the last checkpoint lost, nothing said), the first signal asks the run
// to stop at the next chunk boundary, where it checkpoints and says which checkpoint it kept
// and how to resume; a second signal ends the process at once, as it would have without this.
//
// While a StopRequest lives (one at a time) it owns the two signals, unless the process ignores
// them (nohup; a background job of a shell without job control): then they stay ignored. It
// puts the previous handlers back when it goes.
#include <csignal>

namespace voxen::cli {

class StopRequest {
 public:
  // `note`: what the first signal prints (a string literal, written from the signal handler).
  explicit StopRequest(const char* note = kCheckpointNote);
  static constexpr const char* kCheckpointNote =
      "\nvoxen map: stopping at the next checkpoint (again to stop at once, losing the work since the last one)\n";
  ~StopRequest();
  StopRequest(const StopRequest&) = delete;
  StopRequest& operator=(const StopRequest&) = delete;

  // The signal that asked to stop (SIGINT or SIGTERM), or 0.
  int signal() const;
  // "SIGINT (Ctrl-C)" / "SIGTERM"
  static const char* signalName(int signal);

 private:
  bool ownsInt_ = false, ownsTerm_ = false;
};

}  // namespace voxen::cli
