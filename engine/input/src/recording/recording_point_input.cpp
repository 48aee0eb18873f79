// A ROS 1 bag or an MCAP file as a point input: the clouds of one sensor_msgs/PointCloud2
// topic, each point moved from the sensor frame into the fixed frame by the sensor's pose at
// the point's time (tf, or a trajectory file), the pose's position being the ray's origin.
//
// The work runs on the pipeline's workers: an MCAP file is a read-only mapping, so each
// worker reads, decompresses and checks its own messages (finish() does everything); a bag is
// read through librosbag-storage one message at a time, so read() copies the message's bytes
// under the pipeline's lock, in order, and finish() decodes and poses them on any thread.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "point_source.hpp"
#include "recording/cloud_posing.hpp"
#include "recording/recording.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/cloud_decoder.hpp"
#include "voxen/input/tf_buffer.hpp"
#include "voxen/input/trajectory.hpp"

namespace voxen::detail {

namespace {

std::string seconds(double s) { return formatTime(s) + " s"; }

// The clouds of a topic whose every cloud is empty: nothing to read.
class NoPointSource final : public PointSource {
 public:
  uint64_t chunks() const override { return 0; }
  bool concurrent() const override { return true; }
  size_t read(uint64_t, std::vector<double>& out) override {
    out.clear();
    return 0;
  }
};

class RecordingPointSource final : public PointSource {
 public:
  RecordingPointSource(std::unique_ptr<Recording> rec, std::vector<RecordedMessage> clouds, ros::MessageEncoding encoding,
                       ros::CloudLayout layout, Poser poser, std::string sensorFrame, bool checkFrame, bool deskew,
                       const SensorExclusion& exclusion)
      : rec_(std::move(rec)),
        clouds_(std::move(clouds)),
        encoding_(encoding),
        posing_(std::move(layout), std::move(poser), std::move(sensorFrame), checkFrame, deskew, exclusion) {
    topic_ = clouds_.empty() ? std::string() : rec_->topics()[clouds_[0].topic].name;
  }

  uint64_t chunks() const override { return clouds_.size(); }
  uint64_t chunkBytes(uint64_t k) const override { return clouds_[k].fileBytes; }
  // An MCAP file is read in place on every worker at once; a bag one message at a time.
  bool concurrent() const override { return rec_->concurrentReads(); }

  // In order, under the pipeline's lock (bags): the message's bytes. MCAP: nothing here.
  size_t read(uint64_t k, std::vector<double>& out) override {
    out.clear();
    if (rec_->concurrentReads()) return 0;
    std::vector<uint8_t> bytes = takeSpare();
    rec_->read(clouds_[k], bytes);
    std::lock_guard lock(mutex_);
    pending_[k] = std::move(bytes);
    return 0;
  }

  // On any thread: the message (MCAP: read in place here), decoded and posed.
  size_t finish(uint64_t k, std::vector<double>& rows, size_t, SourceSkips& skips) override {
    if (rec_->concurrentReads()) return pose(k, rec_->readInPlace(clouds_[k]), rows, skips);
    std::vector<uint8_t> bytes;
    {
      std::lock_guard lock(mutex_);
      auto it = pending_.find(k);
      bytes = std::move(it->second);
      pending_.erase(it);
    }
    try {
      const size_t n = pose(k, bytes, rows, skips);
      giveSpare(std::move(bytes));
      return n;
    } catch (...) {
      giveSpare(std::move(bytes));
      throw;
    }
  }

 private:

  std::string where(uint64_t k) const {
    return rec_->path().string() + ": topic " + topic_ + ", cloud message " + std::to_string(k) + " of " +
           std::to_string(clouds_.size());
  }

  size_t pose(uint64_t k, std::span<const uint8_t> bytes, std::vector<double>& rows, SourceSkips& skips) const {
    const std::string at = where(k);
    return posing_.pose(ros::decodePointCloud2(bytes, encoding_, at), at, rows, skips);
  }

  std::vector<uint8_t> takeSpare() {
    std::lock_guard lock(mutex_);
    if (spare_.empty()) return {};
    std::vector<uint8_t> b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }
  void giveSpare(std::vector<uint8_t> bytes) {
    std::lock_guard lock(mutex_);
    if (spare_.size() < 16) spare_.push_back(std::move(bytes));
  }

  std::unique_ptr<Recording> rec_;
  std::vector<RecordedMessage> clouds_;
  ros::MessageEncoding encoding_;
  CloudPosing posing_;
  std::string topic_;
  std::mutex mutex_;                  // pending_ and spare_
  std::unordered_map<uint64_t, std::vector<uint8_t>> pending_;  // bags: bytes read, waiting for finish()
  std::vector<std::vector<uint8_t>> spare_;
};

// The messages inside [start, start + duration] seconds after the recording's first message.
std::vector<RecordedMessage> window(const Recording& rec, std::vector<RecordedMessage> messages,
                                    const RecordingOptions& options, std::string& note) {
  if (options.start == 0.0 && !options.duration) return messages;
  const auto span = rec.timeSpan();
  if (!span) return messages;
  const double first = ros::stampSeconds(span->first);
  const double from = first + options.start;
  const double to = options.duration ? from + *options.duration : std::numeric_limits<double>::infinity();
  std::erase_if(messages, [&](const RecordedMessage& m) {
    const double t = ros::stampSeconds(m.timeNs);
    return t < from || t > to;
  });
  note = "clouds recorded " + seconds(options.start) + " to " +
         (options.duration ? seconds(options.start + *options.duration) : std::string("the end")) +
         " after the recording's start";
  if (messages.empty())
    throw Error(rec.path().string() + ": no cloud was recorded between " + seconds(options.start) + " and " +
                (options.duration ? seconds(options.start + *options.duration) : std::string("the end")) +
                " after its start (the recording's start and duration options); it spans " +
                seconds(ros::stampSeconds(span->second) - first));
  return messages;
}

}  // namespace

PointInput openRecordingInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                              const PointInputOptions& options) {
  const RecordingOptions& opt = options.recording;
  std::unique_ptr<Recording> rec = openRecording(path);
  const CloudTopicChoice choice = chooseCloudTopic(*rec, opt.cloudTopic);
  const RecordingTopic& topic = rec->topics()[choice.topic];
  const uint32_t topics[] = {choice.topic};
  PointInput input;
  std::string windowNote;
  std::vector<RecordedMessage> clouds = window(*rec, rec->index(topics), opt, windowNote);
  if (clouds.empty()) throw Error(path.string() + ": topic " + topic.name + " holds no messages");

  // The first clouds with points tell the fields, the time's unit and the sensor frame.
  bool allEmpty = false;
  const TopicClouds topicClouds = chooseTopicLayout(*rec, clouds, choice.encoding, topic.name, &allEmpty);
  if (allEmpty) {
    // No point to pose: an input of no points, which voxen map refuses as an empty map
    // unless --allow-empty, like any other input of no points.
    input.format = rec->formatName();
    input.layout = {.columns = 7, .hasTime = true, .hasOrigin = true};
    input.posesApplied = true;
    input.posesName = "nowhere (no points to pose)";
    input.originFields = input.posesName;
    input.notes.push_back("topic " + topic.name + " (" + std::to_string(clouds.size()) + " clouds, every one empty)");
    input.source = std::make_unique<NoPointSource>();
    return input;
  }
  const ros::CloudLayout& layout = topicClouds.layout;
  const std::string firstWhere = path.string() + ": topic " + topic.name;
  const std::string sensorFrame = opt.sensorFrame.empty() ? topicClouds.frameId : opt.sensorFrame;

  std::optional<Poser> poser;
  if (trajectory) {
    if (!opt.fixedFrame.empty() || !opt.sensorFrame.empty())
      throw Error(path.string() + ": the fixed and sensor frames choose frames of tf, which a trajectory file (" +
                  trajectory->string() + ") replaces: give one or the other");
    Trajectory t = Trajectory::load(*trajectory);
    input.posesName = "the trajectory " + trajectory->string();
    input.notes.push_back(t.hasOrientation() ? "points moved from the sensor frame by the trajectory's poses"
                                             : "points taken as already in the trajectory's frame (it has no "
                                               "orientations); origins from its positions");
    poser.emplace(std::move(t));
  } else {
    if (sensorFrame.empty())
      throw SettingError(SettingError::Kind::Change, "RecordingOptions::sensorFrame", "sensor frame",
                         firstWhere + ": has no header.frame_id; name the sensor frame as {}");
    const TfData tfData = loadTf(*rec);
    TfBuffer::Chain chain = resolveSensorChain(*rec, tfData, opt.fixedFrame, sensorFrame);
    const std::string frames = chainText(chain);
    input.posesName = "tf (" + frames + ")";
    input.notes.push_back("frames " + frames + " from " + std::to_string(tfData.transforms) + " transforms");
    if (!tfData.refused.empty()) input.notes.push_back(tfData.refusedNote());
    if (std::string conflicts = tfData.conflictWarning(chain); !conflicts.empty())
      input.warnings.push_back(path.string() + ": " + conflicts);
    poser.emplace(std::move(chain));
  }
  input.posesApplied = true;
  input.poseStart = poser->start();
  input.poseEnd = poser->end();
  input.format = rec->formatName();
  input.timeField = opt.deskew ? (layout.hasTime ? layout.timeReport : "header.stamp (the cloud has no time field)")
                               : "header.stamp (deskew off)";
  input.intensityField = layout.hasIntensity ? layout.intensity.name : "";
  input.originFields = input.posesName;
  input.layout = {.columns = layout.hasIntensity ? size_t(8) : size_t(7), .hasTime = true, .hasOrigin = true,
                  .hasIntensity = layout.hasIntensity};
  // An estimate for progress: every cloud taken as large as the first.
  input.points = topicClouds.pointsPerCloud * clouds.size();
  for (const RecordedMessage& m : clouds) input.bytes += m.fileBytes;
  input.notes.insert(input.notes.begin(), "topic " + topic.name + " (" + std::to_string(clouds.size()) + " clouds)");
  if (!windowNote.empty()) input.notes.push_back(windowNote);
  input.source = std::make_unique<RecordingPointSource>(std::move(rec), std::move(clouds), choice.encoding, layout,
                                                        std::move(*poser), frameName(sensorFrame), opt.sensorFrame.empty(),
                                                        opt.deskew, options.exclusion);
  input.excludesItself = true;
  return input;
}

}  // namespace voxen::detail
