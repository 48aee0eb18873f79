#include "voxen/host/worker_crew.hpp"

#include <utility>

#include "voxen/host/thread_start.hpp"

namespace voxen {

WorkerCrew::WorkerCrew(unsigned helpers, std::string what) : what_(std::move(what)), wanted_(helpers) {}

WorkerCrew::~WorkerCrew() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void WorkerCrew::claimParts(std::unique_lock<std::mutex>& lock) {
  while (next_ < count_) {
    const unsigned part = next_++;
    const std::function<void(unsigned)>& body = *body_;
    lock.unlock();
    body(part);
    lock.lock();
    if (++finished_ == count_) done_.notify_all();
  }
}

void WorkerCrew::work() {
  std::unique_lock lock(mutex_);
  uint64_t seen = generation_;
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    claimParts(lock);
  }
}

void WorkerCrew::run(unsigned count, const std::function<void(unsigned)>& body) {
  if (count == 0) return;
  if (count > 1 && !started_) {
    started_ = true;
    startThreads(threads_, wanted_, what_, [this](unsigned) { work(); });
  }
  std::unique_lock lock(mutex_);
  body_ = &body;
  count_ = count;
  next_ = 0;
  finished_ = 0;
  ++generation_;
  if (count > 1) wake_.notify_all();
  claimParts(lock);
  done_.wait(lock, [&] { return finished_ == count_; });
  body_ = nullptr;
}

}  // namespace voxen
