#pragma once
// MCAP files (https://mcap.dev/spec, version 0), read by Voxen's own reader: the file is
// memory-mapped; records are parsed as the specification lays them out (opcode, uint64
// length, fields little-endian). Chunks may be uncompressed, "zstd" (libzstd) or "lz4" (LZ4
// frame, liblz4); a chunk's uncompressed_crc, the data section's data_crc, the summary's
// summary_crc and attachments' crc are checked when non-zero. Unknown opcodes are skipped, as
// the specification asks.
//
// With a summary section (footer -> summary_start), schemas, channels, statistics and chunk
// indexes are read from it and each chunk's message index used to locate messages without a
// linear scan; a file without a summary (or with one that lacks chunk indexes) is read
// linearly once to build the same index. Errors are voxen::Error naming the file, the byte
// offset and what is wrong (bad magic, record past the end, CRC mismatch with both values,
// a chunk that does not decompress, an unknown compression, a message on an unknown channel).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace voxen::mcap {

struct Schema {
  uint16_t id = 0;
  std::string name;      // e.g. "sensor_msgs/msg/PointCloud2"
  std::string encoding;  // e.g. "ros2msg"
  std::vector<uint8_t> data;
};

struct Channel {
  uint16_t id = 0;
  uint16_t schemaId = 0;  // 0: no schema
  std::string topic;
  std::string messageEncoding;  // e.g. "cdr"
  std::map<std::string, std::string> metadata;
};

// Where one message lies, for reading it later in any order.
struct MessageLocation {
  uint16_t channelId = 0;
  uint64_t logTime = 0;      // nanoseconds
  uint64_t chunkOffset = 0;  // file offset of its Chunk record; UINT64_MAX when not in a chunk
  uint64_t offset = 0;       // of its Message record: in the chunk's uncompressed records, or in the file
  uint64_t fileBytes = 0;    // bytes of the file this message accounts for (its share of its chunk), for progress
};

struct Message {
  uint16_t channelId = 0;
  uint32_t sequence = 0;
  uint64_t logTime = 0, publishTime = 0;
  std::span<const uint8_t> data;  // valid until the next read() on the same Reader
};

class Reader {
 public:
  // Maps the file and reads the summary or scans it; throws Error.
  explicit Reader(const std::filesystem::path& path);
  ~Reader();
  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;

  const std::filesystem::path& path() const;
  uint64_t fileBytes() const;
  bool hasSummary() const;         // read from the summary section (false: scanned linearly)
  const std::string& profile() const;  // the header's profile, e.g. "ros2"
  const std::map<uint16_t, Schema>& schemas() const;
  const std::map<uint16_t, Channel>& channels() const;
  // Messages per channel (from the statistics record, or counted while scanning).
  uint64_t messageCount(uint16_t channelId) const;
  // [first, last] log time over all messages; nullopt when there are none.
  std::optional<std::pair<uint64_t, uint64_t>> timeSpan() const;

  // Every message of the channels given, sorted by log time (ties: file order).
  std::vector<MessageLocation> index(std::span<const uint16_t> channelIds) const;
  // Reads one message (decompressing its chunk, checking the chunk's CRC; the last chunk is
  // kept for the next call). Not thread-safe: one thread at a time per Reader.
  Message read(const MessageLocation& location);

  // What a thread needs to read messages on its own: a decompressor, a buffer, the chunk it
  // holds. One per thread; it may serve several Readers.
  class ReadBuffer {
   public:
    ReadBuffer();
    ~ReadBuffer();
    ReadBuffer(const ReadBuffer&) = delete;
    ReadBuffer& operator=(const ReadBuffer&) = delete;

   private:
    friend class Reader;
    struct State;
    std::unique_ptr<State> state_;
  };
  // The same message as read(location), read with the caller's buffer: thread-safe, any
  // number of threads at once (the file is a read-only mapping). The data is valid until the
  // buffer's next use. A chunk holding several wanted messages is decompressed once per
  // message unless they come one after another to the same buffer.
  Message read(const MessageLocation& location, ReadBuffer& buffer) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A small writer for tests and `voxen generate`: one Header, schemas and channels, messages
// in chunks of about chunkBytes (0: no chunks, messages in the data section), optionally
// compressed, and a summary section with schemas, channels, statistics, chunk indexes and
// message indexes unless `summary` is false. CRCs are written (crcs = false writes zeros).
struct WriterOptions {
  std::string compression;  // "", "zstd" or "lz4"
  uint64_t chunkBytes = 1 << 20;
  bool summary = true;
  bool messageIndexes = true;
  bool crcs = true;
  std::string profile = "ros2";
};

class Writer {
 public:
  // Writes to `path` (a temporary beside it, renamed over it by close()); throws Error.
  Writer(const std::filesystem::path& path, WriterOptions options = {});
  ~Writer();  // without close(): the temporary is removed, `path` untouched
  uint16_t addSchema(const std::string& name, const std::string& encoding, std::span<const uint8_t> data);
  uint16_t addChannel(uint16_t schemaId, const std::string& topic, const std::string& messageEncoding);
  void write(uint16_t channelId, uint64_t logTime, uint64_t publishTime, std::span<const uint8_t> data);
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen::mcap
