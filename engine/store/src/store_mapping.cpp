#include "voxen/store/store_mapping.hpp"

#include <algorithm>
#include <ctime>

#include "voxen/host/error.hpp"
#include "voxen/store/writer_process.hpp"

namespace voxen {

namespace {

// Run-state entries (MapStore::value): the run's progress and its settings.
constexpr const char* kStateKey = "run.state";        // "running" or "complete"
constexpr const char* kRaysKey = "run.rays";          // rays taken from the reader at the last checkpoint
constexpr const char* kCheckpointsKey = "run.checkpoints";
constexpr const char* kSavedAtKey = "run.saved_at";   // UTC time of the last checkpoint
// The process that started the run or last resumed it (WriterProcess).
constexpr const char* kWriterPidKey = "run.writer_pid";
constexpr const char* kWriterHostKey = "run.writer_host";
constexpr const char* kWriterStartedKey = "run.writer_started";
const std::string kSettingPrefix = "setting:";
const std::string kNotePrefix = "note:";
const std::string kContentSuffix = " (content)";

void addWriter(StoreBatch& batch) {
  const WriterProcess self = WriterProcess::self();
  batch.state.emplace_back(kWriterPidKey, std::to_string(self.pid));
  batch.state.emplace_back(kWriterHostKey, self.host);
  batch.state.emplace_back(kWriterStartedKey, self.started);
}

std::string valueOf(const RunSettings& settings, const std::string& name) {
  for (const auto& [setting, value] : settings)
    if (setting == name) return value;
  return {};
}

// A recorded setting that differs from this command's: refused naming the flag and both
// values, or, for an input's content fingerprint, as a changed file.
[[noreturn]] void refuseOtherSetting(const std::string& store, const RunSettings& settings, const std::string& setting,
                                     const std::optional<std::string>& recorded, const std::string& value) {
  if (setting.size() > kContentSuffix.size() && setting.ends_with(kContentSuffix)) {
    const std::string flag = setting.substr(0, setting.size() - kContentSuffix.size());
    const std::string path = valueOf(settings, flag);
    if (!recorded || recorded->empty())
      throw Error("the run in store '" + store + "' recorded no content fingerprint of " + flag + " " + path +
                  " (it was started by an earlier Voxen), so that the file cannot be checked to be the one it read: map it "
                  "into a new store");
    throw Error(flag + " " + path + " has changed since the run in store '" + store + "' started (its content fingerprint was " +
                *recorded + ", it is now " + value + "): resuming would give a map of neither version; restore the file, or "
                "map it into a new store");
  }
  throw Error("the run in store '" + store + "' was started with " + setting + " " +
              (recorded && !recorded->empty() ? *recorded : "(not given)") + ", this command gives " +
              (value.empty() ? "(not given)" : value) + ": give the same settings to continue it");
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

StoreMapping::StoreMapping(std::unique_ptr<MapStore> store, const StoreMappingOptions& options)
    : store_(std::move(store)), options_(options), shape_(store_->description().emptyMap()),
      lastCheckpoint_(std::chrono::steady_clock::now()) {
}

StoreMapping::~StoreMapping() = default;

std::unique_ptr<StoreMapping> StoreMapping::start(std::unique_ptr<MapStore> store, const RunSettings& settings,
                                                  const StoreMappingOptions& options, const RunSettings& notes) {
  const std::string name = store->name();
  if (const auto state = store->value(kStateKey))
    throw Error("store '" + name + "' already holds a mapping run (" + *state + ", " + store->value(kRaysKey).value_or("0") +
                " rays at its last checkpoint, " + store->value(kSavedAtKey).value_or("?") + "): " +
                (*state == "complete" ? "map into a new store" : "resume it, or map into a new store"));
  if (!store->keys().empty())
    throw Error("store '" + name + "' already holds a map (made by voxen convert or voxen merge): map into a new store");
  std::unique_ptr<StoreMapping> mapping(new StoreMapping(std::move(store), options));
  StoreBatch batch;
  batch.state = {{kStateKey, "running"}, {kRaysKey, "0"}, {kCheckpointsKey, "0"}, {kSavedAtKey, utcNow()}};
  for (const auto& [setting, value] : settings) batch.state.emplace_back(kSettingPrefix + setting, value);
  for (const auto& [note, value] : notes) batch.state.emplace_back(kNotePrefix + note, value);
  addWriter(batch);
  mapping->store_->write(batch);
  mapping->store_->foldLog();
  return mapping;
}

void StoreMapping::requireResumable(MapStore& store) {
  const std::string name = store.name();
  const auto state = store.value(kStateKey);
  if (!state) throw Error("store '" + name + "' holds no mapping run to resume (it was made by voxen convert or voxen merge, or is new)");
  if (*state == "complete") throw Error("the run in store '" + name + "' is complete: there is nothing to resume");
}

std::optional<std::string> StoreMapping::recordedNote(MapStore& store, const std::string& name) {
  return store.value(kNotePrefix + name);
}

std::optional<WriterProcess> StoreMapping::recordedWriter(MapStore& store) {
  const auto pid = store.value(kWriterPidKey);
  const auto host = store.value(kWriterHostKey);
  if (!pid || !host) return std::nullopt;
  WriterProcess writer;
  try {
    writer.pid = std::stoll(*pid);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  writer.host = *host;
  writer.started = store.value(kWriterStartedKey).value_or("");
  return writer;
}

std::unique_ptr<StoreMapping> StoreMapping::resume(std::unique_ptr<MapStore> store, const RunSettings& settings,
                                                   const StoreMappingOptions& options) {
  const std::string name = store->name();
  requireResumable(*store);
  for (const auto& [setting, value] : settings) {
    const auto recorded = store->value(kSettingPrefix + setting);
    if (recorded.value_or("") != value) refuseOtherSetting(name, settings, setting, recorded, value);
  }
  std::unique_ptr<StoreMapping> mapping(new StoreMapping(std::move(store), options));
  mapping->resumed_ = true;
  auto count = [&](const char* key) -> uint64_t {
    const std::string text = mapping->store_->value(key).value_or("0");
    try {
      return std::stoull(text);
    } catch (const std::exception&) {
      throw Error("store '" + name + "': run state '" + key + "' is '" + text + "', not a count");
    }
  };
  mapping->resumeRays_ = count(kRaysKey);
  mapping->earlierCheckpoints_ = count(kCheckpointsKey);
  // Every region's counts, from its occupancy row alone, so that the run's summary covers
  // the regions it never touches again.
  for (const RegionKey& key : mapping->store_->keys()) {
    const std::optional<Region> region = mapping->store_->readRegion(key, std::vector<LayerId>{kOccupancyLayer});
    mapping->stored_[key] = mapping->countsOf(*region);
  }
  // This process writes the run now.
  StoreBatch batch;
  addWriter(batch);
  mapping->store_->write(batch);
  mapping->store_->foldLog();
  return mapping;
}

std::optional<Region> StoreMapping::fetch(const RegionKey& key) {
  if (!stored_.contains(key)) return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<Region> region = store_->readRegion(key);
  if (!region) throw Error("store '" + store_->name() + "': region (" + std::to_string(key.x) + "," + std::to_string(key.y) + "," +
                           std::to_string(key.z) + ") was written by this run but is not in the store");
  ++stats_.fetches;
  stats_.fetchSeconds += secondsSince(t0);
  return region;
}

void StoreMapping::checkpoint(OccupancyMap& map, uint64_t raysTaken, bool last, const std::function<void()>& sync) {
  const auto t0 = std::chrono::steady_clock::now();
  sync();
  StoreBatch batch;
  std::vector<std::pair<RegionKey, RegionCounts>> written;
  for (const auto& [key, region] : map.regions()) {
    if (region.occupancyStamp <= map.savedCounter()) continue;
    batch.regions.push_back(&region);
    written.emplace_back(key, countsOf(region));
  }
  // Key order: a store's pages fill in order, and a server locks regions in one order.
  std::sort(batch.regions.begin(), batch.regions.end(), [](const Region* a, const Region* b) { return a->key < b->key; });
  batch.state = {{kStateKey, last ? "complete" : "running"},
                 {kRaysKey, std::to_string(raysTaken)},
                 {kCheckpointsKey, std::to_string(earlierCheckpoints_ + stats_.checkpoints + 1)},
                 {kSavedAtKey, utcNow()}};
  // A resumed run keeps the origin its first part recorded (the integrator sets the map's
  // from the first ray it sees).
  if (!resumed_) batch.timeOrigin = map.timeOrigin();
  const auto writeStart = std::chrono::steady_clock::now();
  try {
    store_->write(batch);
  } catch (const Error& e) {
    // A full disk, a lost server, the lock: the transaction rolled back, so the store holds
    // the previous checkpoint, which is what the user needs to know to carry on.
    throw Error(std::string(e.what()) + " (the checkpoint was not written: the store holds the previous one, " +
                (stats_.checkpoints + earlierCheckpoints_ > 0 ? "which a resumed run continues" : "with no regions yet") + ")");
  }
  const double writeSeconds = secondsSince(writeStart);
  stats_.writeSeconds += writeSeconds;
  // The checkpoint into the store's file, so that the file alone holds it (a copy, or a
  // killed run's file without its -wal).
  const auto foldStart = std::chrono::steady_clock::now();
  try {
    store_->foldLog();
  } catch (const Error& e) {
    // A full disk: the checkpoint is committed, in the log (SQLite's -wal file) only.
    throw Error(std::string(e.what()) + " (the checkpoint is committed in the store's -wal file, which a resumed run "
                "continues: keep that file beside the store)");
  }
  stats_.foldSeconds += secondsSince(foldStart);
  if (writeSeconds > stats_.longestWriteSeconds) {
    stats_.longestWriteSeconds = writeSeconds;
    stats_.longestWriteRegions = batch.regions.size();
  }
  for (const auto& [key, c] : written) stored_[key] = c;
  map.markSaved();
  ++stats_.checkpoints;
  stats_.regionsWritten += batch.regions.size();
  const double seconds = secondsSince(t0);
  stats_.checkpointSeconds += seconds;
  stats_.longestCheckpointSeconds = std::max(stats_.longestCheckpointSeconds, seconds);
  lastCheckpoint_ = std::chrono::steady_clock::now();
}

uint64_t StoreMapping::checkpointNow(OccupancyMap& map, uint64_t raysTaken, const std::function<void()>& sync) {
  checkpoint(map, raysTaken, false, sync);
  return earlierCheckpoints_ + stats_.checkpoints;
}

bool StoreMapping::evictTo(OccupancyMap& map, uint64_t targetBytes) {
  const uint64_t perRegion = map.bytesPerRegion();
  uint64_t held = map.regions().size() * perRegion;
  if (held <= targetBytes) return true;
  // Least recently changed first; a region fetched and not changed since has stamp 0.
  std::vector<std::pair<uint64_t, RegionKey>> clean;
  for (const auto& [key, region] : map.regions())
    if (region.occupancyStamp <= map.savedCounter() && stored_.contains(key)) clean.emplace_back(region.occupancyStamp, key);
  std::sort(clean.begin(), clean.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
  for (const auto& [stamp, key] : clean) {
    if (held <= targetBytes) break;
    map.evictRegion(key);
    held -= perRegion;
    ++stats_.evictions;
  }
  return held <= targetBytes;
}

void StoreMapping::betweenChunks(OccupancyMap& map, uint64_t raysTaken, bool last, const std::function<void()>& sync) {
  stats_.peakHostBytes = std::max<uint64_t>(stats_.peakHostBytes, map.regions().size() * map.bytesPerRegion());
  if (last || secondsSince(lastCheckpoint_) >= options_.checkpointSeconds) {
    checkpoint(map, raysTaken, last, sync);
    // A sync copies the GPU's regions in: the host map's largest is right after it.
    stats_.peakHostBytes = std::max<uint64_t>(stats_.peakHostBytes, map.regions().size() * map.bytesPerRegion());
  }
  const uint64_t limit = options_.hostMemoryBytes;
  if (limit == 0 || map.regions().size() * map.bytesPerRegion() <= limit) return;
  const uint64_t target = limit / 4 * 3;
  if (evictTo(map, target)) return;
  // Not enough unchanged regions: saving the changed ones makes them droppable.
  checkpoint(map, raysTaken, last, sync);
  stats_.peakHostBytes = std::max<uint64_t>(stats_.peakHostBytes, map.regions().size() * map.bytesPerRegion());
  evictTo(map, target);
}

StoreMapping::RegionCounts StoreMapping::countsOf(const Region& region) const {
  const OccupancyMap::Counts c = shape_.counts(region);
  return {uint32_t(c.occupied), uint32_t(c.free)};
}

OccupancyMap::Counts StoreMapping::counts() const {
  OccupancyMap::Counts c;
  for (const auto& [key, r] : stored_) c.occupied += r.occupied, c.free += r.free;
  c.regions = stored_.size();
  return c;
}

}  // namespace voxen
