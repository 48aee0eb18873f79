// LiveMapServer (live_map_server.hpp).
#include "commands/live/live_map_server.hpp"

#include "voxen/heightmap/heightmap.hpp"
#include "voxen/host/error.hpp"

namespace voxen::cli {

namespace {

LiveServerArgs argsOf(const std::string& address) {
  LiveServerArgs args;
  parseServeAddress(address, args);
  return args;
}

// The 2D map takes a whole CPU heightmap of the map: every few seconds, not at every publication.
constexpr std::chrono::seconds kGridPeriod{3};

}  // namespace

LiveMapServer::LiveMapServer(const std::string& address, double rate, std::string)
    : args_(argsOf(address)),
      server_(serverOptionsOf(args_)),
      publisher_(server_, {}),
      period_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(1.0 / rate))),
      thread_([this] { run(); }) {}

LiveMapServer::~LiveMapServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::string LiveMapServer::banner() const { return serverBanner("voxen map", server_, args_); }

bool LiveMapServer::due() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < period_) return false;
  last_ = now;
  return true;
}

void LiveMapServer::publish(MapSnapshot snapshot, const live::LiveStatus& status) {
  // The snapshot's map, kept alive by the snapshot itself (shared_ptr's aliasing constructor).
  auto held = std::make_shared<MapSnapshot>(std::move(snapshot));
  publish(std::shared_ptr<const OccupancyMap>(held, &held->map()), status);
}

void LiveMapServer::publish(std::shared_ptr<const OccupancyMap> map, const live::LiveStatus& status) {
  {
    std::lock_guard lock(mutex_);
    map_ = std::move(map);
    status_ = status;
  }
  changed_.notify_all();
}

void LiveMapServer::pose(const live::SensorPose& pose) {
  std::lock_guard lock(mutex_);
  pose_ = pose;
}

void LiveMapServer::finish(double lingerSeconds) {
  {
    std::unique_lock lock(mutex_);
    lastGrid_ = {};  // the last state gets its 2D map too
    changed_.notify_all();
    changed_.wait(lock, [&] { return !map_ && !busy_; });
  }
  if (lingerSeconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(lingerSeconds));
}

void LiveMapServer::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || map_; });
    if (!map_) return;  // stopping, nothing pending
    const std::shared_ptr<const OccupancyMap> held = std::move(map_);
    map_.reset();
    live::LiveStatus status = *status_;
    const std::optional<live::SensorPose> pose = pose_;
    const bool grid = std::chrono::steady_clock::now() - lastGrid_ >= kGridPeriod;
    if (grid) lastGrid_ = std::chrono::steady_clock::now();
    busy_ = true;
    lock.unlock();
    const uint64_t now = wallClockNs();
    const OccupancyMap& map = *held;
    const live::MapPublishStats published = publisher_.publishMap(map, now);
    const OccupancyMap::Counts counts = map.counts();
    status.regions = published.regions;
    status.occupiedVoxels = counts.occupied;
    status.freeVoxels = counts.free;
    if (pose) publisher_.publishPose(*pose, now);
    publisher_.publishStatus(status, now);
    if (grid && counts.occupied > 0) {
      try {
        const Heightmap heightmap = computeHeightmap(map, {});
        publisher_.publishGrid(heightmap, now);
        publisher_.publishHeightmap(heightmap, now);
      } catch (const Error&) {
        // A map with no surface yet (no occupied voxel a level stands on): no 2D map this time.
      }
    }
    lock.lock();
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace voxen::cli
