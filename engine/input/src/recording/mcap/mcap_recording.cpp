// An MCAP file as a recording: its channels are the topics (type from the channel's schema),
// messages located through the reader's index and read one at a time.
#include <algorithm>
#include <map>

#include "recording/recording.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/mcap_reader.hpp"

namespace voxen::detail {

namespace {

class McapRecording final : public Recording {
 public:
  // Channels of one topic are one topic (a recording with several publishers on a topic has
  // a channel for each), as long as they agree on its type and encoding.
  explicit McapRecording(const std::filesystem::path& path) : reader_(path) {
    std::map<std::string, uint32_t> byTopic;
    for (const auto& [id, channel] : reader_.channels()) {
      const auto schema = reader_.schemas().find(channel.schemaId);
      const std::string type = schema != reader_.schemas().end() ? schema->second.name : "";
      auto [it, added] = byTopic.emplace(channel.topic, uint32_t(topics_.size()));
      if (added) {
        topics_.push_back({channel.topic, type, channel.messageEncoding, 0});
        channelsOf_.emplace_back();
      } else if (topics_[it->second].type != type || topics_[it->second].encoding != channel.messageEncoding) {
        throw Error(path.string() + ": topic " + channel.topic + " has channels of two kinds: " +
                    topics_[it->second].type + " (" + topics_[it->second].encoding + ") and " + type + " (" +
                    channel.messageEncoding + ")");
      }
      topics_[it->second].messages += reader_.messageCount(id);
      channelsOf_[it->second].push_back(id);
      topicOf_[id] = it->second;
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
    for (const uint32_t t : topics) channels.insert(channels.end(), channelsOf_.at(t).begin(), channelsOf_.at(t).end());
    std::vector<RecordedMessage> out;
    for (const mcap::MessageLocation& location : reader_.index(channels)) {
      out.push_back({topicOf_.at(location.channelId), int64_t(location.logTime), location.fileBytes,
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
  std::vector<std::vector<uint16_t>> channelsOf_;  // topic index -> its channels
  std::map<uint16_t, uint32_t> topicOf_;           // channel -> topic index
  std::optional<std::pair<int64_t, int64_t>> span_;
  std::vector<mcap::MessageLocation> locations_;
};

}  // namespace

std::unique_ptr<Recording> openMcap(const std::filesystem::path& path) { return std::make_unique<McapRecording>(path); }

}  // namespace voxen::detail
