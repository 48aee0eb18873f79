// MappingRun: the input opened, the Mapper and the store set up, the rays integrated between
// the store's checkpoints, the clearance, the save and the statistics, in the order `voxen map`
// has always run them (so the map is the same byte for byte).
#include "voxen/mapping_run.hpp"

#include <algorithm>
#include <chrono>

#include "mapping_run_parts.hpp"
#include "voxen/context.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A store run stopped on request at a chunk boundary, after its checkpoint (not an
// std::exception: nothing on the way may take it for an error and reword it).
struct StoppedRun {
  MappingStop stop;
};

SettingError invalid(const std::string& field, const std::string& words, const std::string& text) {
  return SettingError(SettingError::Kind::Invalid, "MappingRunOptions::" + field, words, text);
}

// Exactly one destination; the clearance and a session only where they mean something.
void checkDestination(const MappingRunOptions& o) {
  if (o.output.empty() == o.store.empty())
    throw invalid("output", "the map file or store",
                  o.output.empty() ? "a run maps into a map file or a store: set {}" : "a run maps into a map file or a store, not both: {}");
  if (o.store.empty()) {
    if (o.resume) throw invalid("resume", "resuming", "{} continues a run in a store: set the store");
    return;
  }
  if (o.clearance)
    throw invalid("clearance", "the clearance", "{} is not computed into a store as it grows: compute it on the store afterwards");
  if (isPostgresTarget(o.store) && o.session.empty())
    throw invalid("session", "the session", "the store " + redactedStoreName(o.store) + " is a server: {} names this run's session");
  if (!isPostgresTarget(o.store) && !o.session.empty())
    throw invalid("session", "the session", "{} is for a server store; " + redactedStoreName(o.store) + " is a file with one run");
}

}  // namespace

struct MappingRun::Impl {
  MappingRunOptions options;
  Clock::time_point start = Clock::now();
  RunSettings fingerprints;
  std::unique_ptr<RayReader> reader;
  Context* context = nullptr;
  std::string device;  // deviceNameOf, once started
  MappingBackendChoice backend;  // settled by the constructor, from the opened input
  std::unique_ptr<Mapper> mapper;
  std::unique_ptr<StoreMapping> storeRun;

  void report(const MappingProgress& p) const {
    if (options.progress) options.progress(p);
  }
  bool gpu() const { return options.mapper.run.backend == MapperBackend::Gpu; }
  void openStore();
  FileIntegrationOptions fileOptions(MappingRunStats& stats, Clock::time_point integrationStart);
  void requireSomethingMapped();
  void computeClearance(MappingRunStats& stats);
  void fillStats(MappingRunStats& stats);
};

MappingRun::MappingRun(MappingRunOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = std::move(options);
  checkDestination(m.options);
  m.options.mapper.run.reserveClearanceCache = m.options.clearance.has_value();
  // Before the reader starts: the fingerprints read the inputs whole.
  if (!m.options.store.empty())
    m.fingerprints = inputFingerprints(m.options, [&m](const MappingProgress& p) { m.report(p); });
  // With worker threads, reading starts here, while the caller sets up the device.
  m.reader = std::make_unique<RayReader>(m.options.input, m.options.trajectory, m.options.reader);
  // Before anything opens the device: a run on the CPU reference opens none.
  m.backend = chooseMappingBackend(m.options, *m.reader);
}

MappingRun::~MappingRun() {
  // The Mapper goes before the store it pages to (its destructor copies the GPU's regions
  // into the host map, which may fetch).
  if (impl_ && impl_->mapper) {
    impl_->mapper->setRegionSource(nullptr);
    impl_->mapper.reset();
  }
}

void MappingRun::start(Context& context) {
  Impl& m = *impl_;
  m.context = &context;
  m.mapper = std::make_unique<Mapper>(context, m.options.mapper);
  // The device opened (a GPU run's Context opens it at first use) and the map read once, as
  // `voxen map` always did here: the integration's times, its first batch's among them, are
  // then the integration's own, not the device's start-up.
  m.device = deviceNameOf(context, m.mapper->runOptions());
  m.mapper->map();
  // Mapping into a store: opened (created, or checked against this run's model and layers)
  // before anything is read, so that a wrong store fails at once.
  if (!m.options.store.empty() && m.options.mapper.run.decaySeconds)  // mapper_decay.cpp: no region source yet
    throw SettingError(SettingError::Kind::Change, "MapperRunOptions::decaySeconds", "occupancy decay",
                       "{} does not work with a store mapping run yet (regions paged out to the store would miss the "
                       "forgetting): map into a file, or without decay");
  if (!m.options.store.empty()) m.openStore();
}

void MappingRun::Impl::openStore() {
  RunSettings settings = options.storeSettings.empty() ? mappingRunSettings(options) : options.storeSettings;
  settings.insert(settings.end(), fingerprints.begin(), fingerprints.end());
  const OccupancyMap& map = mapper->map();
  // The NDT settings the integrator will record in the map, recorded in the store's
  // description now (it is written when the store is made), so that merges know them.
  StoreDescription description = StoreDescription::of(map);
  const NdtModel& ndt = options.mapper.run.integration.ndt;
  if (ndt.mode != NdtMode::Off) description.derivedSettings[ndtCovarianceLayer()] = ndtRecordedSettings(ndt);
  std::unique_ptr<MapStore> store = openMapStoreForWriting(options.store, description, {.session = options.session});
  storeRun = options.resume ? StoreMapping::resume(std::move(store), settings, options.storeMapping)
                            : StoreMapping::start(std::move(store), settings, options.storeMapping, options.storeNotes);
  // The store is the map's region source from the first ray: regions come back from it.
  mapper->setRegionSource(storeRun.get());
}

FileIntegrationOptions MappingRun::Impl::fileOptions(MappingRunStats& stats, Clock::time_point integrationStart) {
  // Recordings count progress in bytes (their point counts are known only once read).
  const bool byBytes = reader->totalBytes() > 0;
  const uint64_t total = byBytes ? reader->totalBytes() : reader->totalPoints();
  const char* unit = byBytes ? "bytes" : "rays";
  // With threads to spare, workers also prepare the rays for the GPU, half as many as read
  // (preparing costs about as much as reading).
  const unsigned threads = options.reader.threads;
  FileIntegrationOptions file{.prepareThreads = threads > 1 ? std::max(1u, threads / 2) : 0u,
                              .progress = [this, &stats, integrationStart, byBytes, total, unit](uint64_t points) {
                                if (stats.firstBatchSeconds == 0) stats.firstBatchSeconds = secondsSince(integrationStart);
                                report({.stage = MappingProgress::Stage::Mapping, .done = byBytes ? reader->bytesRead() : points,
                                        .total = total, .unit = unit});
                              }};
  if (!storeRun) {
    if (options.betweenChunks) file.betweenChunks = options.betweenChunks;
    return file;
  }
  // A store run asked to stop checkpoints at the next chunk boundary and ends there.
  file.skipRays = storeRun->resumeRays();
  file.betweenChunks = [this](MapperChunkBoundary& b) {
    const int request = options.stopRequested ? options.stopRequested() : 0;
    if (request != 0 && !b.last())
      throw StoppedRun{{storeRun->checkpointNow(b.map(), b.raysTaken(), [&b] { b.sync(); }), b.raysTaken(), request}};
    if (b.raysTaken() == 0 && !b.last()) return;
    storeRun->betweenChunks(b.map(), b.raysTaken(), b.last(), [&b] { b.sync(); });
    if (options.betweenChunks) options.betweenChunks(b);
  };
  return file;
}

// A map of nothing is almost always a wrong input (times, fields, units, poses): fail loudly
// rather than write an empty map that looks like a result. Empty is what the map holds after
// every skip and rejection: no voxel updated (a resumed run's store may hold the voxels of
// the run it continues).
void MappingRun::Impl::requireSomethingMapped() {
  const IntegrationStats submitted = mapper->submittedStats();
  if (options.allowEmpty || submitted.voxelUpdates != 0) return;
  const OccupancyMap::Counts held = storeRun ? storeRun->counts() : mapper->map().counts();
  if (held.occupied + held.free != 0) return;
  const std::string why = reader->summary() + ": no voxel was updated: " + std::to_string(reader->stats().points) + " points read, " +
                          std::to_string(reader->stats().rays) + " rays";
  const std::string where = storeRun ? "; the store " + redactedStoreName(options.store) + " holds an empty map"
                                     : "; so nothing was written to " + options.output.string();
  throw EmptyMappingError(why + where + " (MappingRunOptions::allowEmpty accepts it)", reader->stats(), submitted, bool(storeRun));
}

void MappingRun::Impl::computeClearance(MappingRunStats& stats) {
  // The mapping is saved first: whatever happens to the clearance, the mapped work is kept.
  mapper->save(options.output);
  try {
    report({.stage = MappingProgress::Stage::Clearance, .total = mapper->map().regions().size(), .unit = "regions"});
    const uint64_t total = mapper->map().regions().size();
    stats.clearance = mapper->computeClearance(
        *options.clearance, {.cacheBytes = options.mapper.run.gpu.cacheBytes, .progress = [this, total](uint64_t done, uint64_t) {
                               report({.stage = MappingProgress::Stage::Clearance, .done = done, .total = total, .unit = "regions"});
                             }});
    report({.stage = MappingProgress::Stage::Clearance, .done = stats.clearance.regions, .total = total, .unit = "regions",
            .finished = true});
  } catch (const std::exception& e) {
    throw MappingClearanceError(e.what(), options.output.string());
  }
}

MappingRunStats MappingRun::run() {
  Impl& m = *impl_;
  if (!m.mapper) throw Error("MappingRun::run: call start(context) first");
  MappingRunStats stats;
  const auto integrationStart = Clock::now();
  const bool byBytes = m.reader->totalBytes() > 0;
  const uint64_t total = byBytes ? m.reader->totalBytes() : m.reader->totalPoints();
  const char* unit = byBytes ? "bytes" : "rays";
  m.report({.stage = MappingProgress::Stage::Mapping, .total = total, .unit = unit});
  try {
    m.mapper->integrateFile(*m.reader, m.fileOptions(stats, integrationStart));
  } catch (const StoppedRun& stopped) {
    stats.stopped = stopped.stop;
    stats.store = MappingStoreStats{m.storeRun->resumed(), m.storeRun->resumeRays(), m.storeRun->stats()};
    return stats;
  }
  m.mapper->sync();
  stats.syncSeconds = secondsSince(integrationStart) - stats.firstBatchSeconds;
  m.report({.stage = MappingProgress::Stage::Mapping, .done = byBytes ? m.reader->bytesRead() : m.reader->stats().points,
            .total = total, .unit = unit, .finished = true});
  stats.integrateSeconds = secondsSince(m.start);
  m.requireSomethingMapped();
  if (m.options.clearance) m.computeClearance(stats);
  if (!m.storeRun) m.mapper->save(m.options.output);
  stats.wallSeconds = secondsSince(m.start);
  m.fillStats(stats);
  return stats;
}

void MappingRun::Impl::fillStats(MappingRunStats& stats) {
  const MapperStats mapped = mapper->stats();
  stats.inputSummary = reader->summary();
  stats.load = reader->stats();
  stats.inputWarnings = reader->warnings();
  stats.integration = mapped.integration;
  // A store's map is not all in memory: its counts are the store's.
  stats.counts = storeRun ? storeRun->counts() : mapped.counts;
  // As the Mapper runs them (it settles the order NDT needs on the GPU).
  const MapperRunOptions& ran = mapper->runOptions();
  stats.gpu = gpu();
  stats.backend = backend;
  stats.device = device;
  stats.batchSize = batchSizeOf(ran);
  stats.order = ran.integration.order;
  stats.ndt = ran.integration.ndt.mode;
  if (options.clearance) stats.clearanceRange = options.clearance->range;
  stats.written = storeRun ? redactedStoreName(options.store) : options.output.string();  // a URL without its password
  stats.peakResidentMb = peakResidentMb();
  if (gpu()) stats.deviceMemory = deviceMemoryOf(context->device());
  if (storeRun) stats.store = MappingStoreStats{storeRun->resumed(), storeRun->resumeRays(), storeRun->stats()};
}

MappingRunStats MappingRun::map(Context& context, MappingRunOptions options) {
  MappingRun run(std::move(options));
  run.start(context);
  return run.run();
}

const MappingRunOptions& MappingRun::options() const { return impl_->options; }
RayReader& MappingRun::reader() { return *impl_->reader; }

Mapper& MappingRun::mapper() {
  if (!impl_->mapper) throw Error("MappingRun::mapper: call start(context) first");
  return *impl_->mapper;
}

bool MappingRun::resumed() const { return impl_->storeRun && impl_->storeRun->resumed(); }
uint64_t MappingRun::resumeRays() const { return impl_->storeRun ? impl_->storeRun->resumeRays() : 0; }
uint64_t MappingRun::batchSize() const { return batchSizeOf(impl_->options.mapper.run); }

const MappingBackendChoice& MappingRun::backendChoice() const { return impl_->backend; }

std::string MappingRun::deviceName() const {
  if (!impl_->mapper) throw Error("MappingRun::deviceName: call start(context) first");
  return impl_->device;
}

}  // namespace voxen
