#pragma once
// `voxen map --live ... --store STORE`: a stream's map saved into a region store as it grows,
// with the checkpoints of a file run (voxen/store/store_mapping.hpp: every --checkpoint-s, the
// regions changed since the last one in one transaction; a host map bounded by
// --store-memory-mb, regions paged back from the store). A robot that reboots continues its
// map: a run stopped by a signal (systemd's SIGTERM, Ctrl-C) or a lost stream keeps its last
// checkpoint and stays unfinished, so `voxen map --store STORE --resume` (its options are
// recorded) maps on from there; only --duration's end marks the run complete.
#include <cstdint>
#include <memory>
#include <string>

#include "commands/map/map_args.hpp"
#include "voxen/mapper.hpp"
#include "voxen/store/store_mapping.hpp"

namespace voxen::cli {

class LiveStore {
 public:
  // Opens (creates, or with --resume continues) the store and makes it the map's region source.
  LiveStore(const MapArgs& args, const OccupancyModel& model, Mapper& mapper);
  // After a cloud: a checkpoint when one is due, the host map kept within its limit.
  void afterCloud(Mapper& mapper, uint64_t rays);
  // A checkpoint now; the run stays unfinished (resumable). Its number.
  uint64_t keep(Mapper& mapper, uint64_t rays);
  // The last checkpoint; the run is complete.
  void complete(Mapper& mapper, uint64_t rays);
  bool resumed() const { return run_->resumed(); }
  uint64_t resumeRays() const { return run_->resumeRays(); }
  OccupancyMap::Counts counts() const { return run_->counts(); }
  const StoreMappingStats& stats() const { return run_->stats(); }

 private:
  std::unique_ptr<StoreMapping> run_;
};

}  // namespace voxen::cli
