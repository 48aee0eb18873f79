// An MCAP file as a recording: its channels are the topics (type from the channel's schema),
// messages located through the reader's index and read one at a time.
#include <algorithm>

#include "recording.hpp"
#include "voxen/host/error.hpp"
#include "voxen/io/mcap_reader.hpp"

namespace voxen::detail {

namespace {

class McapRecording final : public Recording {
 public:
  explicit McapRecording(const std::filesystem::path& path) : reader_(path) {
    for (const auto& [id, channel] : reader_.channels()) {
      RecordingTopic topic;
      topic.name = channel.topic;
      const auto schema = reader_.schemas().find(channel.schemaId);
      topic.type = schema != reader_.schemas().end() ? schema->second.name : "";
      topic.encoding = channel.messageEncoding;
      topic.messages = reader_.messageCount(id);
      channelOf_.push_back(id);
      topics_.push_back(std::move(topic));
    }
    if (const auto span = reader_.timeSpan()) span_ = {int64_t(span->first), int64_t(span->second)};
  }

  const char* formatName() const override { return "MCAP"; }
  const std::filesystem::path& path() const override { return reader_.path(); }
  uint64_t fileBytes() const override { return reader_.fileBytes(); }
  const std::vector<RecordingTopic>& topics() const override { return topics_; }
  std::optional<std::pair<int64_t, int64_t>> timeSpan() const override { return span_; }

  std::vector<RecordedMessage> index(std::span<const uint32_t> topics) override {
    std::vector<uint16_t> channels;
    for (const uint32_t t : topics) channels.push_back(channelOf_.at(t));
    std::vector<RecordedMessage> out;
    for (const mcap::MessageLocation& location : reader_.index(channels)) {
      const auto it = std::find(channelOf_.begin(), channelOf_.end(), location.channelId);
      out.push_back({uint32_t(it - channelOf_.begin()), int64_t(location.logTime), location.fileBytes,
                     uint64_t(locations_.size())});
      locations_.push_back(location);
    }
    return out;
  }

  bool concurrentReads() const override { return true; }
  std::span<const uint8_t> readInPlace(const RecordedMessage& message) const override {
    // One buffer per thread: the reader is a read-only mapping, each thread decompresses
    // (and checks) its own chunks.
    thread_local mcap::Reader::ReadBuffer buffer;
    return reader_.read(locations_.at(message.handle), buffer).data;
  }

  void read(const RecordedMessage& message, std::vector<uint8_t>& out) override {
    const mcap::Message m = reader_.read(locations_.at(message.handle));
    out.assign(m.data.begin(), m.data.end());
  }

 private:
  mcap::Reader reader_;
  std::vector<RecordingTopic> topics_;
  std::vector<uint16_t> channelOf_;  // topic index -> channel id
  std::optional<std::pair<int64_t, int64_t>> span_;
  std::vector<mcap::MessageLocation> locations_;
};

}  // namespace

std::unique_ptr<Recording> openMcap(const std::filesystem::path& path) { return std::make_unique<McapRecording>(path); }

}  // namespace voxen::detail
