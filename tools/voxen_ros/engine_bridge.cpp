// The engine side of the seam (engine_bridge.hpp): the settings, the Context, the queue, the
// live tf, the mapping and publication threads, and the queries on snapshots.
#include "engine_bridge.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <stdexcept>

#include "cloud_queue.hpp"
#include "cloud_rays.hpp"
#include "voxen/input/live_tf.hpp"
#include "mapping_thread.hpp"
#include "node_log.hpp"
#include "node_settings.hpp"
#include "publication_thread.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/query_types.hpp"

namespace voxen_ros {

namespace {

NodeSettings settingsOf(const Parameters& parameters) {
  try {
    return readSettings(parameters);
  } catch (const voxen::SettingError& e) {
    throw std::runtime_error(settingErrorText(e));
  }
}

std::vector<glm::dvec3> pointsOf(const std::vector<double>& xyz) {
  std::vector<glm::dvec3> out(xyz.size() / 3);
  for (size_t i = 0; i < out.size(); ++i) out[i] = {xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]};
  return out;
}

}  // namespace

struct Engine::Impl {
  Impl(const Parameters& parameters, std::function<void(PublicationData)> send)
      : settings(settingsOf(parameters)),
        queue(settings.queueSize),
        tf(settings.tfHistory),
        publisher(std::move(send)) {
    try {
      // A machine without a device fails at start-up, not at the first cloud.
      if (settings.mapper.run.backend == voxen::MapperBackend::Gpu) context.open();
      mapping.emplace(context, settings, queue, tf, [this](Publication p) { publisher.post(std::move(p)); });
    } catch (const voxen::SettingError& e) {
      throw std::runtime_error(settingErrorText(e));
    }
  }

  NodeSettings settings;
  voxen::Context context;
  CloudQueue queue;
  voxen::detail::LiveTf tf;
  PublicationThread publisher;
  std::optional<MappingThread> mapping;  // after the rest: made last, stopped first
  std::atomic<bool> stopped{false};
};

Engine::Engine(const Parameters& parameters, std::function<void(PublicationData)> publish)
    : impl_(std::make_unique<Impl>(parameters, std::move(publish))) {}

Engine::~Engine() { stop(); }

std::string Engine::settingsText() const { return voxen_ros::settingsText(impl_->settings); }
std::string Engine::cloudTopic() const { return impl_->settings.cloudTopic; }
double Engine::cloudTimeout() const { return impl_->settings.cloudTimeout; }
uint32_t Engine::queueSize() const { return impl_->settings.queueSize; }

void Engine::start() { impl_->mapping->start(); }

bool Engine::stop() {
  if (impl_->stopped.exchange(true)) return !impl_->mapping->failed();
  impl_->mapping->stop();
  impl_->publisher.stop();
  log(LogLevel::Info, impl_->mapping->status().json());
  return !impl_->mapping->failed();
}

bool Engine::pushCloud(CloudMessage cloud) { return impl_->queue.push(std::move(cloud)); }
uint64_t Engine::droppedClouds() const { return impl_->queue.dropped(); }

void Engine::addTransforms(const std::vector<Transform>& transforms, bool isStatic) {
  std::vector<voxen::ros::TransformStamped> out;
  out.reserve(transforms.size());
  for (const Transform& t : transforms) out.push_back(transformOf(t));
  impl_->tf.add(out, isStatic);
}

OccupancyResult Engine::occupancy(const std::vector<double>& xyz) const {
  OccupancyResult r;
  const voxen::MapSnapshot snapshot = impl_->mapping->latestSnapshot();
  r.snapshotVersion = snapshot.version();
  r.snapshotClouds = impl_->mapping->status().snapshotClouds;
  try {
    for (const voxen::OccupancyAnswer& a : snapshot.occupancy(pointsOf(xyz))) {
      r.occupancy.push_back(a.voxelClass == voxen::VoxelClass::Occupied ? 1 : a.voxelClass == voxen::VoxelClass::Free ? 0 : -1);
      r.logOdds.push_back(a.voxelClass == voxen::VoxelClass::Unobserved ? std::numeric_limits<float>::quiet_NaN() : a.value);
      r.status.push_back(voxen::queryStatusName(a.status));
    }
    r.success = true;
  } catch (const voxen::Error& e) {
    r = {.message = e.what(), .snapshotVersion = r.snapshotVersion, .snapshotClouds = r.snapshotClouds};
  }
  return r;
}

ClearanceResult Engine::clearance(const std::vector<double>& xyz) const {
  ClearanceResult r;
  const voxen::MapSnapshot snapshot = impl_->mapping->latestSnapshot();
  r.snapshotVersion = snapshot.version();
  try {
    for (const voxen::ClearanceSample& s : snapshot.clearance(pointsOf(xyz))) {
      r.clearance.push_back(s.clearance);
      r.gradient.insert(r.gradient.end(), {s.gradient.x, s.gradient.y, s.gradient.z});
      r.status.push_back(voxen::queryStatusName(s.status));
    }
    r.success = true;
  } catch (const voxen::Error& e) {
    r = {.message = std::string(e.what()) + " (the node computes the clearance layer when the parameter ~clearance is a range > 0)",
         .snapshotVersion = r.snapshotVersion};
  }
  return r;
}

RaycastResult Engine::raycast(const std::vector<double>& origins, const std::vector<double>& directions, double maxRange,
                              bool unknownBlocks) const {
  RaycastResult r;
  const voxen::MapSnapshot snapshot = impl_->mapping->latestSnapshot();
  r.snapshotVersion = snapshot.version();
  if (origins.size() != directions.size()) {
    r.message = std::to_string(origins.size() / 3) + " origins and " + std::to_string(directions.size() / 3) +
                " directions: one direction per origin";
    return r;
  }
  std::vector<voxen::QueryRay> rays;
  const std::vector<glm::dvec3> o = pointsOf(origins), d = pointsOf(directions);
  for (size_t i = 0; i < o.size(); ++i) rays.push_back({.origin = o[i], .direction = d[i], .maxRange = maxRange});
  try {
    for (const voxen::RayHit& h : snapshot.raycast(rays, {.unknownBlocks = unknownBlocks})) {
      r.hit.push_back(h.hit ? 1 : 0);
      r.distance.push_back(h.distance);
      r.point.insert(r.point.end(), {h.point.x, h.point.y, h.point.z});
      r.status.push_back(voxen::queryStatusName(h.status));
    }
    r.success = true;
  } catch (const voxen::Error& e) {
    r = {.message = e.what(), .snapshotVersion = r.snapshotVersion};
  }
  return r;
}

PathResult Engine::checkPaths(const std::vector<double>& xyz, const std::vector<uint64_t>& offsets, double radius,
                              const std::string& unknown) const {
  PathResult r;
  const voxen::MapSnapshot snapshot = impl_->mapping->latestSnapshot();
  r.snapshotVersion = snapshot.version();
  voxen::UnknownSpace space = voxen::UnknownSpace::Occupied;
  if (unknown == "free") space = voxen::UnknownSpace::Free;
  else if (unknown == "report") space = voxen::UnknownSpace::Report;
  else if (!unknown.empty() && unknown != "occupied") {
    r.message = "unknown must be occupied, free or report, not '" + unknown + "'";
    return r;
  }
  try {
    // The CPU reference on the snapshot's map (a copy no one changes): any thread, any number
    // at once; the answers are the GPU query's bit for bit (voxen query --kind path).
    const std::vector<glm::dvec3> points = pointsOf(xyz);
    for (const voxen::PathAnswer& a : voxen::cpuPathCollisions(snapshot.map(), points, offsets, radius, space)) {
      r.collides.push_back(a.collides ? 1 : 0);
      r.segment.push_back(a.segment);
      r.t.push_back(a.t);
      r.status.push_back(voxen::queryStatusName(a.status));
    }
    r.success = true;
  } catch (const voxen::Error& e) {
    r = {.message = e.what(), .snapshotVersion = r.snapshotVersion};
  }
  return r;
}

SaveResult Engine::save(const std::string& path) {
  SaveResult r;
  const std::filesystem::path out = path.empty() ? impl_->settings.output : std::filesystem::path(path);
  if (out.empty()) {
    r.message = "no path given and the node has no ~output parameter";
    return r;
  }
  // Shared with the task, which may still run after a call that timed out has returned.
  auto clouds = std::make_shared<std::atomic<uint64_t>>(0);
  MappingThread& mapping = *impl_->mapping;
  std::future<void> done = mapping.post([out, clouds, &mapping](voxen::Mapper& mapper) {
    clouds->store(mapping.status().cloudsIntegrated);
    mapper.save(out);  // atomic: a failure leaves an existing file as it was
  });
  // The mapping thread runs it between two clouds; it may be waiting for tf (~tf_wait).
  if (done.wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
    r.message = "the mapping thread did not get to the save within 120 s";
    return r;
  }
  try {
    done.get();
    r.success = true;
    r.clouds = clouds->load();
    r.message = "saved " + out.string();
  } catch (const std::exception& e) {
    r.message = "saving " + out.string() + " failed: " + e.what() + " (an existing file is left as it was)";
  }
  return r;
}

std::string Engine::statusJson() const { return impl_->mapping->status().json(); }

}  // namespace voxen_ros
