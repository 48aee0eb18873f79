#include "voxen/atomic_file/temp_file_registry.hpp"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>

#include "voxen/atomic_file/output_file.hpp"

namespace voxen {

namespace {

enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX] = {};
};

// 64 saves at once is far more than any program here runs; a save beyond that still works.
std::array<Slot, 64> gSlots;
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slot states");

constexpr int kCleanedSignals[] = {SIGINT, SIGTERM, SIGHUP};

void removeThenDie(int signal) {
  removeTemporaryFilesNow();
  // Back to the default action and raised again: the process ends of this signal, as it
  // would have without the handler (the shell sees 130 for ^C). The signal is blocked while
  // this handler runs and delivered once it returns.
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
  raise(signal);
}

}  // namespace

void removeTemporaryFilesNow() {
  for (Slot& slot : gSlots)
    if (slot.state.load(std::memory_order_acquire) == kLive) ::unlink(slot.path);
}

void removeTemporaryFilesOnSignals() {
  for (int signal : kCleanedSignals) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0) continue;
    // A signal the program ignores (nohup) or handles itself is left as it is.
    if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = removeThenDie;
    sigemptyset(&action.sa_mask);
    for (int other : kCleanedSignals) sigaddset(&action.sa_mask, other);  // one cleanup at a time
    sigaction(signal, &action, nullptr);
  }
}

namespace detail {

int registerTemporaryFile(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (size_t i = 0; i < gSlots.size(); ++i) {
    int expected = kFree;
    if (!gSlots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acquire)) continue;
    std::memcpy(gSlots[i].path, path.c_str(), path.size() + 1);
    gSlots[i].state.store(kLive, std::memory_order_release);
    return int(i);
  }
  return -1;
}

void unregisterTemporaryFile(int slot) {
  if (slot >= 0 && size_t(slot) < gSlots.size()) gSlots[size_t(slot)].state.store(kFree, std::memory_order_release);
}

}  // namespace detail

}  // namespace voxen
