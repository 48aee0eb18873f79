#include "voxen/host/thread_start.hpp"

#include <atomic>
#include <cerrno>
#include <mutex>
#include <new>
#include <set>
#include <system_error>

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

}  // namespace

unsigned startThreads(std::vector<std::thread>& threads, unsigned count, const std::string& what,
                      const std::function<void(unsigned index)>& body) {
  const long long limit = testLimit.load();
  unsigned started = 0;
  std::string reason;
  for (; started < count; ++started) {
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
