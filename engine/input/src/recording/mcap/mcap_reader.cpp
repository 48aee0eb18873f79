#include "voxen/input/mcap_reader.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <new>

#include "mapped_file.hpp"
#include "voxen/input/mcap_compression.hpp"
#include "voxen/input/mcap_records.hpp"
#include "voxen/host/error.hpp"

namespace voxen::mcap {

using namespace format;

namespace {

constexpr uint64_t kNotInChunk = std::numeric_limits<uint64_t>::max();

struct ChunkInfo {
  uint64_t offset = 0;       // of the Chunk record in the file
  uint64_t recordBytes = 0;  // the whole record, opcode and length included
  uint64_t dataOffset = 0;   // of its (compressed) records in the file
  uint64_t compressedSize = 0, uncompressedSize = 0;
  uint32_t crc = 0;
  Compression compression = Compression::None;
};

struct Statistics {
  uint64_t messageCount = 0;
};

Schema parseSchema(const Record& r, const std::string& where, uint64_t base) {
  FieldReader f(r.content, base + r.offset + kRecordPrefix, "Schema", where);
  Schema s;
  s.id = f.u16("id");
  s.name = f.string("name");
  s.encoding = f.string("encoding");
  const auto data = f.bytes("data", f.u32("data length"));
  s.data.assign(data.begin(), data.end());
  return s;
}

Channel parseChannel(const Record& r, const std::string& where, uint64_t base) {
  FieldReader f(r.content, base + r.offset + kRecordPrefix, "Channel", where);
  Channel c;
  c.id = f.u16("id");
  c.schemaId = f.u16("schema_id");
  c.topic = f.string("topic");
  c.messageEncoding = f.string("message_encoding");
  const uint32_t mapBytes = f.u32("metadata length");
  FieldReader m(f.bytes("metadata", mapBytes), f.offset() - mapBytes, "Channel", where);
  while (m.left() > 0) {
    std::string key = m.string("metadata key");
    c.metadata[std::move(key)] = m.string("metadata value");
  }
  return c;
}

}  // namespace

struct Reader::Impl {
  // Tells readers apart for a ReadBuffer's cached chunk: an address could be reused by the
  // next Reader, a number is not.
  uint64_t id = nextReaderId();
  static uint64_t nextReaderId() {
    static std::atomic<uint64_t> next{1};
    return next++;
  }
  std::filesystem::path path;
  std::string name;  // the path as messages show it
  std::optional<voxen::detail::MappedFile> map;
  std::span<const uint8_t> file;
  uint64_t footerOffset = 0;
  uint64_t summaryStart = 0;
  bool fromSummary = false;
  std::string profile;
  std::map<uint16_t, Schema> schemas;
  std::map<uint16_t, Channel> channels;
  std::map<uint16_t, uint64_t> counts;
  std::vector<ChunkInfo> chunks;             // by file offset
  std::vector<MessageLocation> locations;    // by log time, then file order

  // The last chunk read: its records, decompressed into `buffer` or straight in the mapping.
  Decompressor decompressor;
  size_t cachedChunk = SIZE_MAX;
  std::unique_ptr<uint8_t[]> buffer;  // not a vector: growing it need not zero bytes about to be overwritten
  uint64_t bufferBytes = 0;
  std::span<const uint8_t> chunkRecords;
  std::string chunkWhere;

  std::string at(uint64_t offset) const { return name + ": byte " + std::to_string(offset); }

  void open();
  void readHeader();
  bool readSummary();
  void scanLinearly();
  size_t addChunk(uint64_t offset, uint64_t limit);
  std::span<const uint8_t> chunkData(size_t index);
  std::span<const uint8_t> decodeChunk(const ChunkInfo& c, Decompressor& decompressor, std::unique_ptr<uint8_t[]>& buffer,
                                       uint64_t& bufferBytes, const std::string& where) const;
  size_t chunkIndexOf(uint64_t chunkOffset) const;
  Message messageAt(std::span<const uint8_t> region, const MessageLocation& location, const std::string& where) const;
  void walkChunk(size_t index);
  bool takeDefinitionOrMessage(const Record& r, uint64_t pos, uint64_t chunkOffset, uint64_t bytes, const std::string& where);
  void addMessage(uint16_t channelId, uint64_t logTime, uint64_t chunkOffset, uint64_t offset, uint64_t bytes,
                  const std::string& where);
  void finishIndex();
};

void Reader::Impl::open() {
  name = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(name + ": not a readable MCAP file (missing or not a regular file)");
  map = voxen::detail::MappedFile::open(path);
  if (!map) {
    if (std::filesystem::file_size(path, ec) == 0 && !ec) throw Error(name + ": empty file, not an MCAP file");
    throw Error(name + ": cannot be read (memory-mapping it failed)");
  }
  file = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(map->data()), map->size());
  if (file.size() < 8 || std::memcmp(file.data(), kMagic, 8) != 0)
    throw Error(name + ": not an MCAP file (it does not begin with the MCAP magic bytes 89 4D 43 41 50 30 0D 0A)");
  if (file.size() < 8 + kRecordPrefix + kFooterBytes + 8 || std::memcmp(file.data() + file.size() - 8, kMagic, 8) != 0)
    throw Error(name + ": does not end with the MCAP magic bytes: truncated (" + std::to_string(file.size()) +
                " bytes) or still being written");
  footerOffset = file.size() - 8 - kFooterBytes;
  const Record footer = recordAt(file.first(file.size() - 8), footerOffset, name);
  if (footer.op != kFooter || footer.content.size() != kFooterBytes - kRecordPrefix)
    throw Error(at(footerOffset) + ": expected the Footer record (opcode 0x02, 20 bytes) before the closing magic");
  FieldReader f(footer.content, footerOffset + kRecordPrefix, "Footer", name);
  summaryStart = f.u64("summary_start");
  const uint64_t summaryOffsetStart = f.u64("summary_offset_start");
  const uint32_t summaryCrc = f.u32("summary_crc");
  if (summaryStart != 0 && (summaryStart < 8 || summaryStart > footerOffset))
    throw Error(at(footerOffset) + ": Footer's summary_start " + std::to_string(summaryStart) +
                " lies outside the file's records (8 to " + std::to_string(footerOffset) + ")");
  if (summaryOffsetStart != 0 && (summaryOffsetStart < summaryStart || summaryOffsetStart > footerOffset))
    throw Error(at(footerOffset) + ": Footer's summary_offset_start " + std::to_string(summaryOffsetStart) +
                " lies outside the summary (" + std::to_string(summaryStart) + " to " + std::to_string(footerOffset) + ")");
  if (summaryCrc != 0) {
    // From the summary (or, without one, the footer itself) through summary_offset_start.
    const uint64_t from = summaryStart != 0 ? summaryStart : footerOffset;
    const uint32_t actual = crc32Of(file.data() + from, footerOffset + kRecordPrefix + 16 - from);
    if (actual != summaryCrc)
      throw Error(at(from) + ": summary CRC mismatch: the footer says " + hex32(summaryCrc) + ", the bytes give " +
                  hex32(actual));
  }
  readHeader();
  fromSummary = readSummary();
  if (!fromSummary) scanLinearly();
  finishIndex();
}

void Reader::Impl::readHeader() {
  const Record header = recordAt(file.first(footerOffset), 8, name);
  if (header.op != kHeader) throw Error(at(8) + ": expected the Header record (opcode 0x01) after the magic");
  FieldReader f(header.content, 8 + kRecordPrefix, "Header", name);
  profile = f.string("profile");
}

// The Chunk record at `offset` (its records must end before `limit`), appended to `chunks`.
size_t Reader::Impl::addChunk(uint64_t offset, uint64_t limit) {
  const Record r = recordAt(file.first(limit), offset, name);
  if (r.op != kChunk) throw Error(at(offset) + ": expected a Chunk record (opcode 0x06) there");
  FieldReader f(r.content, offset + kRecordPrefix, "Chunk", name);
  ChunkInfo c;
  c.offset = offset;
  c.recordBytes = kRecordPrefix + r.content.size();
  f.u64("message_start_time");
  f.u64("message_end_time");
  c.uncompressedSize = f.u64("uncompressed_size");
  c.crc = f.u32("uncompressed_crc");
  const std::string compression = f.string("compression");
  c.compressedSize = f.u64("records length");
  c.dataOffset = f.offset();
  f.bytes("records", c.compressedSize);
  const auto known = compressionFromName(compression);
  if (!known)
    throw Error(at(offset) + ": chunk compressed with '" + compression + "', which Voxen cannot read (only zstd, lz4 or none)");
  c.compression = *known;
  if (c.compression == Compression::None && c.uncompressedSize != c.compressedSize)
    throw Error(at(offset) + ": uncompressed chunk of " + std::to_string(c.compressedSize) +
                " bytes says its records are " + std::to_string(c.uncompressedSize) + " bytes");
  // Neither zstd nor an lz4 frame expands data more than ~32768-fold: a larger claim is a
  // corrupt size field, refused before it turns into a huge allocation.
  if (c.uncompressedSize / 32768 > c.compressedSize + 1)
    throw Error(at(offset) + ": chunk says its " + std::to_string(c.compressedSize) + " compressed bytes hold " +
                std::to_string(c.uncompressedSize) + " bytes, more than any " + compression + " data can");
  if (!chunks.empty() && chunks.back().offset >= offset)
    throw Error(at(offset) + ": chunk listed out of file order or twice");
  chunks.push_back(c);
  return chunks.size() - 1;
}

// A chunk's records as the caller's buffer holds them: decompressed into `buffer` (grown as
// needed) or straight in the mapping, the CRC checked. Const: any thread with its own buffer.
std::span<const uint8_t> Reader::Impl::decodeChunk(const ChunkInfo& c, Decompressor& decompressor,
                                                   std::unique_ptr<uint8_t[]>& buffer, uint64_t& bufferBytes,
                                                   const std::string& where) const {
  const std::span<const uint8_t> src = file.subspan(size_t(c.dataOffset), size_t(c.compressedSize));
  std::span<const uint8_t> records;
  if (c.compression == Compression::None) {
    records = src;
  } else {
    if (bufferBytes < c.uncompressedSize) {
      buffer.reset();
      bufferBytes = 0;
      try {
        buffer.reset(new uint8_t[size_t(c.uncompressedSize)]);
      } catch (const std::bad_alloc&) {
        throw Error(where + ": cannot allocate the " + std::to_string(c.uncompressedSize) +
                    " bytes its records decompress to");
      }
      bufferBytes = c.uncompressedSize;
    }
    decompressor.decompress(c.compression, src, buffer.get(), c.uncompressedSize, where);
    records = std::span<const uint8_t>(buffer.get(), size_t(c.uncompressedSize));
  }
  if (c.crc != 0) {
    const uint32_t actual = crc32Of(records.data(), records.size());
    if (actual != c.crc)
      throw Error(where + ": CRC mismatch of its uncompressed records: the chunk says " + hex32(c.crc) +
                  ", the records give " + hex32(actual));
  }
  return records;
}

std::span<const uint8_t> Reader::Impl::chunkData(size_t index) {
  if (index == cachedChunk) return chunkRecords;
  const ChunkInfo& c = chunks[index];
  cachedChunk = SIZE_MAX;  // until the new one has passed its checks
  chunkWhere = name + ": chunk at byte " + std::to_string(c.offset);
  chunkRecords = decodeChunk(c, decompressor, buffer, bufferBytes, chunkWhere);
  chunkWhere += " (uncompressed records)";
  cachedChunk = index;
  return chunkRecords;
}

void Reader::Impl::addMessage(uint16_t channelId, uint64_t logTime, uint64_t chunkOffset, uint64_t offset,
                              uint64_t bytes, const std::string& where) {
  if (!channels.count(channelId))
    throw Error(where + ": byte " + std::to_string(offset) + ": message on channel " + std::to_string(channelId) +
                ", which no Channel record defines before it");
  MessageLocation l;
  l.channelId = channelId;
  l.logTime = logTime;
  l.chunkOffset = chunkOffset;
  l.offset = offset;
  l.fileBytes = bytes;
  locations.push_back(l);
}

// Every record of the chunk: schemas and channels defined there, and its messages.
void Reader::Impl::walkChunk(size_t index) {
  const std::span<const uint8_t> records = chunkData(index);
  const std::string& where = chunkWhere;
  for (uint64_t pos = 0; pos < records.size();) {
    const Record r = recordAt(records, pos, where);
    takeDefinitionOrMessage(r, pos, chunks[index].offset, 0, where);
    pos = r.end();
  }
}

// A Schema, Channel or Message record met while reading the data: kept, or located (a
// message in the chunk at chunkOffset, or in the file when kNotInChunk, accounting for
// `bytes` of it). False for any other record.
bool Reader::Impl::takeDefinitionOrMessage(const Record& r, uint64_t pos, uint64_t chunkOffset, uint64_t bytes,
                                           const std::string& where) {
  if (r.op == kSchema) {
    Schema s = parseSchema(r, where, 0);
    if (s.id != 0) schemas[s.id] = std::move(s);
  } else if (r.op == kChannel) {
    Channel c = parseChannel(r, where, 0);
    channels[c.id] = std::move(c);
  } else if (r.op == kMessage) {
    FieldReader f(r.content, pos + kRecordPrefix, "Message", where);
    const uint16_t channel = f.u16("channel_id");
    f.u32("sequence");
    const uint64_t logTime = f.u64("log_time");
    f.u64("publish_time");
    addMessage(channel, logTime, chunkOffset, pos, bytes, where);
  } else {
    return false;
  }
  return true;
}

// The summary's schemas, channels and chunk indexes, and each chunk's message indexes. False
// when they do not locate every message (no summary, no chunk indexes, fewer messages than
// the statistics count, a channel only the data section defines): the caller scans instead.
bool Reader::Impl::readSummary() {
  if (summaryStart == 0) return false;
  const std::span<const uint8_t> summary = file.first(footerOffset);
  struct ChunkIndex {
    uint64_t chunkOffset, chunkLength;
    std::vector<std::pair<uint16_t, uint64_t>> messageIndexes;
  };
  std::vector<ChunkIndex> indexes;
  std::optional<Statistics> statistics;
  for (uint64_t pos = summaryStart; pos < footerOffset;) {
    const Record r = recordAt(summary, pos, name);
    if (r.op == kSchema) {
      Schema s = parseSchema(r, name, 0);
      if (s.id != 0) schemas[s.id] = std::move(s);
    } else if (r.op == kChannel) {
      Channel c = parseChannel(r, name, 0);
      channels[c.id] = std::move(c);
    } else if (r.op == kStatistics) {
      FieldReader f(r.content, pos + kRecordPrefix, "Statistics", name);
      statistics = Statistics{f.u64("message_count")};
    } else if (r.op == kChunkIndex) {
      FieldReader f(r.content, pos + kRecordPrefix, "ChunkIndex", name);
      ChunkIndex ci;
      f.u64("message_start_time");
      f.u64("message_end_time");
      ci.chunkOffset = f.u64("chunk_start_offset");
      ci.chunkLength = f.u64("chunk_length");
      const uint32_t mapBytes = f.u32("message_index_offsets length");
      FieldReader m(f.bytes("message_index_offsets", mapBytes), f.offset() - mapBytes, "ChunkIndex", name);
      while (m.left() > 0) {
        const uint16_t channel = m.u16("channel id");
        ci.messageIndexes.emplace_back(channel, m.u64("message index offset"));
      }
      if (ci.chunkOffset < 8 || ci.chunkOffset >= footerOffset)
        throw Error(at(pos) + ": chunk index points at byte " + std::to_string(ci.chunkOffset) + ", outside the file's records");
      indexes.push_back(std::move(ci));
    }
    pos = r.end();
  }
  if (indexes.empty()) return false;
  const auto fallBack = [&] {
    locations.clear();
    chunks.clear();
    cachedChunk = SIZE_MAX;
    return false;
  };
  std::sort(indexes.begin(), indexes.end(), [](const auto& a, const auto& b) { return a.chunkOffset < b.chunkOffset; });
  for (const ChunkIndex& ci : indexes) {
    const size_t chunk = addChunk(ci.chunkOffset, summaryStart);
    if (chunks[chunk].recordBytes != ci.chunkLength)
      throw Error(at(ci.chunkOffset) + ": chunk record is " + std::to_string(chunks[chunk].recordBytes) +
                  " bytes, its chunk index says " + std::to_string(ci.chunkLength));
    if (ci.messageIndexes.empty()) {
      walkChunk(chunk);  // not indexed: its messages are found by reading it
      continue;
    }
    const uint64_t chunkBytes = chunks[chunk].uncompressedSize;
    for (const auto& [channel, offset] : ci.messageIndexes) {
      if (!channels.count(channel)) return fallBack();
      const Record r = recordAt(file.first(summaryStart), offset, name);
      if (r.op != kMessageIndex)
        throw Error(at(offset) + ": expected a MessageIndex record (opcode 0x07) there, as the chunk index of the chunk at byte " +
                    std::to_string(ci.chunkOffset) + " says");
      FieldReader f(r.content, offset + kRecordPrefix, "MessageIndex", name);
      if (f.u16("channel_id") != channel)
        throw Error(at(offset) + ": MessageIndex record is for another channel than its chunk index says (" +
                    std::to_string(channel) + ")");
      const uint32_t entryBytes = f.u32("records length");
      if (entryBytes % 16 != 0)
        throw Error(at(offset) + ": MessageIndex records length " + std::to_string(entryBytes) + " is not a multiple of 16");
      FieldReader e(f.bytes("records", entryBytes), f.offset() - entryBytes, "MessageIndex", name);
      while (e.left() > 0) {
        const uint64_t at = e.offset();
        const uint64_t logTime = e.u64("log_time");
        const uint64_t messageOffset = e.u64("offset");
        if (messageOffset >= chunkBytes || chunkBytes - messageOffset < kRecordPrefix + kMessageFixedBytes)
          throw Error(name + ": byte " + std::to_string(at) + ": message index entry points at byte " +
                      std::to_string(messageOffset) + " of a chunk whose records are " + std::to_string(chunkBytes) +
                      " bytes");
        addMessage(channel, logTime, ci.chunkOffset, messageOffset, 0, name);
      }
    }
  }
  // Messages outside chunks are in no index: the linear scan finds them all.
  if (statistics && statistics->messageCount != locations.size()) return fallBack();
  return true;
}

void Reader::Impl::scanLinearly() {
  const uint64_t end = summaryStart != 0 ? summaryStart : footerOffset;
  const std::span<const uint8_t> data = file.first(end);
  uint64_t pos = recordAt(data, 8, name).end();  // after the Header
  while (pos < end) {
    const Record r = recordAt(data, pos, name);
    if (takeDefinitionOrMessage(r, pos, kNotInChunk, r.end() - pos, name)) {
    } else if (r.op == kChunk) {
      walkChunk(addChunk(pos, end));
    } else if (r.op == kAttachment) {
      // The crc covers every field before it; the record's own fields end with it.
      FieldReader f(r.content, pos + kRecordPrefix, "Attachment", name);
      f.u64("log_time");
      f.u64("create_time");
      f.bytes("name", f.u32("name length"));
      f.bytes("media_type", f.u32("media_type length"));
      f.bytes("data", f.u64("data length"));
      const uint64_t covered = f.offset() - pos - kRecordPrefix;
      const uint32_t crc = f.u32("crc");
      const uint32_t actual = crc != 0 ? crc32Of(r.content.data(), covered) : 0;
      if (actual != crc)
        throw Error(at(pos) + ": attachment CRC mismatch: the record says " + hex32(crc) + ", its bytes give " + hex32(actual));
    } else if (r.op == kDataEnd) {
      FieldReader f(r.content, pos + kRecordPrefix, "DataEnd", name);
      const uint32_t crc = f.u32("data_section_crc");
      const uint32_t actual = crc != 0 ? crc32Of(file.data(), pos) : 0;
      if (actual != crc)
        throw Error(at(pos) + ": data section CRC mismatch: the DataEnd record says " + hex32(crc) +
                    ", the bytes before it give " + hex32(actual));
      break;
    }
    pos = r.end();
  }
}

// Each chunk's bytes shared among its messages (so that the shares add up to the chunk),
// then the order the header promises: log time, then file order.
void Reader::Impl::finishIndex() {
  for (size_t i = 0, n = locations.size(); i < n;) {
    if (locations[i].chunkOffset == kNotInChunk) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && locations[j].chunkOffset == locations[i].chunkOffset) ++j;
    const auto chunk = std::lower_bound(chunks.begin(), chunks.end(), locations[i].chunkOffset,
                                        [](const ChunkInfo& c, uint64_t offset) { return c.offset < offset; });
    const uint64_t bytes = chunk->recordBytes, count = j - i;
    for (size_t k = i; k < j; ++k) locations[k].fileBytes = bytes / count + (k - i < bytes % count ? 1 : 0);
    i = j;
  }
  const auto filePosition = [](const MessageLocation& l) { return l.chunkOffset == kNotInChunk ? l.offset : l.chunkOffset; };
  std::sort(locations.begin(), locations.end(), [&](const MessageLocation& a, const MessageLocation& b) {
    if (a.logTime != b.logTime) return a.logTime < b.logTime;
    const uint64_t pa = filePosition(a), pb = filePosition(b);
    if (pa != pb) return pa < pb;
    return a.offset < b.offset;
  });
  for (const MessageLocation& l : locations) ++counts[l.channelId];
}

Reader::Reader(const std::filesystem::path& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->open();
}

Reader::~Reader() = default;
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;

const std::filesystem::path& Reader::path() const { return impl_->path; }
uint64_t Reader::fileBytes() const { return impl_->file.size(); }
bool Reader::hasSummary() const { return impl_->fromSummary; }
const std::string& Reader::profile() const { return impl_->profile; }
const std::map<uint16_t, Schema>& Reader::schemas() const { return impl_->schemas; }
const std::map<uint16_t, Channel>& Reader::channels() const { return impl_->channels; }

uint64_t Reader::messageCount(uint16_t channelId) const {
  const auto it = impl_->counts.find(channelId);
  return it == impl_->counts.end() ? 0 : it->second;
}

std::optional<std::pair<uint64_t, uint64_t>> Reader::timeSpan() const {
  if (impl_->locations.empty()) return std::nullopt;
  return std::make_pair(impl_->locations.front().logTime, impl_->locations.back().logTime);
}

std::vector<MessageLocation> Reader::index(std::span<const uint16_t> channelIds) const {
  std::vector<bool> wanted(65536, false);
  for (const uint16_t id : channelIds) wanted[id] = true;
  std::vector<MessageLocation> out;
  for (const MessageLocation& l : impl_->locations)
    if (wanted[l.channelId]) out.push_back(l);
  return out;
}

size_t Reader::Impl::chunkIndexOf(uint64_t chunkOffset) const {
  const auto it = std::lower_bound(chunks.begin(), chunks.end(), chunkOffset,
                                   [](const ChunkInfo& c, uint64_t offset) { return c.offset < offset; });
  if (it == chunks.end() || it->offset != chunkOffset)
    throw Error(at(chunkOffset) + ": no chunk of this file starts there (a location from another file?)");
  return size_t(it - chunks.begin());
}

// The Message record at location.offset of `region` (a chunk's records, or the file's data).
Message Reader::Impl::messageAt(std::span<const uint8_t> region, const MessageLocation& location,
                                const std::string& where) const {
  const Record r = recordAt(region, location.offset, where);
  if (r.op != kMessage)
    throw Error(where + ": byte " + std::to_string(location.offset) + ": expected a Message record (opcode 0x05) there");
  FieldReader f(r.content, location.offset + kRecordPrefix, "Message", where);
  Message msg;
  msg.channelId = f.u16("channel_id");
  msg.sequence = f.u32("sequence");
  msg.logTime = f.u64("log_time");
  msg.publishTime = f.u64("publish_time");
  msg.data = f.rest();
  if (msg.channelId != location.channelId || msg.logTime != location.logTime)
    throw Error(where + ": byte " + std::to_string(location.offset) + ": message is on channel " +
                std::to_string(msg.channelId) + " at log time " + std::to_string(msg.logTime) + ", its index says channel " +
                std::to_string(location.channelId) + " at " + std::to_string(location.logTime));
  return msg;
}

Message Reader::read(const MessageLocation& location) {
  Impl& m = *impl_;
  if (location.chunkOffset == kNotInChunk)
    return m.messageAt(m.file.first(m.summaryStart != 0 ? m.summaryStart : m.footerOffset), location, m.name);
  const std::span<const uint8_t> region = m.chunkData(m.chunkIndexOf(location.chunkOffset));
  return m.messageAt(region, location, m.chunkWhere);
}

struct Reader::ReadBuffer::State {
  Decompressor decompressor;
  std::unique_ptr<uint8_t[]> buffer;
  uint64_t bufferBytes = 0;
  uint64_t reader = 0;  // the chunk held: of which reader (Impl::id), which chunk
  size_t chunk = SIZE_MAX;
  std::span<const uint8_t> records;
  std::string where;
};

Reader::ReadBuffer::ReadBuffer() : state_(std::make_unique<State>()) {}
Reader::ReadBuffer::~ReadBuffer() = default;

Message Reader::read(const MessageLocation& location, ReadBuffer& buffer) const {
  const Impl& m = *impl_;
  if (location.chunkOffset == kNotInChunk)
    return m.messageAt(m.file.first(m.summaryStart != 0 ? m.summaryStart : m.footerOffset), location, m.name);
  ReadBuffer::State& b = *buffer.state_;
  const size_t index = m.chunkIndexOf(location.chunkOffset);
  if (b.reader != m.id || b.chunk != index) {
    b.reader = 0;  // until the new chunk has passed its checks
    b.where = m.name + ": chunk at byte " + std::to_string(m.chunks[index].offset);
    b.records = m.decodeChunk(m.chunks[index], b.decompressor, b.buffer, b.bufferBytes, b.where);
    b.where += " (uncompressed records)";
    b.reader = m.id;
    b.chunk = index;
  }
  return m.messageAt(b.records, location, b.where);
}

}  // namespace voxen::mcap
