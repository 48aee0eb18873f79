#pragma once
// The process writing a mapping run into a store, as the run records it (StoreMapping writes
// it with the run's state), and whether that process is still running: `voxen info` tells a
// run in progress from one whose writer was killed, and says when the writer is on another
// host, where this cannot be told.
//
// A pid alone is not enough: a killed writer's pid can be taken by a later process, and a
// killed child stays a zombie until its parent reaps it. So the record also holds the
// process's start (the kernel's boot id and the start time in clock ticks from
// /proc/PID/stat); a process with that pid but another start, or a zombie, is not the writer.
#include <cstdint>
#include <optional>
#include <string>

namespace voxen {

struct WriterProcess {
  int64_t pid = 0;
  std::string host;
  std::string started;  // "BOOT_ID TICKS" (empty where /proc cannot tell)

  // This process.
  static WriterProcess self();
};

enum class WriterStatus {
  Alive,      // on this host, the same process still running
  Gone,       // on this host, and no such process (or another one with its pid)
  OtherHost,  // on another host: cannot be told from here
};

WriterStatus writerStatus(const WriterProcess& writer);
// This machine's host name ("unknown" when it has none).
std::string thisHostName();

}  // namespace voxen
