#include "publication_thread.hpp"

#include "map_products.hpp"
#include "node_log.hpp"

namespace voxen_ros {

PublicationThread::PublicationThread(std::function<void(PublicationData)> send) : send_(std::move(send)) {
  thread_ = std::thread([this] { run(); });
}

PublicationThread::~PublicationThread() { stop(); }

void PublicationThread::post(Publication publication) {
  {
    std::lock_guard lock(mutex_);
    waiting_ = std::move(publication);
  }
  ready_.notify_one();
}

void PublicationThread::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  ready_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void PublicationThread::run() {
  for (;;) {
    std::optional<Publication> p;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return stopping_ || waiting_; });
      if (!waiting_) return;  // stopping, nothing left
      p.swap(waiting_);
    }
    try {
      PublicationData data;
      data.frame = p->frame;
      data.statusJson = p->status.json();
      // The map's messages only for a new snapshot (the ROS side latches the last).
      if (p->snapshot.valid() && p->snapshot.version() != sentVersion_) {
        sentVersion_ = p->snapshot.version();
        data.mapChanged = true;
        data.voxels = occupiedVoxelsOf(p->snapshot.map());
        if (p->heightmap) data.grid = gridOf(*p->heightmap, p->gridLevel, p->gridMaxCost);
      }
      send_(std::move(data));
    } catch (const std::exception& e) {
      logThrottled("publication", 5.0, LogLevel::Error, std::string("publication failed: ") + e.what());
    }
  }
}

}  // namespace voxen_ros
