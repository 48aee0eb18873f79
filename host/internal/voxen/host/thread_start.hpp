#pragma once
// Starting worker threads without aborting. std::thread's constructor throws
// std::system_error when the system refuses a thread (no address space left for its stack
// under `ulimit -v`, the process's thread limit); a pool that lets it escape while some of its
// threads run destroys joinable threads and std::terminate()s. Every pool in Voxen starts its
// threads here instead and runs with the threads it got.
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace voxen {

// Starts up to `count` threads, the i-th running body(i), appended to `threads`; returns how
// many started. When a start fails the remaining ones are not tried: the pool runs with the
// threads it got, and the shortfall is reported once per `what` and process as a warning
// through logMessage ("started only 12 of 1000 cloud reader threads: Resource temporarily
// unavailable ...; running with 12"). Every caller must be able to run with none: the
// calling thread then does the pool's work itself. `what` names the pool for the user.
unsigned startThreads(std::vector<std::thread>& threads, unsigned count, const std::string& what,
                      const std::function<void(unsigned index)>& body);

namespace detail {
// For tests: every startThreads call afterwards starts at most `limit` threads and fails the
// next start as the system would (EAGAIN); nullopt restores normal starts. Also forgets which
// pools were reported, so that each test sees its own warning.
void setThreadStartLimitForTesting(std::optional<unsigned> limit);
}  // namespace detail

}  // namespace voxen
