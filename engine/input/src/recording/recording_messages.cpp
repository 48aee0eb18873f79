// RecordingMessages (voxen/input/recording_messages.hpp) over the recording seam (recording.hpp).
#include "voxen/input/recording_messages.hpp"

#include "recording/recording.hpp"
#include "voxen/host/error.hpp"

namespace voxen::detail {

struct RecordingMessages::Impl {
  std::unique_ptr<Recording> recording;
  std::vector<RecordingStream> streams;
  std::vector<std::string> leftOut;
  std::vector<uint32_t> topicOfStream;
  std::vector<RecordedMessage> order;
  size_t position = 0;
};

RecordingMessages::RecordingMessages(const std::filesystem::path& path) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.recording = openRecording(path);
  const std::vector<RecordingTopic>& topics = m.recording->topics();
  std::vector<uint32_t> chosen;
  for (uint32_t t = 0; t < topics.size(); ++t) {
    bool isStatic = false;
    if (isPointCloud2(topics[t]) || (isTfMessage(topics[t]) && isTfTopic(topics[t], isStatic))) {
      topicEncoding(*m.recording, topics[t]);  // an Error for an encoding Voxen does not read
      chosen.push_back(t);
      m.topicOfStream.push_back(t);
      m.streams.push_back({topics[t].name, topics[t].type, topics[t].encoding, topics[t].messages});
    } else {
      m.leftOut.push_back(topics[t].name + " (" + topics[t].type + ")");
    }
  }
  if (chosen.empty())
    throw Error(path.string() + ": holds no sensor_msgs/PointCloud2 or tf topic to play (it has " +
                std::to_string(topics.size()) + " topics of other types)");
  m.order = m.recording->index(chosen);
}

RecordingMessages::~RecordingMessages() = default;
RecordingMessages::RecordingMessages(RecordingMessages&&) noexcept = default;
RecordingMessages& RecordingMessages::operator=(RecordingMessages&&) noexcept = default;

const std::vector<RecordingStream>& RecordingMessages::streams() const { return impl_->streams; }
const std::vector<std::string>& RecordingMessages::leftOut() const { return impl_->leftOut; }
uint64_t RecordingMessages::messages() const { return impl_->order.size(); }

bool RecordingMessages::next(size_t& stream, int64_t& timeNs, std::vector<uint8_t>& bytes) {
  Impl& m = *impl_;
  if (m.position >= m.order.size()) return false;
  const RecordedMessage& message = m.order[m.position++];
  for (size_t s = 0; s < m.topicOfStream.size(); ++s)
    if (m.topicOfStream[s] == message.topic) stream = s;
  timeNs = message.timeNs;
  m.recording->read(message, bytes);
  return true;
}

void RecordingMessages::rewind() { impl_->position = 0; }

}  // namespace voxen::detail
