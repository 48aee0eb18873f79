#include "voxen/host/thread_start.hpp"

#include <atomic>
#include <cerrno>
#include <mutex>
#include <new>
#include <set>
#include <system_error>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#endif

#include "voxen/host/log.hpp"

namespace voxen {

namespace {

std::mutex& reportedMutex() {
  static std::mutex mutex;
  return mutex;
}

std::set<std::string>& reportedPools() {
  static std::set<std::string> pools;
  return pools;
}

// -1: no test limit.
std::atomic<long long> testLimit{-1};

// True the first time a pool of this name falls short in this process.
bool firstShortfall(const std::string& what) {
  std::lock_guard lock(reportedMutex());
  return reportedPools().insert(what).second;
}

// Under an address-space limit (ulimit -v), a pool that starts threads until the system
// refuses one leaves nothing for what the run allocates afterwards: buffers that grow with
// the work, the driver's compiler at a pipeline's first dispatch, the map's regions. A
// failure there ends the run (measured: std::bad_alloc and "LLVM ERROR: Unable to allocate
// section memory" with --threads 1000 under ulimit -v 2 GB), so a pool takes at most half of
// the address space still free. Returns `count` where there is no limit.
unsigned threadsTheAddressSpaceAffords(unsigned count) {
#if defined(__linux__)
  rlimit space{};
  if (getrlimit(RLIMIT_AS, &space) != 0 || space.rlim_cur == RLIM_INFINITY) return count;
  std::ifstream statm("/proc/self/statm");
  unsigned long long pages = 0;
  if (!(statm >> pages)) return count;
  const unsigned long long used = pages * (unsigned long long)sysconf(_SC_PAGESIZE);
  if (used >= space.rlim_cur) return 0;
  // A thread's stack is RLIMIT_STACK's size (glibc's default for new threads), else 8 MiB.
  rlimit stack{};
  unsigned long long stackBytes = 8ull << 20;
  if (getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY && stack.rlim_cur > 0)
    stackBytes = stack.rlim_cur;
  const unsigned long long affordable = (space.rlim_cur - used) / 2 / (stackBytes + (64ull << 10));
  return unsigned(std::min<unsigned long long>(count, affordable));
#else
  return count;
#endif
}

}  // namespace

unsigned startThreads(std::vector<std::thread>& threads, unsigned count, const std::string& what,
                      const std::function<void(unsigned index)>& body) {
  const long long limit = testLimit.load();
  unsigned started = 0;
  std::string reason;
  const unsigned affordable = threadsTheAddressSpaceAffords(count);
  for (; started < count; ++started) {
    if (started >= affordable) {
      reason = "more would leave less than half of the address space still free for the rest of the run";
      break;
    }
    try {
      if (limit >= 0 && started >= limit)
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), "test limit");
      threads.emplace_back(body, started);
    } catch (const std::system_error& e) {
      reason = e.code().message();
      break;
    } catch (const std::bad_alloc&) {
      reason = "out of memory";
      break;
    }
  }
  if (started == count) return started;
  if (firstShortfall(what))
    logMessage(LogLevel::Warning,
               "started only " + std::to_string(started) + " of " + std::to_string(count) + " " + what + " threads: " +
                   reason + " (the address space, ulimit -v, or the process's thread limit is exhausted); " +
                   (started > 0 ? "running with " + std::to_string(started)
                                : std::string("the calling thread does their work")));
  return started;
}

namespace detail {
void setThreadStartLimitForTesting(std::optional<unsigned> limit) {
  testLimit.store(limit ? (long long)*limit : -1);
  std::lock_guard lock(reportedMutex());
  reportedPools().clear();
}
}  // namespace detail

}  // namespace voxen
