#pragma once
// Measures the GPU integrator's HostStageTimes with the thread CPU clock, which is a system
// call of a few hundred nanoseconds: it is read per batch and per integrate() call, never
// per ray.
// - The rays' own time (preparation) is the thread CPU time of integrate()'s ray loop less
//   the batches flushed inside it, exact up to the loop's few clock reads.
// - Per batch, flush() marks the end of each stage it runs (discovery, residency, upload,
//   once per region chunk); each mark adds the time since the previous one to its stage.
// - finish() (readback) is timed around, less the batch it flushes.
#include "voxen/occupancy/host_stage_times.hpp"

namespace voxen {

class HostStageTimer {
 public:
  using Stage = double HostStageTimes::*;

  // Around integrate()'s ray loop.
  void raysBegin();
  void raysEnd();

  // In flush(): begin, then a mark at the end of each stage (the time since the previous
  // mark goes to `stage`), then end.
  void batchBegin();
  void mark(Stage stage);
  void batchEnd();

  // Around finish(), whose own flush is not readback.
  void readbackBegin();
  void readbackEnd();

  // The stages so far; `rays` is left to the caller.
  const HostStageTimes& times() const { return times_; }

 private:
  HostStageTimes times_;
  double batchSeconds_ = 0.0;  // every flush's thread CPU time so far
  double raysStart_ = 0.0, raysBatchSeconds_ = 0.0;
  double readbackStart_ = 0.0, readbackBatchSeconds_ = 0.0;
  double batchStart_ = 0.0, lastMark_ = 0.0;
};

}  // namespace voxen
