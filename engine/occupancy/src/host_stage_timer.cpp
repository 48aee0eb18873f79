#include "voxen/occupancy/host_stage_timer.hpp"

#include <algorithm>
#include <array>

#include "voxen/host/thread_cpu_clock.hpp"

namespace voxen {

namespace {

double nanoseconds(HostStageTimer::SteadyClock::duration d) { return std::chrono::duration<double, std::nano>(d).count(); }

// The time between two back-to-back steady-clock reads: what each timed interval carries
// beyond the work inside it. The clock ticks in steps of 10 ns or more on some virtual
// machines, so a median of single gaps lands on a step; the mean of the middle half of many
// gaps (a preempted gap is an outlier) resolves it below the step (55 us at start).
double calibrateClockRead() {
  using Clock = HostStageTimer::SteadyClock;
  std::array<double, 1024> gaps{};
  for (double& gap : gaps) {
    const auto a = Clock::now();
    const auto b = Clock::now();
    gap = nanoseconds(b - a);
  }
  std::sort(gaps.begin(), gaps.end());
  double sum = 0.0;
  for (size_t i = gaps.size() / 4; i < gaps.size() * 3 / 4; ++i) sum += gaps[i];
  return sum / double(gaps.size() / 2);
}

}  // namespace

HostStageTimer::HostStageTimer() : clockReadNs_(calibrateClockRead()) {}

uint32_t HostStageTimer::nextGap() {
  // xorshift32: cheap, and deterministic from run to run.
  random_ ^= random_ << 13;
  random_ ^= random_ >> 17;
  random_ ^= random_ << 5;
  return 32 + (random_ & 63u);  // 32 to 95 rays, 63.5 on average
}

void HostStageTimer::addSample(SteadyClock::duration prepare, int prepareIntervals, SteadyClock::duration discovery) {
  const double p = std::max(0.0, nanoseconds(prepare) - prepareIntervals * clockReadNs_);
  const double d = std::max(0.0, nanoseconds(discovery) - clockReadNs_);
  if (p + d > kMaxSampleNs) return;
  samplePrepareNs_ += p;
  sampleDiscoveryNs_ += d;
}

void HostStageTimer::raysBegin() {
  raysStart_ = threadCpuSeconds();
  raysBatchSeconds_ = batchSeconds_;
}

void HostStageTimer::raysEnd() {
  const double loop = threadCpuSeconds() - raysStart_;
  raysSeconds_ += std::max(0.0, loop - (batchSeconds_ - raysBatchSeconds_));
}

void HostStageTimer::batchBegin() { batchStart_ = threadCpuSeconds(); }

void HostStageTimer::batchResident() {
  batchResident_ = threadCpuSeconds();
  times_.residencySeconds += batchResident_ - batchStart_;
}

void HostStageTimer::batchEnd() {
  const double end = threadCpuSeconds();
  times_.uploadSeconds += end - batchResident_;
  batchSeconds_ += end - batchStart_;
}

void HostStageTimer::readbackBegin() {
  readbackStart_ = threadCpuSeconds();
  readbackBatchSeconds_ = batchSeconds_;
}

void HostStageTimer::readbackEnd() {
  const double total = threadCpuSeconds() - readbackStart_;
  times_.readbackSeconds += std::max(0.0, total - (batchSeconds_ - readbackBatchSeconds_));
}

HostStageTimes HostStageTimer::times() const {
  HostStageTimes t = times_;
  const double sampled = samplePrepareNs_ + sampleDiscoveryNs_;
  const double prepareShare = sampled > 0.0 ? samplePrepareNs_ / sampled : 1.0;
  t.prepareSeconds = raysSeconds_ * prepareShare;
  t.discoverySeconds = raysSeconds_ - t.prepareSeconds;
  return t;
}

}  // namespace voxen
