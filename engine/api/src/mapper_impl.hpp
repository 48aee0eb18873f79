#pragma once
// The Mapper's private state: the map, the integrator it runs (made at the first ray, and
// retired, its statistics kept, when something else writes the host map), and what the
// retired integrators did.
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <mutex>
#include <optional>

#include "query_lane.hpp"
#include "voxen/clearance/clearance_changes.hpp"
#include "voxen/context.hpp"
#include "voxen/heightmap/heightmap_tracker.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/map_snapshot.hpp"
#include "voxen/mapper.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/query/gpu_queries.hpp"
#include "voxen/tsdf/gpu_tsdf.hpp"
#include "voxen/tsdf/gpu_tsdf_rays.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"

namespace voxen {

struct Mapper::Impl {
  Impl(Context& context, OccupancyMap map, MapperRunOptions run);

  // The integrator for the next rays (GPU or CPU reference), made when missing.
  GpuIntegrator* gpu();
  CpuIntegrator& cpu();
  // Brings the host map up to date with the GPU's work.
  void sync();
  // Syncs and destroys the GPU integrators (the rays' and the depth frames': their caches
  // would write stale copies over what another writer of the host map, such as the
  // clearance, changes), keeping the rays' figures.
  void retireGpu();
  void retireRayGpu();   // the rays' alone (before depth frames)
  void retireTsdfGpu();  // the depth frames' alone (before rays)
  void retireTsdfRayGpu();  // the lidar scans' into the TSDF alone
  IntegrationStats integrationStats() const;
  // The GPU queries on the synced host map, made at the first query and told to read the map
  // again when it changed since.
  GpuQueries& queries();
  // Whether a query that reads `voxels` voxels runs on the CPU (the CPU reference backend, or
  // small enough for run.hostQueryVoxels).
  bool queryOnHost(uint64_t voxels) const;
  // The scheduler the mapping thread records on (the integrator, clearance, queries and
  // rendering of the Mapper's own methods), made at first use.
  Scheduler& scheduler();
  // Publishes a copy of the host map as the latest snapshot when it changed since the last.
  void publish();

  Context* context;
  MapperRunOptions run;
  OccupancyMap map;
  std::unique_ptr<Scheduler> ownScheduler;  // after the map, before what records on it
  std::unique_ptr<GpuIntegrator> gpuIntegrator;
  std::unique_ptr<CpuIntegrator> cpuIntegrator;
  // Depth frames into the TSDF layer (mapper_tsdf.cpp); tsdfUnsynced: frames since its last sync.
  std::unique_ptr<GpuTsdfIntegrator> tsdfIntegrator;
  bool tsdfUnsynced = false;
  // Lidar scans into the TSDF layer (mapper_tsdf.cpp), kept between scans with the same options;
  // tsdfRaysUnsynced: scans since its last sync.
  std::unique_ptr<GpuTsdfRayIntegrator> tsdfRayIntegrator;
  bool tsdfRaysUnsynced = false;
  // Mapper::mesh's mesh, kept between calls with the same options (mapper_tsdf.cpp).
  std::unique_ptr<TsdfMeshTracker> meshTracker;
  bool unsynced = false;  // rays given to the GPU since the last sync
  // Another writer (the clearance) changed the host map since the GPU integrator last
  // synced: its cache holds copies from before, so the next rays get a new integrator.
  bool gpuStale = false;
  // Whether the GPU integrator's region cache holds the clearance layer: its pools are the
  // map's layers when it was made, and it copies all of them back, so one made after the map
  // gained the layer would write its stale copies over a clearance computed since. One made
  // before holds only the layers it integrates, and survives a clearance.
  bool gpuHoldsClearance = false;
  // What the clearance layer was consistent with after the last GPU clearance (every region
  // up to date): the next update recomputes only the parts within range of the obstacle
  // voxels that changed since (planClearanceUpdate), or, where it no longer describes the
  // map, every out-of-date region whole.
  std::optional<ClearanceBaseline> clearanceBaseline;
  std::unique_ptr<GpuQueries> gpuQueries;
  // Mapper::heightmap's heightmap, kept between calls with the same options (mapper_heightmap.cpp).
  std::unique_ptr<HeightmapTracker> heightmapTracker;
  bool queriesStale = false;  // the host map changed since the queries read it
  // Rays seen and figures of the GPU integrators retired so far.
  IntegrationStats retired;
  HostStageTimes retiredTimes;
  // Occupancy decay (run.decaySeconds, mapper_decay.cpp): the newest ray time handed to this
  // Mapper so far, and the forgetting before and after a call's rays: the voxels touched
  // before (newest - decay), on the GPU after syncing, retiring the integrator if any.
  double newestRayTime = -std::numeric_limits<double>::infinity();
  void noteRayTimes(std::span<const Ray> rays);
  void applyDecay();

  // Snapshots: the lane their GPU queries run on, and the latest published (read by any
  // thread under publishMutex; written by the mapping thread).
  std::shared_ptr<QueryLane> lane;
  mutable std::mutex publishMutex;
  MapSnapshot published;
  bool changedSincePublished = true;  // the host map (or what the GPU will copy into it) changed
};

// The local window (MapperRunOptions::window, mapper_window.cpp): after rays were integrated,
// the regions farther than the window from the last ray's origin leave the map (paged out to
// the region source, or dropped); `retireGpu` retires the GPU integrator when any leaves.
void applyMapperWindow(Mapper& mapper, OccupancyMap& map, std::span<const Ray> rays, const std::function<void()>& retireGpu);

// Occupancy decay's settings (mapper_decay.cpp): a SettingError naming
// MapperRunOptions::decaySeconds for a negative or NaN value, and for a map (`name`: the file
// or "the map") without the touch-time layer the decay reads.
void checkDecaySetting(const MapperRunOptions& run);
void requireDecayLayer(const OccupancyMap& map, const MapperRunOptions& run, const std::string& name);

// Adds `more` (an integrator's figures whose ray indices start at `indexBase`) to `into`.
void addIntegrationStats(IntegrationStats& into, IntegrationStats more, uint64_t indexBase);

}  // namespace voxen
