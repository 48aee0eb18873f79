#include "stop_request.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace voxen::cli {

namespace {

std::atomic<int> gStopSignal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler stores the signal");
// The handlers to hand a second signal to (the process's own: the temporary-file cleanup).
struct sigaction gPreviousInt {}, gPreviousTerm {};
// What the first signal says, set before the handlers are installed (a string literal).
std::atomic<const char*> gNote{nullptr};

void askToStop(int signal) {
  const int saved = errno;
  gStopSignal.store(signal, std::memory_order_relaxed);
  // write(2) is async-signal-safe; stdio is not.
  const char* note = gNote.load(std::memory_order_relaxed);
  size_t length = 0;
  while (note[length] != 0) ++length;
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, note, length);
  // The next signal goes where it would have gone without us: the process ends.
  sigaction(SIGINT, &gPreviousInt, nullptr);
  sigaction(SIGTERM, &gPreviousTerm, nullptr);
  errno = saved;
}

// Installs askToStop for `signal` unless the process ignores it; whether it did. `previous`
// is filled first: the handler may run as soon as it is installed.
bool own(int signal, struct sigaction& previous) {
  if (sigaction(signal, nullptr, &previous) != 0) return false;
  if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN) return false;  // nohup, a background job
  struct sigaction action {};
  action.sa_handler = askToStop;
  // Reads in the input threads go on rather than fail with EINTR.
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  return sigaction(signal, &action, nullptr) == 0;
}

}  // namespace

StopRequest::StopRequest(const char* note) {
  gNote.store(note);
  gStopSignal.store(0);
  ownsInt_ = own(SIGINT, gPreviousInt);
  ownsTerm_ = own(SIGTERM, gPreviousTerm);
}

StopRequest::~StopRequest() {
  if (ownsInt_) sigaction(SIGINT, &gPreviousInt, nullptr);
  if (ownsTerm_) sigaction(SIGTERM, &gPreviousTerm, nullptr);
}

int StopRequest::signal() const { return gStopSignal.load(std::memory_order_relaxed); }

const char* StopRequest::signalName(int signal) {
  return signal == SIGINT ? "SIGINT (Ctrl-C)" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace voxen::cli
