#pragma once
// voxen::Mapper: an occupancy map with everything that works on it — the GPU integrator (or
// the CPU reference), NDT-OM/TM, clearance, single-voxel reads, save/load and rendering —
// behind one object on a Context.
//
//   voxen::Context ctx;
//   voxen::Mapper mapper(ctx, {.model = {.resolution = 0.1}});
//   mapper.integrateRays(origins, ends);
//   mapper.save("map.vxm");
//
// Synchronisation. integrate*() queue rays: on the GPU they are cut into batches and
// integrated while the caller prepares more, so the host map lags behind.
// - flush(): every ray given so far is integrated on the GPU (waits); the regions stay in
//   the GPU cache and the host map is not updated. For frame-by-frame callers that need a
//   scan in the map before the next one (the map after the last sync() is the same, bit for
//   bit; in the two-phase order a flush cuts a batch as a smaller batch size would).
// - sync(): flush(), then every region the GPU touched is copied into the host map.
// Every read (map(), occupancyAt(), clearanceAt(), stats(), save(), computeClearance(),
// render()) syncs first, so a caller never sees a map that lags; calling sync() yourself
// only decides when the wait happens. The CPU reference integrates in the call.
//
// Threads. One thread maps: it calls integrate*(), flush(), sync(), snapshot(),
// computeClearance(), save() and the Mapper's own reads and queries, one call at a time (or
// several threads take turns under the caller's lock). Any number of other threads query at
// the same time through snapshots (voxen/map_snapshot.hpp): latestSnapshot() may be called
// from any thread and never waits for mapping; it returns the map as of the last
// snapshot() (the map the Mapper started from before the first). A snapshot is a copy: a
// query never sees a half-applied batch. Mappers on different threads (on one Context or
// several) are independent: each records on schedulers of its own.
//
//   std::jthread planner([&] { for (;;) plan(mapper.latestSnapshot()); });
//   for (const Scan& scan : scans) { mapper.integrate(scan.rays); mapper.snapshot(); }
//
// Errors are voxen::Error (voxen/host/error.hpp) naming the file, ray or setting; a setting
// out of range or in need of a change is a SettingError whose field() names it as its struct
// spells it ("GpuIntegratorOptions::cacheBytes").
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <glm/vec3.hpp>

#include "voxen/clearance/clearance.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/map/map.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/map_snapshot.hpp"
#include "voxen/occupancy/gpu_integrator_options.hpp"
#include "voxen/occupancy/host_stage_times.hpp"
#include "voxen/occupancy/integration_options.hpp"
#include "voxen/occupancy/integration_stats.hpp"
#include "voxen/query/collision_types.hpp"
#include "voxen/query/query_types.hpp"
#include "voxen/render_map.hpp"
#include "voxen/tsdf/tsdf.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"
#include "voxen/tsdf/tsdf_rays.hpp"

namespace voxen {

class Context;
class GpuClearance;
class MapPass;  // voxen/map/map_pass.hpp, for runPass
struct MapPassStats;
class Scheduler;
class RayReader;
class Trajectory;

// Which integrator a Mapper runs.
enum class MapperBackend {
  Gpu,           // the GPU integrator (NDT: in two-phase order, the GPU's only NDT order)
  CpuReference,  // the single-threaded CPU reference the tests compare the GPU against
};

// How a Mapper integrates and what it may hold; the same for a new map and a loaded one.
struct MapperRunOptions {
  MapperBackend backend = MapperBackend::Gpu;
  // Ray flags, range limit, update order and NDT (integration.ndt.mode: Om or Tm; the map
  // gets the NDT layers). With NDT on the GPU the order is two-phase.
  IntegrationOptions integration{};
  // GPU region cache and batch size.
  GpuIntegratorOptions gpu{};
  // A GPU clearance will run while the integrator still holds its cache: its own cache (as
  // large) is set aside from the memory budget up front, so the host map's limit is known
  // before mapping starts.
  bool reserveClearanceCache = false;
  // How the error ends when the host map outgrows the memory budget; empty: the Context's
  // memory hint, and "set IntegrationOptions::maxRange" when no range limit is set.
  std::string regionLimitHint{};
  // Small queries run on the CPU: a batched query (occupancy(), raycast(), clearance(),
  // voxelsInBox()) that reads at most this many voxels is answered by the CPU reference on
  // the synced host map, the map the GPU queries load, so the answers are the GPU's bit for
  // bit. A GPU round trip costs more than such a query: about 100 us on lavapipe, where a
  // voxel read takes about 0.05 us. A point reads 1 voxel, a clearance sample 8, a ray its
  // range in voxels plus one, a box its voxels. 0: every query of a GPU Mapper on the GPU.
  uint64_t hostQueryVoxels = 512;
  // A local window in metres, for a moving robot: after each integrate call, regions whose
  // box is farther than this from the latest sensor origin (the last ray's) leave the map:
  // dropped for good, or with a region source (setRegionSource), paged out once the source
  // holds them as they are (engine/api/src/mapper_window.cpp). The regions within stay as
  // without a window. nullopt: the map keeps every region.
  std::optional<double> window{};
  // Occupancy decay towards unknown, in seconds (OctoMap's degradeOutdatedNodes, made exact):
  // with T the newest ray time handed to the Mapper so far, a call's rays included, every
  // observed voxel last touched before T - decaySeconds is forgotten before and after each
  // integrate call (integrateFile: each max(gpu.maxRaysPerBatch, 4096) rays): its occupancy,
  // touch time, mean, traversal, hit/miss and NDT layers return to a never-touched voxel's, so
  // a voxel seen again after a longer gap starts from unknown; its region stays. Needs the
  // touch-time layer (a new map gets it; a loaded map without it is refused). At least 0;
  // nullopt: voxels are never forgotten (engine/api/src/mapper_decay.cpp).
  std::optional<double> decaySeconds{};
};

// A new map: the model, the optional layers, and how to integrate.
struct MapperOptions {
  // Resolution (metres per voxel edge, kMinResolution to kMaxResolution), region size, hit
  // and miss probabilities, occupied threshold and log-odds clamps (voxen/map/map.hpp);
  // defaults follow OHM, OccupancyModel::octomap() gives OctoMap's.
  OccupancyModel model{};
  // Optional built-in layers (kVoxelMeanLayer | kTraversalLayer | kHitMissLayer |
  // kTouchTimeLayer); NDT adds its own from run.integration.ndt.
  LayerSet extraLayers{};
  MapperRunOptions run{};
};

// What integrateCloud did with a cloud's points.
struct CloudStats {
  uint64_t points = 0;                    // given
  uint64_t rays = 0;                      // handed to the integrator
  uint64_t skippedOutsideTrajectory = 0;  // times outside the trajectory's span
};

// Where integrateFile stands between two of the reader's chunks: for a caller that saves the
// map as it grows and keeps only part of it in memory (voxen/store/store_mapping.hpp).
class MapperChunkBoundary {
 public:
  virtual ~MapperChunkBoundary() = default;
  // Rays taken from the reader so far, skipped ones included (the reader's order), and
  // whether the reader is done.
  virtual uint64_t raysTaken() const = 0;
  virtual bool last() const = 0;
  // The host map, which lags behind the GPU until sync(): a caller may save and evict the
  // regions that have not changed since it last saved them (Region::occupancyStamp at most
  // the change counter it saw then), and give the map a region source.
  virtual OccupancyMap& map() = 0;
  // Every ray taken so far integrated and copied into the host map. (In the two-phase order
  // this cuts a batch, as flush() does; the sequential order's map does not depend on it.)
  virtual void sync() = 0;
};

// integrateFile: threads, progress, resuming and saving.
struct FileIntegrationOptions {
  // Threads preparing rays for the GPU from the reader's chunks (0: none, the calling
  // thread prepares). The map is the same for any number.
  unsigned prepareThreads = 0;
  // Called after each chunk with the points read so far.
  std::function<void(uint64_t pointsRead)> progress{};
  // Rays of the reader passed over, not integrated: resuming a run whose map already holds
  // them (the reader reads them again, so that everything it derives from earlier points,
  // such as skipped-backwards clouds, is the same).
  uint64_t skipRays = 0;
  // Called after each chunk taken (and once after the last, with last() true).
  std::function<void(MapperChunkBoundary&)> betweenChunks{};
};

// The occupancy of one voxel.
struct OccupancySample {
  VoxelCoord voxel;
  VoxelClass voxelClass = VoxelClass::Unobserved;
  float logOdds = kUnobserved;  // kUnobserved when no ray touched it
};

// What a Mapper holds and has done.
struct MapperStats {
  IntegrationStats integration;   // over every integrate*() call (rejected rays are counted there)
  OccupancyMap::Counts counts;    // occupied and free voxels, regions
};

// The box the observed voxels fill (Mapper::bounds()): every voxel a ray has touched
// (occupied or free, log-odds not kUnobserved) lies in firstVoxel .. lastVoxel (inclusive),
// whose faces are min .. max in map metres (voxel v spans [v, v + 1) * resolution per axis).
// `voxen info` reports the coarser box of the regions (metres (lo) * edge .. (hi + 1) *
// edge of the region keys), which always contains this one.
struct MapBounds {
  glm::dvec3 min{0.0}, max{0.0};
  VoxelCoord firstVoxel{}, lastVoxel{};
};

// computeClearance: progress, and whether to recompute every region.
struct ClearanceRunOptions {
  // Regions whose clearance is out of date only (their occupancy or a neighbour's within
  // range changed since they were computed with these settings), or every region.
  bool onlyOutOfDate = true;
  // GPU region cache for the clearance; 0: the integrator's cache size.
  uint64_t cacheBytes = 0;
  ClearanceProgress progress{};  // regions done of the total
  // GPU: called once the computation is set up, before it runs (to say how much work the
  // technique will be: GpuClearance::relativeWork()).
  std::function<void(const GpuClearance&)> onStart{};
};

class Mapper {
 public:
  // No Context and no map, for a member that gets its map later: assign it one
  // (`mapper = Mapper::load(context, path)`). Every call but assignment and empty() on an
  // empty Mapper (default-constructed or moved from) throws Error saying so.
  Mapper() noexcept;
  // An empty map. Throws SettingError for a model or NDT value out of range.
  Mapper(Context& context, MapperOptions options = {});
  // A map file (voxen/map/map_file.hpp), checked against the Context's memory budget before
  // its regions are allocated; NDT integration needs the file to hold the NDT layers. The
  // map may grow by what the budget leaves after it and the GPU cache (none when the cache
  // leaves nothing: reading, clearance and rendering still work).
  [[nodiscard]] static Mapper load(Context& context, const std::filesystem::path& path, MapperRunOptions run = {});
  // A map already in memory (importOctomap()'s, say), taken over as load() takes a file's:
  // it may grow by what the budget leaves after it and the GPU cache.
  [[nodiscard]] static Mapper fromMap(Context& context, OccupancyMap map, MapperRunOptions run = {});
  ~Mapper();
  Mapper(Mapper&&) noexcept;
  Mapper& operator=(Mapper&&) noexcept;
  // Whether the Mapper has no map (default-constructed or moved from).
  bool empty() const noexcept;

  // Mapping thread: replaces the map by a file's, in this Mapper, keeping its Context and
  // run options (checked as the static load() checks them). The file is read in full before
  // the map it replaces is released (both are in memory for a moment); when reading fails
  // the Mapper keeps its map. Rays given before are integrated into the old map first; the
  // statistics start again. Query threads keep the snapshots they hold, and latestSnapshot()
  // returns the file's map (a newer version()) once this returns.
  void load(const std::filesystem::path& path);

  // Rays from origins[i] to ends[i] (the sample), in order, at time 0. Throws Error when the
  // spans differ in length.
  void integrateRays(std::span<const glm::dvec3> origins, std::span<const glm::dvec3> ends);
  // Rays with times and intensities, in order. Rays with a non-finite coordinate, or too far
  // from the origin for 32-bit voxel coordinates, are skipped and counted (stats()).
  void integrate(std::span<const Ray> rays);
  // Points of a scan with their times, and the trajectory the sensor followed: each ray runs
  // from the sensor's position at the point's time (linear interpolation) to the point.
  // Points whose time is outside the trajectory are skipped and counted. Throws Error when
  // the spans differ in length.
  CloudStats integrateCloud(std::span<const glm::dvec3> points, std::span<const double> times,
                            const Trajectory& trajectory);
  // Every ray of a reader (voxen/input/ray_source.hpp: a PLY cloud with a trajectory, or a ray
  // cloud), read on the reader's threads and prepared on `options.prepareThreads`.
  void integrateFile(RayReader& reader, const FileIntegrationOptions& options = {});
  // Mapping thread, between two integrate calls of a caller that feeds rays itself (a live
  // stream): `work` gets what a file run's betweenChunks gets (MapperChunkBoundary: the host
  // map, sync(), and `raysTaken` and `last` as given), so that the caller can checkpoint the
  // map into a store as it grows (StoreMapping::betweenChunks).
  void atBoundary(uint64_t raysTaken, bool last, const std::function<void(MapperChunkBoundary&)>& work);

  void flush();
  void sync();

  // Mapping thread: sync(), then publishes the host map as the latest snapshot (a copy, made
  // only when the map changed since the last one) and returns it. The copy costs the map's
  // memory once more while any snapshot of it is held.
  MapSnapshot snapshot();
  // Any thread, never waiting for mapping: the snapshot published last (version() tells a
  // new one from the one a caller already has).
  MapSnapshot latestSnapshot() const;
  // The scheduler the mapping thread's GPU work records on (integration, clearance, the
  // Mapper's own queries, rendering): its profile() has their pass times. Mapping thread only.
  Scheduler& scheduler();

  // Regions kept outside memory (a store the caller pages the map out to between chunks,
  // voxen/store/store_mapping.hpp): the map fetches a region it does not hold from `source`
  // before it creates one. Not owned; nullptr: none.
  void setRegionSource(RegionSource* source);

  // The host map, synced.
  const OccupancyMap& map();
  // Waits for the GPU: every count complete, and the map's voxel and region counts.
  MapperStats stats();
  // Without waiting for the GPU (a caller streaming scans keeps the GPU busy): the counts the
  // host makes as it takes rays (rays, clippedRays, rejectedRays with firstRejected, batches)
  // are complete; the counts the GPU makes (voxelUpdates, droppedUpdates, casRetries and the
  // others) cover only the batches finished at the last wait. stats() has both complete.
  IntegrationStats submittedStats() const;
  // The host thread's CPU time by stage of the GPU integrator (zero for the CPU reference).
  HostStageTimes hostStageTimes() const;
  const MapperRunOptions& runOptions() const;
  Context& context();

  // Single-voxel reads on the host map.
  OccupancySample occupancyAt(const glm::dvec3& point);
  OccupancySample occupancyAt(const VoxelCoord& voxel);
  // The clearance (metres; kNoObstacleInRange when no obstacle is within the range it was
  // computed with); nullopt where the map has no region. Throws Error when the map has no
  // clearance layer (computeClearance() makes it).
  std::optional<float> clearanceAt(const glm::dvec3& point);
  std::optional<float> clearanceAt(const VoxelCoord& voxel);
  // The map's extent: the box of its observed voxels (MapBounds), read from the synced host
  // map (every region in memory; a map paged out to a region source counts the regions it
  // holds now); nullopt when no voxel is observed (a new map, or regions with none). Reads
  // the voxels of every region that could widen the box found so far.
  // Threads: as every Mapper method, from one thread at a time (the thread that maps, or
  // after it, under the caller's lock); it waits for the GPU as the other reads do.
  std::optional<MapBounds> bounds();

  // Batched queries (voxen/query): on the GPU through a read-only region cache of
  // run.gpu.cacheBytes (a larger map is read in chunks), or on the CPU with the CPU
  // reference backend and for small batches (run.hostQueryVoxels); the answers are the same
  // bit for bit. One answer per item, in order. The map is read again after it changed
  // (rays, clearance), never stale.
  std::vector<OccupancyAnswer> occupancy(std::span<const glm::dvec3> points);
  std::vector<RayHit> raycast(std::span<const QueryRay> rays, const RaycastOptions& options = {});
  // Trilinear clearance with its gradient. Throws Error when the map has no clearance layer.
  std::vector<ClearanceSample> clearance(std::span<const glm::dvec3> points);
  BoxVoxels voxelsInBox(const QueryBox& box, VoxelClass voxelClass);
  // The same, answers written into the caller's memory (element i for item i; the span must
  // hold at least one per item, QueryOutputError otherwise): on the GPU, read back straight
  // into it (GpuQueries' span overloads); small batches on the CPU are copied in.
  void occupancy(std::span<const glm::dvec3> points, std::span<OccupancyAnswer> answers);
  void raycast(std::span<const QueryRay> rays, std::span<RayHit> hits, const RaycastOptions& options = {});
  void clearance(std::span<const glm::dvec3> points, std::span<ClearanceSample> samples);

  // Collision and distance queries for planners (semantics, statuses and limits:
  // voxen/query/collision_types.hpp): spheres of one radius (metres) at points, spheres swept
  // along paths (path i is points[offsets[i] .. offsets[i + 1]), at least two points each;
  // offsets has one entry more than paths, from 0 to points.size()), yawed boxes of one
  // size at poses, and the nearest occupied voxel centre within maxRange metres with its
  // signed distance. On the GPU, or on the CPU for the CPU reference backend and small
  // batches (run.hostQueryVoxels), bit for bit the same. Bad input throws QueryInputError
  // naming the item.
  std::vector<CollisionAnswer> sphereCollisions(std::span<const glm::dvec3> points, double radius,
                                                UnknownSpace unknown = UnknownSpace::Occupied);
  std::vector<PathAnswer> pathCollisions(std::span<const glm::dvec3> points, std::span<const uint64_t> offsets,
                                         double radius, UnknownSpace unknown = UnknownSpace::Occupied);
  std::vector<CollisionAnswer> boxCollisions(std::span<const BoxPose> poses, const glm::dvec3& size,
                                             UnknownSpace unknown = UnknownSpace::Occupied);
  std::vector<NearestAnswer> nearestObstacles(std::span<const glm::dvec3> points, double maxRange);

  // Each voxel's distance to the nearest obstacle within options.range, as the map's
  // clearance layer (voxen/clearance/clearance.hpp): on the GPU, or with the CPU reference
  // backend, exactly on the CPU. A map with a TSDF layer first takes occupancy from its surface
  // where rays observed nothing (voxen/tsdf/tsdf_occupancy.hpp: occupied on and behind it),
  // and then, with unscaled axes and no heights ignored, the clearance in front of the surface
  // takes the TSDF's sub-voxel distance where it is lower (refineClearanceFromTsdf: exact on
  // planes, an estimate capped by the voxel distance elsewhere; ClearanceStats::subVoxelRefined
  // counts them). Throws ClearanceSettingsError for settings that cannot work and Error when
  // the GPU's blocks or cache do not fit the memory budget.
  ClearanceStats computeClearance(const ClearanceOptions& options = {}, const ClearanceRunOptions& run = {});

  // Writes the map (atomically: a reader sees the old file or the new one).
  void save(const std::filesystem::path& path, const MapSaveOptions& options = {});
  // renderMap(context(), map(), options).
  RenderImage render(const RenderOptions& options = {});

  // A compute pass of the program's own (voxen/map/map_pass.hpp: MapPass) over every region
  // of the map in memory, on the Mapper's scheduler: the Mapper adds the layers the pass
  // writes when the map lacks them (zero), brings the map's regions into a GPU region cache
  // of run.gpu.cacheBytes in chunks, each with the regions within the pass's halo resident
  // beside it (read; a region the map lacks reads as unobserved, as in every map pass),
  // dispatches one thread per voxel of the chunk, and copies what the pass wrote into the
  // host map. The answer does not depend on the chunking as long as the pass writes only
  // its own voxel's values and reads no layer it writes outside its own voxel. Throws Error
  // when one region and its halo do not fit the cache (naming GpuIntegratorOptions::cacheBytes)
  // and for a kernel the Context's shader library does not have.
  MapPassStats runPass(MapPass& pass);

  // The heightmap of the map as it is now (voxen/heightmap/heightmap.hpp: per 2D column the
  // surfaces a robot of options.robotHeight can stand on, with slope, steps and cost): rays
  // still in flight are synced first; then on the GPU through the Mapper's scheduler (a
  // read-only region cache of run.gpu.cacheBytes, apart from the integrator's, which stays),
  // or with the CPU reference under MapperBackend::CpuReference: the same cells, bit for bit.
  // Incremental (voxen/heightmap/heightmap_tracker.hpp): a call with the same options as the
  // last computes only the region columns whose regions changed since (on the host, whose
  // cells are the same), the first call, new options, or a map changed in most columns the
  // whole heightmap. The map is not changed. Throws SettingError naming HeightmapOptions' field for options
  // that cannot work, and Error for a map with no occupied voxel.
  Heightmap heightmap(const HeightmapOptions& options = {});

  // Mapping thread: a depth camera's frame into the map's TSDF layer (voxen/tsdf/tsdf.hpp:
  // projective integration of truncated signed distances and weights; the map gains the layer
  // at the first frame), on the Mapper's GPU (voxen/tsdf/gpu_tsdf.hpp), or with the CPU
  // reference under MapperBackend::CpuReference: the same voxels, bit for bit. `options` must
  // match those the map's tsdf layer was made with (SettingError naming TsdfOptions' field
  // otherwise; Error for a frame that cannot be used, leaving the map as it was). Rays and
  // depth frames may alternate: each kind's GPU integrator is synced and retired before the
  // other's runs. The statistics' voxelsUpdated and regionsMade are counted by the CPU
  // reference only (0 on the GPU). A frame's colour (DepthFrame::colour) is folded into the
  // tsdf_colour layer beside the distances, which the Mapper must be made with
  // (MapperOptions::extraLayers holding kTsdfColourLayer; Error otherwise, before any change).
  TsdfFrameStats integrateDepth(const DepthFrame& frame, const TsdfOptions& options = {});

  // Mapping thread: one lidar scan's rays into the map's TSDF layer (voxen/tsdf/tsdf_rays.hpp:
  // ray integration, the band around each hit; the map gains the layer at the first scan), on
  // the Mapper's GPU (voxen/tsdf/gpu_tsdf_rays.hpp, an integrator kept between scans with the
  // same options, whose regions reach the host map at the next read of it, as depth frames')
  // or with the CPU reference, the same voxels bit for bit. A call is one
  // scan: its rays' measurements of a voxel fold once, as their weighted mean, so the map
  // depends on how rays are split into calls, never on the order within one. Throws as
  // integrateDepth for options; rays without a measurement (beyond maxRange, length 0) are
  // counted, not refused. voxelsUpdated and regionsMade are counted by the CPU reference only.
  TsdfScanStats integrateCloudTsdf(std::span<const Ray> scan, const TsdfOptions& options = {});

  // Mapping thread: the mesh of the map's TSDF (voxen/tsdf/tsdf_mesh.hpp: marching cubes at
  // distance 0, one vertex per crossed voxel edge, normals from the TSDF's gradient), depth
  // frames in flight synced first; on the GPU, or with the CPU reference under
  // MapperBackend::CpuReference: the same mesh. Incremental: a call with the same options as the
  // last meshes again only the blocks of regions that changed since (and their neighbours).
  // Throws Error for a map without the tsdf layer, SettingError naming TsdfMeshOptions' field
  // for options that cannot work.
  TsdfMesh mesh(const TsdfMeshOptions& options = {});

 private:
  struct Impl;
  // The state, checked: an empty Mapper's calls throw Error instead of dereferencing null.
  class State {
   public:
    State() noexcept;
    State(std::unique_ptr<Impl> impl) noexcept;  // NOLINT: a Mapper's state from its Impl
    ~State();
    State(State&&) noexcept;
    State& operator=(State&&) noexcept;
    Impl* operator->() const;  // throws Error on an empty Mapper
    Impl& operator*() const { return *operator->(); }
    bool empty() const noexcept { return !impl_; }

   private:
    std::unique_ptr<Impl> impl_;
  };
  explicit Mapper(std::unique_ptr<Impl> impl);
  State impl_;
};

}  // namespace voxen
