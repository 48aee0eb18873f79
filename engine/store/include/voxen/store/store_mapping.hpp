#pragma once
// A mapping run saved into a store as it grows (`voxen map --store`): checkpoints, resuming,
// and a host map bounded in memory.
//
// - Checkpoints: every `checkpointSeconds` (and at the end) the host map is brought up to
//   date with the GPU and every region changed since the last checkpoint is written, with
//   the input position (rays taken from the reader), in one transaction (MapStore::write).
//   A run killed at any moment leaves the store at its last checkpoint.
// - Resuming: a run continues from its store's last checkpoint: the reader reads the input
//   again and the rays before the checkpoint are passed over (FileIntegrationOptions::skipRays);
//   the run's settings, recorded when it started, must be the same (an Error names the first
//   that differs). In the sequential order (the default) the map then equals an uninterrupted
//   run's bit for bit, as it does at any batch size. A setting named "FLAG (content)" is an
//   input file's content fingerprint (engine/store/internal/voxen/store/input_fingerprint.hpp): one that differs is
//   refused as a changed file, named by the setting FLAG's value (its path).
// - The store's file alone holds every checkpoint: SQLite's write-ahead log is folded into
//   the file after each one (MapStore::foldLog), so a copy of the file taken after a
//   checkpoint, or left by a killed run without its -wal file, has it.
// - The writer: the run records its process (engine/store/internal/voxen/store/writer_process.hpp) when it starts
//   or resumes, so that a reader can tell a run in progress from one whose writer is gone.
// - Bounded host memory: with hostMemoryBytes set, once the host map holds more, the regions
//   unchanged since the last checkpoint (they are in the store as they are) are dropped,
//   least recently changed first, down to three quarters of the limit; when that is not
//   enough, a checkpoint comes first. The map is the map's region source: a region it dropped
//   comes back from the store when a ray needs it. The GPU's region cache is apart: a
//   checkpoint copies its regions through host memory (at most --gpu-cache-mb more).
//
// Everything runs on the mapping thread, between two chunks (voxen::MapperChunkBoundary gives
// what betweenChunks needs).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "voxen/map/map.hpp"
#include "voxen/store/map_store.hpp"

namespace voxen {

// The writing process as a run records it: voxen/store/writer_process.hpp, a header of this
// build only (the tools and tests read it; an embedder has no use for it).
struct WriterProcess;

struct StoreMappingOptions {
  uint64_t hostMemoryBytes = 0;     // 0: no limit
  double checkpointSeconds = 30.0;  // 0: after every chunk
};

// A run's settings as (name, value) pairs: the command-line flags that shape the map and the
// input (their values as text), compared one by one when a run is resumed.
using RunSettings = std::vector<std::pair<std::string, std::string>>;

struct StoreMappingStats {
  uint64_t checkpoints = 0;
  double checkpointSeconds = 0.0;     // in all, syncs included
  double longestCheckpointSeconds = 0.0;
  // The transactions alone (the rest of a checkpoint is the sync: waiting for the GPU's
  // queued batches and copying its regions back), and the regions of the longest.
  double writeSeconds = 0.0;
  double longestWriteSeconds = 0.0;
  uint64_t longestWriteRegions = 0;
  // Folding SQLite's write-ahead log into the store's file after each write (MapStore::foldLog).
  double foldSeconds = 0.0;
  uint64_t regionsWritten = 0;        // over every checkpoint
  uint64_t evictions = 0;             // regions dropped from host memory
  uint64_t fetches = 0;               // regions read back from the store
  double fetchSeconds = 0.0;
  uint64_t peakHostBytes = 0;         // the host map's regions, at its largest between chunks
};

class StoreMapping final : public RegionSource {
 public:
  // A new run into `store`, which must hold no map and no run yet (an Error says what it
  // holds and that --resume continues an unfinished run). `notes` are recorded with the run
  // and not compared on resume (the command line that started it: recordedNote reads them).
  static std::unique_ptr<StoreMapping> start(std::unique_ptr<MapStore> store, const RunSettings& settings,
                                             const StoreMappingOptions& options, const RunSettings& notes = {});
  // The unfinished run in `store`, to be continued with the same settings.
  static std::unique_ptr<StoreMapping> resume(std::unique_ptr<MapStore> store, const RunSettings& settings,
                                              const StoreMappingOptions& options);
  // Throws the Error resume() would when `store` holds no run to resume (none, or a complete
  // one): for a caller that reads the run's notes before it opens the store for writing.
  static void requireResumable(MapStore& store);
  // A note start() recorded, or nullopt.
  static std::optional<std::string> recordedNote(MapStore& store, const std::string& name);
  // The writer the run's store records (the process that started or last resumed it), if any.
  static std::optional<WriterProcess> recordedWriter(MapStore& store);
  ~StoreMapping() override;

  // Rays the store's map holds (taken from the reader up to the last checkpoint); 0 for a
  // new run.
  uint64_t resumeRays() const { return resumeRays_; }
  bool resumed() const { return resumed_; }
  MapStore& store() { return *store_; }

  // (Make this the map's region source before the first ray: Mapper::setRegionSource.)
  // Between two chunks (FileIntegrationOptions::betweenChunks): `raysTaken` from the reader so
  // far, `last` after the last chunk, `sync` brings the host map up to date with the GPU.
  // Checkpoints when due (always after the last chunk, which also marks the run complete)
  // and keeps the host map within its limit.
  void betweenChunks(OccupancyMap& map, uint64_t raysTaken, bool last, const std::function<void()>& sync);
  // A checkpoint now, whether due or not (a run asked to stop saves its work first); its
  // number, counted over the run and the runs it resumes.
  uint64_t checkpointNow(OccupancyMap& map, uint64_t raysTaken, const std::function<void()>& sync);

  // The store's map, once complete: voxel counts over every region (in memory or not).
  OccupancyMap::Counts counts() const;
  const StoreMappingStats& stats() const { return stats_; }

  // RegionSource
  std::optional<Region> fetch(const RegionKey& key) override;
  bool holds(const RegionKey& key) const override { return stored_.contains(key); }

 private:
  StoreMapping(std::unique_ptr<MapStore> store, const StoreMappingOptions& options);
  void checkpoint(OccupancyMap& map, uint64_t raysTaken, bool last, const std::function<void()>& sync);
  // Drops unchanged regions, least recently changed first, until the host map holds at most
  // `targetBytes`; whether it got there.
  bool evictTo(OccupancyMap& map, uint64_t targetBytes);

  struct RegionCounts {
    uint32_t occupied = 0, free = 0;
  };
  RegionCounts countsOf(const Region& region) const;
  std::unique_ptr<MapStore> store_;
  StoreMappingOptions options_;
  OccupancyMap shape_;  // no regions: the store's model, for counting a region's voxels
  bool resumed_ = false;
  uint64_t resumeRays_ = 0;
  uint64_t earlierCheckpoints_ = 0;  // made by the run this one resumes
  std::chrono::steady_clock::time_point lastCheckpoint_;
  std::unordered_map<RegionKey, RegionCounts, RegionKeyHash> stored_;  // every region the store holds
  StoreMappingStats stats_;
};

}  // namespace voxen
