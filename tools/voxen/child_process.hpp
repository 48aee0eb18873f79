#pragma once
// Running the voxen tool itself as a child process (`voxen bench all` runs each workload
// so): its stdout collected whole, its stderr kept (the last 64 KiB) and shown line by line
// to a callback, a time limit after which its whole process group is killed (SIGKILL), and
// no orphan: the child dies with this process (PR_SET_PDEATHSIG), and sits in a process
// group of its own so that killing it takes anything it started.
#include <functional>
#include <string>
#include <vector>

namespace voxen::cli {

struct ChildResult {
  int exitStatus = -1;   // the child's exit status; -1 when a signal ended it
  int signal = 0;        // the signal that ended it, if one did
  bool cutOff = false;   // killed here because it ran past its time limit
  double seconds = 0.0;  // wall time from start to exit
  std::string out;       // everything it wrote on stdout
  std::string err;       // the last 64 KiB it wrote on stderr
  std::string startError;  // why it could not be started (then nothing else is set)
  // One line on what ended it: "exit status 1", "killed by signal 11 (Segmentation fault)",
  // "cut off after 12.3 s (time limit)".
  std::string how() const;
};

// Runs this program's own executable (/proc/self/exe) with `args` (without the program
// name), stdin from /dev/null and the environment inherited. `limitSeconds` <= 0: no limit.
// `onStderrLine` sees each complete line of stderr as it arrives.
ChildResult runSelf(const std::vector<std::string>& args, double limitSeconds,
                    const std::function<void(const std::string&)>& onStderrLine = {});

}  // namespace voxen::cli
