#pragma once
// A few threads kept for work split into numbered parts, so that work repeated every frame
// (a lidar scan's chunks of rays, say) does not pay for starting threads each time.
// run(count, body) runs body(0) ... body(count - 1) and returns when all are done: the
// calling thread claims parts too, and does every part when no helper could be started.
// Helpers start on the first run() with more than one part (through startThreads, so a
// refused thread only leaves its share to the others) and stop with the crew.
//
// Threads: one thread at a time calls run() (the crew's owner); body is called on the
// caller's thread and on the helpers, concurrently for different parts, and must not throw
// (catch inside and pass errors on by part).
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace voxen {

class WorkerCrew {
 public:
  // Up to `helpers` threads besides the caller; `what` names them in a start-up warning.
  WorkerCrew(unsigned helpers, std::string what);
  ~WorkerCrew();
  WorkerCrew(const WorkerCrew&) = delete;
  WorkerCrew& operator=(const WorkerCrew&) = delete;

  void run(unsigned count, const std::function<void(unsigned part)>& body);
  // Helpers running (0 before the first run() with several parts).
  unsigned helpers() const { return unsigned(threads_.size()); }

 private:
  void work();
  // Claims and runs parts of the current run until none is left; `lock` is held on entry and exit.
  void claimParts(std::unique_lock<std::mutex>& lock);

  std::string what_;
  unsigned wanted_;
  bool started_ = false;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* body_ = nullptr;
  unsigned count_ = 0, next_ = 0, finished_ = 0;
  uint64_t generation_ = 0;  // one per run(), so a helper takes part in each run once it wakes
  bool stop_ = false;
};

}  // namespace voxen
