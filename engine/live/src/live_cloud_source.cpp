// LiveCloudSource (voxen/live/live_cloud_source.hpp). Three threads: the client's receives
// (tf applied at once, clouds queued whole, the oldest dropped when the queue is full); the
// maker's decodes a cloud, waits for its tf and makes its rays (voxen/input/cloud_rays.hpp);
// the caller's takes made clouds with next().
#include "voxen/live/live_cloud_source.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "voxen/host/error.hpp"
#include "voxen/input/cloud_decoder.hpp"
#include "voxen/input/cloud_rays.hpp"
#include "voxen/input/live_tf.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/live/foxglove_client.hpp"

namespace voxen::live {

namespace {

using Clock = std::chrono::steady_clock;

bool isCloudType(const std::string& schema) {
  return schema == ros::kPointCloud2Ros1Type || schema == ros::kPointCloud2Ros2Type;
}
bool isTfType(const std::string& schema) { return schema == ros::kTfMessageRos1Type || schema == ros::kTfMessageRos2Type; }
std::string bare(const std::string& topic) { return !topic.empty() && topic[0] == '/' ? topic.substr(1) : topic; }

struct RawCloud {
  std::vector<uint8_t> bytes;
  ros::MessageEncoding encoding = ros::MessageEncoding::Ros1;
  Clock::time_point arrived;
  uint64_t sequence = 0;
};

}  // namespace

struct LiveCloudSource::Impl {
  LiveInputOptions options;
  voxen::detail::LiveTf tf;
  mutable std::mutex mutex;  // everything below but the threads
  std::condition_variable rawReady, madeChanged;
  std::deque<RawCloud> raw;
  std::deque<LiveCloud> made;
  LiveInputStats stats;
  std::vector<std::string> events;
  std::string fatal;
  std::vector<std::string> cloudTopicsSeen;  // PointCloud2 topics advertised (for a choice and for errors)
  std::vector<std::string> topicsSeen;       // every topic advertised, with its type
  std::optional<Clock::time_point> connectedAt;
  bool stopping = false;
  std::thread maker;
  std::unique_ptr<FoxgloveClient> client;  // last: destroyed first (no callback runs after)

  explicit Impl(LiveInputOptions o) : options(std::move(o)), tf(options.tfKeepSeconds) {}

  void event(std::string text) {
    std::lock_guard lock(mutex);
    if (events.size() < 256) events.push_back(std::move(text));
  }

  void fail(std::string text) {
    {
      std::lock_guard lock(mutex);
      if (fatal.empty()) fatal = std::move(text);
    }
    madeChanged.notify_all();
  }

  bool wants(const AdvertisedChannel& c) {
    std::lock_guard lock(mutex);
    topicsSeen.push_back(c.topic + " (" + c.schemaName + ", " + c.encoding + ")");
    if (isTfType(c.schemaName) && (bare(c.topic) == "tf" || bare(c.topic) == "tf_static")) return true;
    if (!options.cloudTopic.empty()) return bare(c.topic) == bare(options.cloudTopic);
    if (!isCloudType(c.schemaName)) return false;
    cloudTopicsSeen.push_back(c.topic);
    if (cloudTopicsSeen.size() > 1 && fatal.empty()) {
      std::string list;
      for (const std::string& t : cloudTopicsSeen) list += (list.empty() ? "" : ", ") + t;
      fatal = options.url + ": the server has several point cloud topics (" + list + "): choose one as the cloud topic";
    }
    return cloudTopicsSeen.size() == 1;
  }

  static std::optional<ros::MessageEncoding> encodingOf(const std::string& encoding) {
    if (encoding == "ros1") return ros::MessageEncoding::Ros1;
    if (encoding == "cdr") return ros::MessageEncoding::Cdr;
    return std::nullopt;
  }

  void message(const AdvertisedChannel& c, std::span<const uint8_t> bytes) {
    const std::optional<ros::MessageEncoding> encoding = encodingOf(c.encoding);
    if (!encoding) {
      fail(options.url + ": topic " + c.topic + " is in encoding '" + c.encoding +
           "'; voxen reads ROS messages in the ros1 or cdr encoding (foxglove_bridge sends those)");
      return;
    }
    if (isTfType(c.schemaName) && (bare(c.topic) == "tf" || bare(c.topic) == "tf_static")) {
      try {
        tf.add(ros::decodeTfMessage(bytes, *encoding, options.url + ": topic " + c.topic), bare(c.topic) == "tf_static");
      } catch (const Error& e) {
        malformed(e.what());
      }
      return;
    }
    if (!isCloudType(c.schemaName)) {
      fail(options.url + ": topic " + c.topic + " is a " + c.schemaName + ", not a sensor_msgs/PointCloud2");
      return;
    }
    {
      std::lock_guard lock(mutex);
      if (stats.topic.empty()) stats.topic = c.topic, stats.encoding = c.encoding;
      if (raw.size() >= options.queueClouds) {
        raw.pop_front();  // the oldest waiting cloud, whole
        ++stats.droppedBehind;
      }
      raw.push_back(RawCloud{std::vector<uint8_t>(bytes.begin(), bytes.end()), *encoding, Clock::now(), stats.cloudsReceived++});
    }
    rawReady.notify_one();
  }

  void malformed(const std::string& what) {
    std::lock_guard lock(mutex);
    if (stats.malformed++ == 0) {
      stats.firstMalformed = what;
      events.push_back("skipped a message that does not decode (counted; the first): " + what);
    }
  }

  void clientEvent(const ClientEvent& e) {
    using Kind = ClientEvent::Kind;
    switch (e.kind) {
      case Kind::Connected: {
        std::lock_guard lock(mutex);
        connectedAt = Clock::now();
        topicsSeen.clear();
        cloudTopicsSeen.clear();
        events.push_back("connected to " + e.text);
        return;
      }
      case Kind::Subscribed: return event("subscribed to " + e.text);
      case Kind::Disconnected:
      case Kind::Failed: {
        std::lock_guard lock(mutex);
        if (e.kind == Kind::Disconnected) ++stats.reconnects;
        connectedAt.reset();
        events.push_back(e.text);
        return;
      }
      case Kind::NotFoxglove: return fail(e.text);
      case Kind::ServerStatus: return event("server: " + e.text);
      case Kind::Malformed: return malformed(e.text);
      case Kind::Advertised: return;
    }
  }

  // The topic timeout: connected this long with no cloud received is an Error naming the topics.
  void checkTopicTimeout() {
    std::lock_guard lock(mutex);
    if (!connectedAt || stats.cloudsReceived > 0 || !fatal.empty()) return;
    const double waited = std::chrono::duration<double>(Clock::now() - *connectedAt).count();
    if (waited < options.topicTimeoutSeconds) return;
    std::string seen;
    for (const std::string& t : topicsSeen) seen += (seen.empty() ? "" : ", ") + t;
    const std::string wanted = options.cloudTopic.empty() ? std::string("on any sensor_msgs/PointCloud2 topic")
                                                          : "on topic " + options.cloudTopic;
    fatal = options.url + ": no point cloud arrived " + wanted + " in " + std::to_string(int(options.topicTimeoutSeconds)) +
            " s; the server advertises " + (seen.empty() ? std::string("no topics") : seen);
  }

  void makeLoop() {
    std::optional<voxen::detail::CloudRayMaker> maker;
    std::string sensorFrame;
    std::optional<double> lastStamp;  // of the last cloud made: an earlier one goes back in time
    bool reportedNoTf = false;
    while (true) {
      RawCloud cloud;
      std::string topic;
      {
        std::unique_lock lock(mutex);
        rawReady.wait_for(lock, std::chrono::milliseconds(100), [&] { return stopping || !raw.empty(); });
        if (stopping) return;
        if (raw.empty()) {
          lock.unlock();
          checkTopicTimeout();
          madeChanged.notify_all();
          continue;
        }
        cloud = std::move(raw.front());
        raw.pop_front();
        topic = stats.topic;
      }
      const std::string where = options.url + ": topic " + topic + ", cloud " + std::to_string(cloud.sequence);
      try {
        const ros::PointCloud2 decoded = ros::decodePointCloud2(cloud.bytes, cloud.encoding, where);
        if (decoded.width == 0 || decoded.height == 0) continue;  // drivers publish empty clouds at start
        if (!maker) {
          maker.emplace(ros::chooseCloudLayout(decoded, where), voxen::detail::frameName(decoded.frameId), options.deskew,
                        options.exclusion);
          sensorFrame = voxen::detail::frameName(decoded.frameId);
        }
        // A cloud stamped before the one made ahead of it is dropped whole, as the file reader
        // drops it: a map made in order does not go back in time.
        const double stamp = ros::stampSeconds(decoded.stampNs);
        if (lastStamp && stamp < *lastStamp) {
          std::lock_guard lock(mutex);
          if (stats.droppedBackwards++ == 0)
            events.push_back(where + ": stamped before the cloud taken ahead of it: dropped (and every such cloud, counted)");
          continue;
        }
        // tf up to the cloud's last point, waiting as tf2's message filter does.
        const double until = maker->latestPointTime(decoded);
        const Clock::time_point deadline = cloud.arrived + std::chrono::microseconds(int64_t(options.tfWaitSeconds * 1e6));
        std::optional<TfBuffer::Chain> chain;
        std::string why;
        while (true) {
          chain = tf.chain(options.fixedFrame, sensorFrame, why);
          if ((chain && chain->end() >= until) || Clock::now() >= deadline || isStopping()) break;
          tf.waitForMore(deadline);
        }
        if (!chain) {
          std::lock_guard lock(mutex);
          ++stats.droppedNoPose;
          if (!reportedNoTf) events.push_back("no tf yet for frame " + sensorFrame + " (" + why + "): clouds are dropped until it comes");
          reportedNoTf = true;
          continue;
        }
        lastStamp = stamp;
        LiveCloud out;
        voxen::detail::CloudRays rays;
        maker->make(decoded, *chain, where, rays);
        if (rays.rays.empty() && rays.stats.skippedOutsideTrajectory > 0 && rays.stats.skippedOutsideTrajectory == rays.stats.points) {
          std::lock_guard lock(mutex);
          ++stats.droppedNoPose;
          continue;
        }
        out.rays = std::move(rays.rays);
        out.stats = rays.stats;
        out.sequence = cloud.sequence;
        out.stamp = ros::stampSeconds(decoded.stampNs);
        out.arrived = cloud.arrived;
        if (const std::optional<RigidPose> pose = chain->at(out.stamp)) out.sensorPose = SensorPose{pose->translation, pose->rotation};
        std::unique_lock lock(mutex);
        if (stats.frames.empty()) {
          for (const std::string& f : chain->path()) stats.frames += (stats.frames.empty() ? "" : " -> ") + f;
          events.push_back("posing " + topic + " by tf " + stats.frames);
        }
        // The caller takes made clouds one by one: while it is behind, the raw queue fills and
        // drops its oldest, so a made cloud waits here for room rather than piling up.
        madeChanged.wait(lock, [&] { return stopping || made.size() < 2; });
        if (stopping) return;
        stats.load += out.stats;
        made.push_back(std::move(out));
        lock.unlock();
        madeChanged.notify_all();
      } catch (const Error& e) {
        malformed(e.what());
      }
    }
  }

  bool isStopping() {
    std::lock_guard lock(mutex);
    return stopping;
  }
};

LiveCloudSource::LiveCloudSource(LiveInputOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  Impl& s = *impl_;
  s.maker = std::thread([&s] { s.makeLoop(); });
  FoxgloveClientOptions client{.url = s.options.url, .wants = [&s](const AdvertisedChannel& c) { return s.wants(c); },
                               .reconnect = s.options.reconnect};
  try {
    s.client = std::make_unique<FoxgloveClient>(
        std::move(client), [&s](const AdvertisedChannel& c, uint64_t, std::span<const uint8_t> bytes) { s.message(c, bytes); },
        [&s](const ClientEvent& e) { s.clientEvent(e); });
  } catch (...) {
    {
      std::lock_guard lock(s.mutex);
      s.stopping = true;
    }
    s.rawReady.notify_all();
    s.maker.join();
    throw;
  }
}

LiveCloudSource::~LiveCloudSource() {
  Impl& s = *impl_;
  s.client.reset();  // no more callbacks
  {
    std::lock_guard lock(s.mutex);
    s.stopping = true;
  }
  s.tf.wakeAll();
  s.rawReady.notify_all();
  s.madeChanged.notify_all();
  if (s.maker.joinable()) s.maker.join();
}

std::optional<LiveCloud> LiveCloudSource::next(std::chrono::milliseconds wait) {
  Impl& s = *impl_;
  std::unique_lock lock(s.mutex);
  s.madeChanged.wait_for(lock, wait, [&] { return !s.made.empty() || !s.fatal.empty(); });
  if (!s.made.empty()) {
    LiveCloud cloud = std::move(s.made.front());
    s.made.pop_front();
    ++s.stats.cloudsMade;
    lock.unlock();
    s.madeChanged.notify_all();
    return cloud;
  }
  if (!s.fatal.empty()) throw Error(s.fatal);
  return std::nullopt;
}

LiveInputStats LiveCloudSource::stats() const {
  const Impl& s = *impl_;
  LiveInputStats out;
  {
    std::lock_guard lock(s.mutex);
    out = s.stats;
  }
  out.transforms = s.tf.received();
  out.refusedTransforms = s.tf.refusedCount();
  return out;
}

std::vector<std::string> LiveCloudSource::takeEvents() {
  std::lock_guard lock(impl_->mutex);
  return std::exchange(impl_->events, {});
}

bool LiveCloudSource::connected() const { return impl_->client && impl_->client->connected(); }

}  // namespace voxen::live
