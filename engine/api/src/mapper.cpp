#include "voxen/mapper.hpp"

#include <algorithm>

#include "mapper_impl.hpp"
#include "voxen/tsdf/tsdf_occupancy.hpp"
#include "query_reads.hpp"
#include "render_map_on.hpp"
#include "snapshot_state.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/trajectory.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/query/cpu_queries.hpp"

namespace voxen {

void addIntegrationStats(IntegrationStats& into, IntegrationStats more, uint64_t indexBase) {
  if (more.firstRejected) more.firstRejected->index += indexBase;
  into += more;
}

namespace {

// The integration options the backend runs: NDT on the GPU only in two-phase order.
MapperRunOptions settled(MapperRunOptions run) {
  checkDecaySetting(run);
  const NdtModel& ndt = run.integration.ndt;
  if (ndt.mode != NdtMode::Off) {
    ndt.validate();
    if (run.integration.flags.has(RayFlag::StopOnFirstOccupied))
      throw SettingError(SettingError::Kind::Invalid, "IntegrationOptions::flags", "the ray flags",
                         "NDT does not support {} with RayFlag::StopOnFirstOccupied");
    if (run.backend == MapperBackend::Gpu) run.integration.order = UpdateOrder::TwoPhase;
  }
  return run;
}

// The host map's share of the memory budget: what the GPU region caches leave (on a CPU
// driver the cache is host memory too). A new map that could not hold one region is
// refused; a loaded one, which may only be read, gets no room to grow instead (its first
// new region is refused with the hint).
void limitRegions(OccupancyMap& map, const Context& context, const MapperRunOptions& run, bool refuseNoRoom) {
  const uint64_t budget = context.memoryBudgetBytes();
  const uint64_t cache =
      run.backend == MapperBackend::Gpu ? run.gpu.cacheBytes * (run.reserveClearanceCache ? 2 : 1) : 0;
  if (cache >= budget && refuseNoRoom)
    throw SettingError(SettingError::Kind::Change, "GpuIntegratorOptions::cacheBytes", "the GPU region cache",
                       "the GPU region cache" + std::string(run.reserveClearanceCache ? " (twice: the clearance's too)" : "") +
                           " leaves nothing of the memory budget of " + std::to_string(budget >> 20) +
                           " MB for the map: lower {} or " + context.memoryHint(),
                       std::to_string(run.gpu.cacheBytes >> 20) + " MiB");
  const std::string hint = !run.regionLimitHint.empty() ? run.regionLimitHint
                           : run.integration.maxRange > 0.0
                               ? context.memoryHint()
                               : context.memoryHint() + " or set IntegrationOptions::maxRange";
  map.setRegionLimit(cache >= budget ? 0 : (budget - cache) / map.bytesPerRegion(), hint);
}

// NDT integration adds to the map's NDT layers: a map without them (or with OM's for TM)
// cannot take it. `name` is the file or "the map".
void requireNdtLayers(const OccupancyMap& map, const MapperRunOptions& run, const std::string& name) {
  const NdtMode wanted = run.integration.ndt.mode, has = ndtModeOf(map.layout());
  if (wanted != NdtMode::Off && (has == NdtMode::Off || (wanted == NdtMode::Tm && has != NdtMode::Tm)))
    throw Error(name + ": NDT-" + std::string(wanted == NdtMode::Om ? "OM" : "TM") +
                " integration needs the map's NDT layers, and it has " + map.layout().names());
}

// What `run` integrates into besides occupancy: NDT's layers and decay's touch times.
// `name` is the file or "the map".
void requireRunLayers(const OccupancyMap& map, const MapperRunOptions& run, const std::string& name) {
  requireNdtLayers(map, run, name);
  requireDecayLayer(map, run, name);
}

// A map file read against the Context's memory budget, with the layers `run` needs (errors
// name the file); its room to grow is the caller's (limitRegions).
OccupancyMap readMapFile(const Context& context, const std::filesystem::path& path, const MapperRunOptions& run) {
  MapLoadOptions load;
  load.memoryBudgetBytes = context.memoryBudgetBytes();
  load.budgetHint = context.memoryHint();
  OccupancyMap map = loadMap(path, load);
  requireRunLayers(map, run, path.string());
  return map;
}

}  // namespace

Mapper::Impl::Impl(Context& context_, OccupancyMap map_, MapperRunOptions run_)
    : context(&context_), run(std::move(run_)), map(std::move(map_)) {
  QueryLaneSettings lane_;
  lane_.cacheBytes = run.gpu.cacheBytes;
  lane_.hostQueryVoxels = run.hostQueryVoxels;
  lane_.cpuOnly = run.backend == MapperBackend::CpuReference;
  lane = std::make_shared<QueryLane>(*context, lane_);
  publish();  // the map it starts from (empty, or the file's): query threads see it at once
}

Scheduler& Mapper::Impl::scheduler() {
  if (!ownScheduler) ownScheduler = context->makeScheduler();
  return *ownScheduler;
}

void Mapper::Impl::publish() {
  if (!changedSincePublished && published.valid()) return;
  auto state = std::make_shared<MapSnapshot::State>();
  OccupancyMap copy = map;
  copy.setRegionSource(nullptr);  // a snapshot reads what it holds; paging stays with the Mapper
  state->map = std::make_shared<const OccupancyMap>(std::move(copy));
  state->lane = lane;
  const std::lock_guard lock(publishMutex);
  state->version = published.valid() ? published.version() + 1 : 1;
  published = MapSnapshot(std::move(state));
  changedSincePublished = false;
}

GpuIntegrator* Mapper::Impl::gpu() {
  if (run.backend != MapperBackend::Gpu) return nullptr;
  if (gpuStale) {
    retireGpu();
    gpuStale = false;
  }
  retireTsdfGpu();  // their caches hold copies of the regions the rays will change
  retireTsdfRayGpu();
  if (!gpuIntegrator) {
    gpuIntegrator = std::make_unique<GpuIntegrator>(scheduler(), map, run.integration, run.gpu);
    gpuHoldsClearance = map.layout().has(clearanceLayer());
  }
  return gpuIntegrator.get();
}

GpuQueries& Mapper::Impl::queries() {
  sync();
  // The queries' own read-only cache (as large as the mapping's at most; GpuQueries sizes it
  // to the map) is made once and re-planned when the map changed.
  if (!gpuQueries) {
    QueryOptions options;
    options.cacheBytes = run.gpu.cacheBytes;
    gpuQueries = std::make_unique<GpuQueries>(scheduler(), map, options);
  } else if (queriesStale) {
    gpuQueries->refresh();
  }
  queriesStale = false;
  return *gpuQueries;
}

// The lane's rule, set from the same run options: the Mapper's own queries and its
// snapshots' choose the CPU alike.
bool Mapper::Impl::queryOnHost(uint64_t voxels) const { return lane->onHost(voxels); }

CpuIntegrator& Mapper::Impl::cpu() {
  if (!cpuIntegrator) cpuIntegrator = std::make_unique<CpuIntegrator>(map, run.integration);
  return *cpuIntegrator;
}

void Mapper::Impl::sync() {
  if (tsdfUnsynced && tsdfIntegrator) tsdfIntegrator->sync();
  tsdfUnsynced = false;
  if (tsdfRaysUnsynced && tsdfRayIntegrator) tsdfRayIntegrator->sync();
  tsdfRaysUnsynced = false;
  if (!unsynced || !gpuIntegrator) return;
  gpuIntegrator->finish();
  unsynced = false;
}

void Mapper::Impl::retireGpu() {
  retireRayGpu();
  retireTsdfGpu();
  retireTsdfRayGpu();
}

void Mapper::Impl::retireTsdfGpu() {
  if (!tsdfIntegrator) return;
  sync();
  tsdfIntegrator.reset();
}

void Mapper::Impl::retireTsdfRayGpu() {
  if (!tsdfRayIntegrator) return;
  sync();
  tsdfRayIntegrator.reset();
}

void Mapper::Impl::retireRayGpu() {
  if (!gpuIntegrator) return;
  sync();
  const IntegrationStats& done = gpuIntegrator->stats();
  addIntegrationStats(retired, done, retired.rays + retired.rejectedRays);
  retiredTimes += gpuIntegrator->hostStageTimes();
  gpuIntegrator.reset();
}

IntegrationStats Mapper::Impl::integrationStats() const {
  IntegrationStats all = retired;
  const uint64_t base = retired.rays + retired.rejectedRays;
  if (gpuIntegrator) addIntegrationStats(all, gpuIntegrator->stats(), base);
  if (cpuIntegrator) addIntegrationStats(all, cpuIntegrator->stats(), base);
  return all;
}

Mapper::State::State() noexcept = default;
Mapper::State::State(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
Mapper::State::~State() = default;
Mapper::State::State(State&&) noexcept = default;
Mapper::State& Mapper::State::operator=(State&&) noexcept = default;

Mapper::Impl* Mapper::State::operator->() const {
  if (!impl_)
    throw Error("voxen::Mapper: this Mapper is empty (default-constructed or moved from) and has no map: assign it one "
                "(Mapper(context, options), Mapper::load(context, path) or Mapper::fromMap(context, map)) first");
  return impl_.get();
}

Mapper::Mapper() noexcept = default;

Mapper::Mapper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

bool Mapper::empty() const noexcept { return impl_.empty(); }

Mapper::Mapper(Context& context, MapperOptions options) {
  const OccupancyModel& model = options.model;
  model.validate();
  const MapperRunOptions run = settled(options.run);
  // Decay reads when each voxel was last touched: the map gets the touch-time layer.
  const LayerSet decayLayers = run.decaySeconds ? LayerSet{kTouchTimeLayer} : LayerSet{};
  OccupancyMap map(model, ndtLayout(run.integration.ndt.mode, MapLayout::of(options.extraLayers | decayLayers)));
  limitRegions(map, context, run, true);
  impl_ = std::make_unique<Impl>(context, std::move(map), run);
}

Mapper Mapper::load(Context& context, const std::filesystem::path& path, MapperRunOptions run) {
  run = settled(run);
  OccupancyMap map = readMapFile(context, path, run);
  limitRegions(map, context, run, false);
  return Mapper(std::make_unique<Impl>(context, std::move(map), run));
}

Mapper Mapper::fromMap(Context& context, OccupancyMap map, MapperRunOptions run) {
  run = settled(run);
  requireRunLayers(map, run, "the map");
  limitRegions(map, context, run, false);
  return Mapper(std::make_unique<Impl>(context, std::move(map), run));
}

void Mapper::load(const std::filesystem::path& path) {
  Impl& m = *impl_;
  if (m.map.regionSource())
    throw Error("Mapper::load(" + path.string() + "): the map pages regions out to a region source; load a file into a "
                "Mapper without one (setRegionSource(nullptr) first, after saving what the source should keep)");
  // Read first: a file that fails to load leaves the Mapper as it was.
  OccupancyMap loaded = readMapFile(*m.context, path, m.run);
  limitRegions(loaded, *m.context, m.run, false);
  // Integrators, queries, the clearance's baseline and the decay's clock describe the old
  // map: finish and drop them, as a Mapper::load starts without them.
  m.sync();
  m.gpuIntegrator.reset();
  m.cpuIntegrator.reset();
  m.gpuQueries.reset();
  m.heightmapTracker.reset();  // the map is replaced in place: its stamps start again
  m.tsdfIntegrator.reset();
  m.tsdfRayIntegrator.reset();
  m.meshTracker.reset();
  m.unsynced = m.gpuStale = m.queriesStale = m.gpuHoldsClearance = m.tsdfUnsynced = m.tsdfRaysUnsynced = false;
  m.clearanceBaseline.reset();
  m.newestRayTime = -std::numeric_limits<double>::infinity();
  m.retired = {};
  m.retiredTimes = {};
  m.map = std::move(loaded);
  m.changedSincePublished = true;
  m.publish();
}

Mapper::~Mapper() = default;
Mapper::Mapper(Mapper&&) noexcept = default;
Mapper& Mapper::operator=(Mapper&&) noexcept = default;

void Mapper::integrate(std::span<const Ray> rays) {
  impl_->queriesStale = true;
  impl_->changedSincePublished = true;
  impl_->noteRayTimes(rays);  // occupancy decay (mapper_decay.cpp): before the rays and after
  impl_->applyDecay();
  if (GpuIntegrator* gpu = impl_->gpu()) {
    gpu->integrate(rays);
    impl_->unsynced = true;
  } else {
    impl_->cpu().integrate(rays);
  }
  impl_->applyDecay();
  applyMapperWindow(*this, impl_->map, rays, [this] { impl_->retireGpu(); });
}

void Mapper::integrateRays(std::span<const glm::dvec3> origins, std::span<const glm::dvec3> ends) {
  if (origins.size() != ends.size())
    throw Error("integrateRays: " + std::to_string(origins.size()) + " origins and " + std::to_string(ends.size()) +
                " ends: one origin per end");
  std::vector<Ray> rays(origins.size());
  for (size_t i = 0; i < rays.size(); ++i) rays[i].origin = origins[i], rays[i].sample = ends[i];
  integrate(rays);
}

CloudStats Mapper::integrateCloud(std::span<const glm::dvec3> points, std::span<const double> times,
                                  const Trajectory& trajectory) {
  if (points.size() != times.size())
    throw Error("integrateCloud: " + std::to_string(points.size()) + " points and " + std::to_string(times.size()) +
                " times: one time per point");
  CloudStats stats;
  stats.points = points.size();
  std::vector<Ray> rays;
  rays.reserve(points.size());
  size_t hint = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const std::optional<glm::dvec3> origin = trajectory.tryPositionAt(times[i], hint);
    if (!origin) {
      ++stats.skippedOutsideTrajectory;
      continue;
    }
    rays.push_back({*origin, points[i], times[i]});
  }
  stats.rays = rays.size();
  integrate(rays);
  return stats;
}

void Mapper::flush() {
  if (impl_->gpuIntegrator) impl_->gpuIntegrator->sync();
}

void Mapper::sync() { impl_->sync(); }

void Mapper::setRegionSource(RegionSource* source) { impl_->map.setRegionSource(source); }

MapSnapshot Mapper::snapshot() {
  impl_->sync();
  impl_->publish();
  return latestSnapshot();
}

MapSnapshot Mapper::latestSnapshot() const {
  const std::lock_guard lock(impl_->publishMutex);
  return impl_->published;
}

Scheduler& Mapper::scheduler() { return impl_->scheduler(); }

const OccupancyMap& Mapper::map() {
  impl_->sync();
  return impl_->map;
}

MapperStats Mapper::stats() {
  impl_->sync();
  return {impl_->integrationStats(), impl_->map.counts()};
}

IntegrationStats Mapper::submittedStats() const { return impl_->integrationStats(); }

HostStageTimes Mapper::hostStageTimes() const {
  HostStageTimes t = impl_->retiredTimes;
  if (impl_->gpuIntegrator) t += impl_->gpuIntegrator->hostStageTimes();
  return t;
}

const MapperRunOptions& Mapper::runOptions() const { return impl_->run; }

Context& Mapper::context() { return *impl_->context; }

OccupancySample Mapper::occupancyAt(const glm::dvec3& point) { return occupancyAt(map().voxelAt(point)); }

OccupancySample Mapper::occupancyAt(const VoxelCoord& voxel) {
  const OccupancyMap& m = map();
  OccupancySample sample;
  sample.voxel = voxel;
  sample.logOdds = m.value(voxel);
  sample.voxelClass = m.classify(sample.logOdds);
  return sample;
}

std::optional<float> Mapper::clearanceAt(const glm::dvec3& point) { return clearanceAt(map().voxelAt(point)); }

std::optional<float> Mapper::clearanceAt(const VoxelCoord& voxel) {
  const OccupancyMap& m = map();
  const LayerId layer = clearanceLayer();
  if (!m.layout().has(layer))
    throw Error("clearanceAt: the map has no clearance layer (Mapper::computeClearance computes it)");
  const Region* region = m.findRegion(m.regionOf(voxel));
  if (!region) return std::nullopt;
  return region->values<float>(layer)[m.localIndex(voxel)];
}

ClearanceStats Mapper::computeClearance(const ClearanceOptions& options, const ClearanceRunOptions& runOptions) {
  impl_->sync();
  impl_->queriesStale = true;
  impl_->changedSincePublished = true;
  OccupancyMap& m = impl_->map;
  options.validate(m.model());
  const bool tsdf = m.layers().has(kTsdfLayer);
  if (tsdf) {  // the depth frames' surface is what the clearance measures from
    impl_->retireGpu();  // the integrators' caches hold the occupancy this changes
    occupancyFromTsdf(m);
  }
  // The exact distances from the obstacle voxels' centres, on the CPU reference or the GPU.
  const auto edt = [&]() -> ClearanceStats {
    if (impl_->run.backend == MapperBackend::CpuReference)
      return runOptions.onlyOutOfDate ? updateClearanceCpu(m, options, runOptions.progress)
                                      : computeClearanceCpu(m, options, {}, runOptions.progress);
    // The GPU's cache and blocks get what the budget leaves after the host map with its
    // clearance layer and the integrator's cache, which stays allocated (kept for the next
    // rays, or replaced then when it holds the clearance layer: gpuHoldsClearance).
    const uint64_t reserved = impl_->gpuIntegrator ? impl_->run.gpu.cacheBytes : 0;
    const uint64_t clearanceBytes = m.layout().has(clearanceLayer()) ? 0 : 4 * uint64_t(m.voxelsPerRegion());
    const uint64_t mapBytes = uint64_t(m.regions().size()) * (m.bytesPerRegion() + clearanceBytes);
    const uint64_t budget = impl_->context->memoryBudgetBytes();
    if (mapBytes + reserved >= budget)
      throw Error("clearance: the map (" + mebibytes(mapBytes) + " with its clearance layer)" +
                  (reserved ? " and the mapping's GPU cache (" + mebibytes(reserved) + ")" : std::string()) +
                  " leave nothing of the memory budget of " + mebibytes(budget) + " for the GPU clearance: " +
                  impl_->context->memoryHint());
    // The clearance writes only its own layer of the host map (the occupancy it copies back
    // is what it read, the integrator's synced copy), so an integrator whose cache lacks that
    // layer stays valid and keeps its resident regions for the next scan.
    if (impl_->gpuIntegrator && impl_->gpuHoldsClearance) impl_->gpuStale = true;
    GpuClearanceOptions gpu;
    gpu.memoryLimitBytes = budget - mapBytes - reserved;
    gpu.memoryHint = impl_->context->memoryHint();
    gpu.cacheBytes = runOptions.cacheBytes > 0 ? runOptions.cacheBytes : impl_->run.gpu.cacheBytes;
    gpu.progress = runOptions.progress;
    GpuClearance clearance(impl_->scheduler(), m, options, gpu);
    if (runOptions.onStart) runOptions.onStart(clearance);
    // An update after one that left every region up to date: only what the obstacle voxels
    // changed since reach (parts of regions where the technique computes them exactly).
    std::optional<ClearancePlan> plan;
    if (runOptions.onlyOutOfDate && impl_->clearanceBaseline)
      plan = planClearanceUpdate(m, options, *impl_->clearanceBaseline, clearanceComputesParts(m.model(), options));
    impl_->clearanceBaseline.reset();  // until this computation completes
    const ClearanceStats stats = plan                        ? clearance.computeParts(plan->targets)
                                 : runOptions.onlyOutOfDate ? clearance.update()
                                                            : clearance.compute();
    impl_->clearanceBaseline = clearanceBaseline(m, options);
    return stats;
  };
  ClearanceStats stats = edt();
  // A TSDF's clearance near the surface, sub-voxel where the TSDF gives it (on the host, after
  // either backend: the same values), where the EDT measures plain distances.
  if (tsdf && options.axisScale == glm::dvec3(1.0) && !options.ignoreBelow && !options.ignoreAbove)
    stats.subVoxelRefined = refineClearanceFromTsdf(m, options.range).refined;
  return stats;
}

// The CPU answers on the host map after sync(), which is what GpuQueries loads (queries()
// syncs first too): the same map, so the same answers as the GPU's.
std::vector<OccupancyAnswer> Mapper::occupancy(std::span<const glm::dvec3> points) {
  const uint64_t limit = impl_->run.hostQueryVoxels;
  if (impl_->queryOnHost(pointReads(points.size(), 1, limit))) return cpuOccupancy(map(), points);
  return impl_->queries().occupancy(points);
}

std::vector<RayHit> Mapper::raycast(std::span<const QueryRay> rays, const RaycastOptions& options) {
  const uint64_t limit = impl_->run.hostQueryVoxels;
  if (impl_->queryOnHost(raycastReads(impl_->map.model().resolution, rays, limit))) return cpuRaycast(map(), rays, options);
  return impl_->queries().raycast(rays, options);
}

std::vector<ClearanceSample> Mapper::clearance(std::span<const glm::dvec3> points) {
  const uint64_t limit = impl_->run.hostQueryVoxels;
  if (impl_->queryOnHost(pointReads(points.size(), 8, limit))) return cpuClearance(map(), points);
  return impl_->queries().clearance(points);
}

BoxVoxels Mapper::voxelsInBox(const QueryBox& box, VoxelClass voxelClass) {
  const uint64_t limit = impl_->run.hostQueryVoxels;
  if (impl_->queryOnHost(boxReads(impl_->map.model().resolution, box, limit))) return cpuVoxelsInBox(map(), box, voxelClass);
  return impl_->queries().voxelsInBox(box, voxelClass);
}

// Small batches answer on the CPU and are copied into the span; the GPU reads back into it.
void Mapper::occupancy(std::span<const glm::dvec3> points, std::span<OccupancyAnswer> answers) {
  checkAnswerRoom("Mapper", "occupancy", "points", points.size(), answers.size());
  const uint64_t limit = impl_->run.hostQueryVoxels;
  if (!impl_->queryOnHost(pointReads(points.size(), 1, limit))) return impl_->queries().occupancy(points, answers);
  const std::vector<OccupancyAnswer> host = cpuOccupancy(map(), points);
  std::copy(host.begin(), host.end(), answers.begin());
}

void Mapper::raycast(std::span<const QueryRay> rays, std::span<RayHit> hits, const RaycastOptions& options) {
  checkAnswerRoom("Mapper", "raycast", "rays", rays.size(), hits.size());
  const uint64_t limit = impl_->run.hostQueryVoxels;
  if (!impl_->queryOnHost(raycastReads(impl_->map.model().resolution, rays, limit)))
    return impl_->queries().raycast(rays, hits, options);
  const std::vector<RayHit> host = cpuRaycast(map(), rays, options);
  std::copy(host.begin(), host.end(), hits.begin());
}

void Mapper::clearance(std::span<const glm::dvec3> points, std::span<ClearanceSample> samples) {
  checkAnswerRoom("Mapper", "clearance", "points", points.size(), samples.size());
  const uint64_t limit = impl_->run.hostQueryVoxels;
  if (!impl_->queryOnHost(pointReads(points.size(), 8, limit))) return impl_->queries().clearance(points, samples);
  const std::vector<ClearanceSample> host = cpuClearance(map(), points);
  std::copy(host.begin(), host.end(), samples.begin());
}

void Mapper::save(const std::filesystem::path& path, const MapSaveOptions& options) { saveMap(map(), path, options); }

RenderImage Mapper::render(const RenderOptions& options) {
  return renderMapOn(*impl_->context, impl_->scheduler(), map(), options);
}

}  // namespace voxen
