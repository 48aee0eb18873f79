#include "voxen/store/writer_process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <fstream>
#include <sstream>

namespace voxen {

namespace {

std::string bootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// The process's state letter and start time (field 22 of /proc/PID/stat, clock ticks after
// boot); nullopt when there is no such file (no /proc, or no such process).
struct ProcStat {
  char state = '?';
  std::string startTicks;
};
std::optional<ProcStat> procStat(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  // The command name (field 2) is in parentheses and may hold spaces and ')': the fields
  // after it start after the last ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 1));
  ProcStat stat;
  std::string field;
  fields >> stat.state;  // field 3
  for (int i = 4; i <= 22 && fields >> field; ++i)
    if (i == 22) stat.startTicks = field;
  return stat;
}

}  // namespace

std::string thisHostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown";
  return name;
}

WriterProcess WriterProcess::self() {
  WriterProcess p;
  p.pid = int64_t(getpid());
  p.host = thisHostName();
  const std::string boot = bootId();
  const std::optional<ProcStat> stat = procStat(p.pid);
  if (!boot.empty() && stat && !stat->startTicks.empty()) p.started = boot + " " + stat->startTicks;
  return p;
}

WriterStatus writerStatus(const WriterProcess& writer) {
  if (writer.host != thisHostName()) return WriterStatus::OtherHost;
  if (writer.pid <= 0 || writer.pid > INT_MAX) return WriterStatus::Gone;
  if (kill(pid_t(writer.pid), 0) != 0 && errno != EPERM) return WriterStatus::Gone;
  const std::optional<ProcStat> stat = procStat(writer.pid);
  if (!stat) return WriterStatus::Alive;  // no /proc to ask: the pid answered
  // A zombie (killed, not yet reaped) or a dead task writes nothing more.
  if (stat->state == 'Z' || stat->state == 'X' || stat->state == 'x') return WriterStatus::Gone;
  // Recorded by a writer that could tell its start: another start is another process (the
  // pid was reused, or the machine rebooted).
  if (!writer.started.empty() && writer.started != bootId() + " " + stat->startTicks) return WriterStatus::Gone;
  return WriterStatus::Alive;
}

}  // namespace voxen
