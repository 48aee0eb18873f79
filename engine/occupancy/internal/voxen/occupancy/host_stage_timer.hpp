#pragma once
// Measures the GPU integrator's HostStageTimes without distorting them. A ray costs the host
// about 100-200 ns, and the thread CPU clock is a system call of a few hundred: reading it
// per ray would measure mostly itself. So:
// - per batch (residency, upload) and per finish() (readback), the thread CPU clock is read
//   around the work: a handful of reads per 10^5 rays;
// - the rays' own time (preparation plus discovery) is the thread CPU time of integrate()'s
//   ray loop less the batches flushed inside it, exact up to the loop's few clock reads;
// - that total is split between preparation and discovery in the proportion measured on a
//   sample of rays, about one in 64 at random gaps (so that the sample does not lock onto
//   the scan pattern, for example always the same laser ring), each timed stage by stage
//   with the steady clock (vDSO, about 20 ns a read, on TSC machines). The steady clock
//   counts wall time, so samples that may hold a wait or a preemption are dropped: a ray
//   that started or flushed a batch (those may wait for the GPU), and any sample above
//   kMaxSampleNs. The cost of one clock read, calibrated at start, is taken off each
//   interval, so that the clock's own cost does not tilt the split towards the stage timed
//   in more intervals.
// Checked against timing every ray stage by stage (bench map, lavapipe machine): the
// preparation share agreed within about 5 percentage points, and the sampled rays' mean
// time with the thread-clock total per ray within about 10 %. The sampling itself costs
// about 2 ns per ray (four clock reads, ~25 ns each, on one ray in 64).
#include <chrono>
#include <cstdint>

#include "voxen/occupancy/host_stage_times.hpp"

namespace voxen {

class HostStageTimer {
 public:
  using SteadyClock = std::chrono::steady_clock;
  // A sampled ray slower than this was preempted or interrupted, not working: a ray
  // crossing a thousand regions still takes a few microseconds.
  static constexpr double kMaxSampleNs = 100e3;

  HostStageTimer();

  // Around integrate()'s ray loop.
  void raysBegin();
  void raysEnd();

  // Per ray: whether to time this one stage by stage.
  bool sampleThisRay() {
    if (--untilSample_ > 0) return false;
    untilSample_ = nextGap();
    return true;
  }
  // A sampled ray's stages: preparation (the steady clock's intervals of it and their
  // count) and discovery (one interval).
  void addSample(SteadyClock::duration prepare, int prepareIntervals, SteadyClock::duration discovery);

  // Around flush(): begin, after the regions are resident, end.
  void batchBegin();
  void batchResident();
  void batchEnd();

  // Around finish(), whose own flush is not readback.
  void readbackBegin();
  void readbackEnd();

  // The stages so far; `rays` is left to the caller.
  HostStageTimes times() const;

 private:
  uint32_t nextGap();

  HostStageTimes times_;
  double raysSeconds_ = 0.0;   // preparation plus discovery, before the split
  double batchSeconds_ = 0.0;  // every flush's thread CPU time so far
  double raysStart_ = 0.0, raysBatchSeconds_ = 0.0;
  double readbackStart_ = 0.0, readbackBatchSeconds_ = 0.0;
  double batchStart_ = 0.0, batchResident_ = 0.0;
  double samplePrepareNs_ = 0.0, sampleDiscoveryNs_ = 0.0;
  double clockReadNs_ = 0.0;  // one steady-clock read, taken off each sampled interval
  uint32_t untilSample_ = 1;  // the first ray is sampled, so that any run has a sample
  uint32_t random_ = 0x9e3779b9u;
};

}  // namespace voxen
