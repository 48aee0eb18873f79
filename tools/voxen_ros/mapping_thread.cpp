#include "mapping_thread.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "node_log.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen_ros {

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration seconds(double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); }

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += c;
  }
  return out + "\"";
}

std::string timeText(const CloudRays& rays) {
  return rays.layout().hasTime ? rays.layout().timeReport : "header.stamp (no time field)";
}

}  // namespace

std::string NodeStatus::json() const {
  std::ostringstream o;
  o << "{\"clouds_received\":" << cloudsReceived << ",\"clouds_dropped\":" << cloudsDropped
    << ",\"clouds_integrated\":" << cloudsIntegrated << ",\"clouds_malformed\":" << cloudsMalformed
    << ",\"clouds_backwards\":" << cloudsBackwards << ",\"clouds_without_tf\":" << cloudsWithoutTf
    << ",\"clouds_queued\":" << queued << ",\"rays\":" << rays << ",\"points_non_finite\":" << pointsNonFinite
    << ",\"points_outside_tf\":" << pointsOutsideTf << ",\"points_in_box\":" << pointsInBox
    << ",\"points_near_sensor\":" << pointsNearSensor << ",\"tf_received\":" << tfReceived
    << ",\"tf_refused\":" << tfRefused << ",\"snapshot_version\":" << snapshotVersion
    << ",\"snapshot_clouds\":" << snapshotClouds << ",\"occupied\":" << occupied << ",\"free\":" << free
    << ",\"regions\":" << regions << ",\"last_latency_ms\":" << lastLatencyMs << ",\"max_latency_ms\":" << maxLatencyMs
    << ",\"publish_ms\":" << publishMs
    << ",\"fixed_frame\":" << jsonString(fixedFrame) << ",\"sensor_frame\":" << jsonString(sensorFrame)
    << ",\"last_error\":" << jsonString(lastError) << "}";
  return o.str();
}

MappingThread::MappingThread(voxen::Context& context, const NodeSettings& settings, CloudQueue& queue, voxen::detail::LiveTf& tf,
                             std::function<void(Publication)> publish)
    : settings_(settings),
      queue_(queue),
      tf_(tf),
      publish_(std::move(publish)),
      mapper_(context, settings.mapper),
      rays_(settings.sensorFrame, settings.deskew, settings.exclusion),
      fixedFrame_(settings.fixedFrame) {
  warmUp(context);
}

// The GPU's pipelines are compiled at their first use (seconds on lavapipe): a throwaway map
// of a few rays runs every pass the node will run before any cloud arrives, so that the first
// clouds do not queue behind the compiles (and get dropped). The Context's shader library
// keeps them for the node's Mapper.
void MappingThread::warmUp(voxen::Context& context) {
  if (settings_.mapper.run.backend != voxen::MapperBackend::Gpu) return;
  const auto start = Clock::now();
  voxen::Mapper warm(context, settings_.mapper);
  std::vector<voxen::Ray> rays;
  const double r = settings_.mapper.model.resolution;
  for (int i = -8; i <= 8; ++i)
    for (int j = -8; j <= 8; ++j) rays.push_back({.origin = {0.0, 0.0, 20 * r}, .sample = {i * r, j * r, 0.0}});
  warm.integrate(rays);
  if (settings_.clearanceRange > 0.0) warm.computeClearance({.range = settings_.clearanceRange});
  (void)warm.snapshot();
  try {
    (void)warm.heightmap(settings_.heightmap);
  } catch (const voxen::Error&) {
    // A heightmap the warm-up map cannot have (no room above its floor): compiled all the same.
  }
  log(LogLevel::Info, "GPU passes ready in " +
                          std::to_string(std::chrono::duration<double>(Clock::now() - start).count()).substr(0, 4) + " s");
}

MappingThread::~MappingThread() { stop(); }

void MappingThread::start() { thread_ = std::thread([this] { run(); }); }

void MappingThread::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  queue_.close();
  tf_.wakeAll();
  thread_.join();
}

std::future<void> MappingThread::post(std::function<void(voxen::Mapper&)> task) {
  std::packaged_task<void()> work([this, task = std::move(task)] { task(mapper_); });
  std::future<void> done = work.get_future();
  {
    std::lock_guard lock(tasksMutex_);
    tasks_.push_back(std::move(work));
  }
  return done;
}

NodeStatus MappingThread::status() const {
  NodeStatus s;
  {
    std::lock_guard lock(statusMutex_);
    s = status_;
  }
  s.cloudsReceived = queue_.received();
  s.cloudsDropped = queue_.dropped();
  s.queued = queue_.size();
  s.tfReceived = tf_.received();
  s.tfRefused = tf_.refusedCount();
  return s;
}

void MappingThread::runTasks() {
  std::deque<std::packaged_task<void()>> tasks;
  {
    std::lock_guard lock(tasksMutex_);
    tasks.swap(tasks_);
  }
  for (std::packaged_task<void()>& t : tasks) t();
}

std::string MappingThread::where(const QueuedCloud& cloud) const {
  return "topic " + settings_.cloudTopic + ", cloud message " + std::to_string(cloud.index);
}

void MappingThread::run() {
  const Clock::duration period = seconds(1.0 / settings_.publishRate);
  Clock::time_point nextPublish = Clock::now() + period;
  try {
    while (!stopping_) {
      runTasks();
      chooseLayoutIfDue(false);
      Clock::time_point until = nextPublish;
      if (layoutDeadline_) until = std::min(until, *layoutDeadline_);
      if (std::optional<QueuedCloud> cloud = queue_.pop(until)) take(std::move(*cloud));
      if (Clock::now() >= nextPublish) {
        publish();
        nextPublish = std::max(nextPublish + period, Clock::now());
      }
    }
    // Shutdown: what is queued is integrated with the tf there is, then published and saved.
    draining_ = true;
    while (std::optional<QueuedCloud> cloud = queue_.pop(Clock::now())) take(std::move(*cloud));
    chooseLayoutIfDue(true);
    runTasks();
    publish();
  } catch (const std::exception& e) {
    // An error of the mapper itself (the device lost, memory): the map so far is still saved.
    failed_ = true;
    {
      std::lock_guard lock(statusMutex_);
      status_.lastError = e.what();
    }
    log(LogLevel::Fatal, std::string("mapping stopped: ") + e.what());
  }
  finalSave();
}

// Clouds before the layout is known wait; the first with points is checked alone, and the
// layout is chosen with the second (as voxen map reads a topic's first two clouds with points),
// or with the first alone once layout_wait passes (or at shutdown).
void MappingThread::take(QueuedCloud cloud) {
  if (rays_.hasLayout()) return integrate(cloud);
  const voxen::ros::PointCloud2 view = cloudView(cloud.msg);
  const bool empty = uint64_t(view.width) * view.height == 0;
  const QueuedCloud* first = nullptr;
  for (const QueuedCloud& c : waitingForLayout_)
    if (uint64_t(c.msg.width) * c.msg.height > 0) first = &c;
  if (empty) {
    waitingForLayout_.push_back(std::move(cloud));
    return;
  }
  if (!first) {
    try {
      voxen::ros::chooseCloudLayout(view, where(cloud), nullptr);
    } catch (const voxen::Error& e) {
      std::lock_guard lock(statusMutex_);
      ++status_.cloudsMalformed;
      status_.lastError = e.what();
      log(LogLevel::Warn, std::string("cloud skipped: ") + e.what());
      return;
    }
    waitingForLayout_.push_back(std::move(cloud));
    layoutDeadline_ = Clock::now() + seconds(settings_.layoutWait);
    return;
  }
  // The second cloud with points decides with the first.
  const voxen::ros::PointCloud2 firstView = cloudView(first->msg);
  try {
    rays_.chooseLayout(firstView, where(*first), &view);
    waitingForLayout_.push_back(std::move(cloud));
  } catch (const voxen::Error& e) {
    // The second does not fit the first: the first decides alone, the second is refused below.
    rays_.chooseLayout(firstView, where(*first), nullptr);
    waitingForLayout_.push_back(std::move(cloud));
  }
  layoutDeadline_.reset();
  log(LogLevel::Info, "clouds in frame " + rays_.sensorFrame() + ", time: " + timeText(rays_));
  std::deque<QueuedCloud> waiting;
  waiting.swap(waitingForLayout_);
  for (const QueuedCloud& c : waiting) integrate(c);
}

void MappingThread::chooseLayoutIfDue(bool now) {
  if (rays_.hasLayout() || waitingForLayout_.empty()) return;
  if (!now && (!layoutDeadline_ || Clock::now() < *layoutDeadline_)) return;
  const QueuedCloud* first = nullptr;
  for (const QueuedCloud& c : waitingForLayout_)
    if (uint64_t(c.msg.width) * c.msg.height > 0) first = &c;
  if (!first) return;  // only empty clouds so far: nothing to tell a layout from
  rays_.chooseLayout(cloudView(first->msg), where(*first), nullptr);
  layoutDeadline_.reset();
  log(LogLevel::Info, "clouds in frame " + rays_.sensorFrame() + ", time: " + timeText(rays_) + " (told from one cloud)");
  std::deque<QueuedCloud> waiting;
  waiting.swap(waitingForLayout_);
  for (const QueuedCloud& c : waiting) integrate(c);
}

void MappingThread::integrate(const QueuedCloud& cloud) {
  const voxen::ros::PointCloud2 view = cloudView(cloud.msg);
  const std::string at = where(cloud);
  if (rays_.goesBack(voxen::ros::stampSeconds(view.stampNs))) {
    std::lock_guard lock(statusMutex_);
    ++status_.cloudsBackwards;
    logThrottled("backwards", 5.0, LogLevel::Warn, at + " skipped: stamped before the cloud taken ahead of it");
    return;
  }
  // Wait for tf to reach the cloud's last point time (from its arrival: a cloud that queued
  // waits no longer). An empty cloud needs no pose.
  const bool empty = uint64_t(view.width) * view.height == 0;
  const double latest = rays_.latestPointTime(view);
  const Clock::time_point deadline = cloud.arrived + seconds(settings_.tfWait);
  std::optional<voxen::TfBuffer::Chain> chain;
  std::string why;
  for (;;) {
    chain = tf_.chain(fixedFrame_, rays_.sensorFrame(), why);
    if (chain && (empty || chain->end() >= latest)) break;
    if (draining_ || stopping_ || Clock::now() >= deadline) break;
    tf_.waitForMore(deadline);
  }
  if (!chain) {
    std::lock_guard lock(statusMutex_);
    ++status_.cloudsWithoutTf;
    status_.lastError = at + ": no tf from the sensor frame to the fixed frame: " + why;
    logThrottled("no tf", 5.0, LogLevel::Warn, status_.lastError);
    return;
  }
  PoseCounts counts;
  try {
    counts = rays_.make(view, *chain, at, rayBuffer_);
  } catch (const voxen::Error& e) {
    std::lock_guard lock(statusMutex_);
    ++status_.cloudsMalformed;
    status_.lastError = e.what();
    logThrottled("malformed", 5.0, LogLevel::Warn,
                 "cloud skipped (" + std::to_string(status_.cloudsMalformed) + " so far): " + e.what());
    return;
  }
  mapper_.integrate(rayBuffer_);
  const double latencyMs = std::chrono::duration<double, std::milli>(Clock::now() - cloud.arrived).count();
  std::lock_guard lock(statusMutex_);
  ++status_.cloudsIntegrated;
  status_.rays += counts.rays;
  status_.pointsNonFinite += counts.nonFinite;
  status_.pointsOutsideTf += counts.outsideTf;
  status_.pointsInBox += counts.inBox;
  status_.pointsNearSensor += counts.nearSensor;
  status_.lastLatencyMs = latencyMs;
  status_.maxLatencyMs = std::max(status_.maxLatencyMs, latencyMs);
  status_.fixedFrame = chain->fixedFrame();
  status_.sensorFrame = chain->sensorFrame();
  if (fixedFrame_.empty()) fixedFrame_ = chain->fixedFrame();  // the tree's root, kept once found
}

void MappingThread::publish() {
  Publication p;
  uint64_t clouds;
  {
    std::lock_guard lock(statusMutex_);
    clouds = status_.cloudsIntegrated;
  }
  if (clouds != publishedClouds_) {
    const Clock::time_point start = Clock::now();
    // Only when the map changed: a snapshot copies the map, the heightmap reads all of it.
    if (settings_.clearanceRange > 0.0 && clouds > 0) mapper_.computeClearance({.range = settings_.clearanceRange});
    p.snapshot = mapper_.snapshot();
    try {
      p.heightmap = mapper_.heightmap(settings_.heightmap);
    } catch (const voxen::Error& e) {
      // No occupied voxel yet: no grid to publish.
      log(LogLevel::Debug, std::string("no heightmap: ") + e.what());
    }
    const voxen::OccupancyMap::Counts counts = p.snapshot.map().counts();
    std::lock_guard lock(statusMutex_);
    status_.snapshotVersion = p.snapshot.version();
    status_.snapshotClouds = clouds;
    status_.occupied = counts.occupied, status_.free = counts.free, status_.regions = counts.regions;
    status_.publishMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    publishedClouds_ = clouds;
  }
  p.clouds = clouds;
  p.frame = fixedFrame_;
  p.gridLevel = settings_.gridLevel;
  p.gridMaxCost = settings_.gridMaxCost;
  p.status = status();
  publish_(std::move(p));
}

void MappingThread::finalSave() {
  if (settings_.output.empty()) return;
  const NodeStatus s = status();
  if (s.cloudsIntegrated == 0) {
    // An empty map never replaces a file that may hold an earlier run's.
    log(LogLevel::Warn, "no cloud was integrated: " + settings_.output.string() + " not written");
    return;
  }
  try {
    mapper_.save(settings_.output);  // atomic: a failed save leaves an existing file as it was
    log(LogLevel::Info, "map of " + std::to_string(s.cloudsIntegrated) + " clouds saved to " + settings_.output.string());
  } catch (const std::exception& e) {
    failed_ = true;
    log(LogLevel::Error, "saving the map to " + settings_.output.string() + " failed: " + e.what() +
                             " (an existing file is left as it was)");
  }
}

}  // namespace voxen_ros
