#include "voxen/occupancy/host_stage_timer.hpp"

#include <algorithm>

#include "voxen/host/thread_cpu_clock.hpp"

namespace voxen {

void HostStageTimer::raysBegin() {
  raysStart_ = threadCpuSeconds();
  raysBatchSeconds_ = batchSeconds_;
}

void HostStageTimer::raysEnd() {
  const double loop = threadCpuSeconds() - raysStart_;
  times_.prepareSeconds += std::max(0.0, loop - (batchSeconds_ - raysBatchSeconds_));
}

void HostStageTimer::batchBegin() { batchStart_ = lastMark_ = threadCpuSeconds(); }

void HostStageTimer::mark(Stage stage) {
  const double now = threadCpuSeconds();
  times_.*stage += now - lastMark_;
  lastMark_ = now;
}

void HostStageTimer::batchEnd() {
  mark(&HostStageTimes::uploadSeconds);
  batchSeconds_ += lastMark_ - batchStart_;
}

void HostStageTimer::readbackBegin() {
  readbackStart_ = threadCpuSeconds();
  readbackBatchSeconds_ = batchSeconds_;
}

void HostStageTimer::readbackEnd() {
  const double total = threadCpuSeconds() - readbackStart_;
  times_.readbackSeconds += std::max(0.0, total - (batchSeconds_ - readbackBatchSeconds_));
}

}  // namespace voxen
