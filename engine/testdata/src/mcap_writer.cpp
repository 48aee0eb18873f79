#include <algorithm>
#include <cstring>
#include <map>

#include "voxen/input/mcap_compression.hpp"
#include "voxen/input/mcap_records.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/mcap_reader.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen::mcap {

using namespace format;

struct Writer::Impl {
  Impl(const std::filesystem::path& path, WriterOptions o) : out(path, "MCAP"), options(std::move(o)) {}

  voxen::detail::AtomicFileWriter out;
  WriterOptions options;
  Compression compression = Compression::None;
  bool closed = false;
  uint32_t dataCrc = 0;
  std::vector<std::string> schemaRecords, channelRecords, chunkIndexRecords;
  std::vector<uint16_t> channelSchemas;  // by channel id - 1
  std::map<uint16_t, uint64_t> channelCounts;
  uint64_t messageCount = 0, startTime = 0, endTime = 0;
  uint32_t chunkCount = 0;

  // The open chunk: its records and, per channel, (log time, offset) of each message.
  std::string chunk;
  std::map<uint16_t, std::vector<std::pair<uint64_t, uint64_t>>> chunkIndex;
  uint64_t chunkStart = 0, chunkEnd = 0;

  void emit(const std::string& bytes) {
    out.write(bytes.data(), bytes.size());
    if (options.crcs) dataCrc = crc32Of(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), dataCrc);
  }
  void flushChunk();
};

Writer::Writer(const std::filesystem::path& path, WriterOptions options)
    : impl_(std::make_unique<Impl>(path, std::move(options))) {
  Impl& m = *impl_;
  const auto c = compressionFromName(m.options.compression);
  if (!c) throw Error("MCAP writer: unknown compression '" + m.options.compression + "' (use \"\", \"zstd\" or \"lz4\")");
  m.compression = *c;
  std::string head(reinterpret_cast<const char*>(kMagic), 8);
  FieldWriter w(head);
  const size_t at = w.begin(kHeader);
  w.string(m.options.profile);
  w.string("voxen");
  w.finish(at);
  m.emit(head);
}

Writer::~Writer() = default;

uint16_t Writer::addSchema(const std::string& name, const std::string& encoding, std::span<const uint8_t> data) {
  Impl& m = *impl_;
  if (m.closed) throw Error("MCAP writer: addSchema after close");
  if (m.schemaRecords.size() >= 65535) throw Error("MCAP writer: more than 65535 schemas");
  const uint16_t id = uint16_t(m.schemaRecords.size() + 1);
  std::string r;
  FieldWriter w(r);
  const size_t at = w.begin(kSchema);
  w.u16(id);
  w.string(name);
  w.string(encoding);
  w.u32(uint32_t(data.size()));
  w.bytes(data);
  w.finish(at);
  m.emit(r);  // in the data section at once, so that it precedes every chunk that uses it
  m.schemaRecords.push_back(std::move(r));
  return id;
}

uint16_t Writer::addChannel(uint16_t schemaId, const std::string& topic, const std::string& messageEncoding) {
  Impl& m = *impl_;
  if (m.closed) throw Error("MCAP writer: addChannel after close");
  if (schemaId > m.schemaRecords.size())
    throw Error("MCAP writer: channel '" + topic + "' names schema " + std::to_string(schemaId) + ", which was never added");
  if (m.channelRecords.size() >= 65535) throw Error("MCAP writer: more than 65535 channels");
  const uint16_t id = uint16_t(m.channelRecords.size() + 1);
  std::string r;
  FieldWriter w(r);
  const size_t at = w.begin(kChannel);
  w.u16(id);
  w.u16(schemaId);
  w.string(topic);
  w.string(messageEncoding);
  w.u32(0);  // no metadata
  w.finish(at);
  m.emit(r);
  m.channelRecords.push_back(std::move(r));
  return id;
}

void Writer::write(uint16_t channelId, uint64_t logTime, uint64_t publishTime, std::span<const uint8_t> data) {
  Impl& m = *impl_;
  if (m.closed) throw Error("MCAP writer: write after close");
  if (channelId == 0 || channelId > m.channelRecords.size())
    throw Error("MCAP writer: message on channel " + std::to_string(channelId) + ", which was never added");
  const bool chunked = m.options.chunkBytes > 0;
  std::string local;
  std::string& target = chunked ? m.chunk : local;
  if (chunked && m.chunk.empty()) m.chunkStart = m.chunkEnd = logTime;
  const uint64_t offset = target.size();
  FieldWriter w(target);
  const size_t at = w.begin(kMessage);
  w.u16(channelId);
  w.u32(uint32_t(m.channelCounts[channelId]));  // the channel's message number, as a sequence
  w.u64(logTime);
  w.u64(publishTime);
  w.bytes(data);
  w.finish(at);
  m.startTime = m.messageCount == 0 ? logTime : std::min(m.startTime, logTime);
  m.endTime = m.messageCount == 0 ? logTime : std::max(m.endTime, logTime);
  ++m.messageCount;
  ++m.channelCounts[channelId];
  if (!chunked) {
    m.emit(local);
    return;
  }
  m.chunkStart = std::min(m.chunkStart, logTime);
  m.chunkEnd = std::max(m.chunkEnd, logTime);
  m.chunkIndex[channelId].emplace_back(logTime, offset);
  if (m.chunk.size() >= m.options.chunkBytes) m.flushChunk();
}

void Writer::Impl::flushChunk() {
  if (chunk.empty()) return;
  const auto records = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(chunk.data()), chunk.size());
  const std::string packed = compress(compression, records);
  const uint64_t chunkOffset = out.written();
  std::string r;
  FieldWriter w(r);
  const size_t at = w.begin(kChunk);
  w.u64(chunkStart);
  w.u64(chunkEnd);
  w.u64(chunk.size());
  w.u32(options.crcs ? crc32Of(records.data(), records.size()) : 0);
  w.string(compressionName(compression));
  w.u64(packed.size());
  w.finish(at);  // the length so far; the records follow
  const uint64_t recordLength = r.size() - kRecordPrefix + packed.size();
  std::memcpy(r.data() + 1, &recordLength, 8);
  emit(r);
  emit(packed);
  const uint64_t chunkLength = r.size() + packed.size();

  std::string indexes;
  std::vector<std::pair<uint16_t, uint64_t>> indexOffsets;
  if (options.messageIndexes) {
    FieldWriter iw(indexes);
    for (const auto& [channel, entries] : chunkIndex) {
      indexOffsets.emplace_back(channel, out.written() + indexes.size());
      const size_t iat = iw.begin(kMessageIndex);
      iw.u16(channel);
      iw.u32(uint32_t(entries.size() * 16));
      for (const auto& [time, offset] : entries) {
        iw.u64(time);
        iw.u64(offset);
      }
      iw.finish(iat);
    }
    emit(indexes);
  }

  std::string ci;
  FieldWriter cw(ci);
  const size_t cat = cw.begin(kChunkIndex);
  cw.u64(chunkStart);
  cw.u64(chunkEnd);
  cw.u64(chunkOffset);
  cw.u64(chunkLength);
  cw.u32(uint32_t(indexOffsets.size() * 10));
  for (const auto& [channel, offset] : indexOffsets) {
    cw.u16(channel);
    cw.u64(offset);
  }
  cw.u64(indexes.size());
  cw.string(compressionName(compression));
  cw.u64(packed.size());
  cw.u64(chunk.size());
  cw.finish(cat);
  chunkIndexRecords.push_back(std::move(ci));
  ++chunkCount;
  chunk.clear();
  chunkIndex.clear();
}

void Writer::close() {
  Impl& m = *impl_;
  if (m.closed) throw Error("MCAP writer: close called twice");
  m.flushChunk();
  std::string tail;
  FieldWriter w(tail);
  size_t at = w.begin(kDataEnd);
  w.u32(m.dataCrc);
  w.finish(at);
  const uint64_t summaryStart = m.options.summary ? m.out.written() + tail.size() : 0;
  const size_t summaryFrom = tail.size();
  if (m.options.summary) {
    for (const std::string& r : m.schemaRecords) tail += r;
    for (const std::string& r : m.channelRecords) tail += r;
    at = w.begin(kStatistics);
    w.u64(m.messageCount);
    w.u16(uint16_t(m.schemaRecords.size()));
    w.u32(uint32_t(m.channelRecords.size()));
    w.u32(0);  // attachments
    w.u32(0);  // metadata
    w.u32(m.chunkCount);
    w.u64(m.messageCount ? m.startTime : 0);
    w.u64(m.messageCount ? m.endTime : 0);
    w.u32(uint32_t(m.channelCounts.size() * 10));
    for (const auto& [channel, count] : m.channelCounts) {
      w.u16(channel);
      w.u64(count);
    }
    w.finish(at);
    for (const std::string& r : m.chunkIndexRecords) tail += r;
  }
  const size_t footerAt = tail.size();
  // The length is written outright: the CRC below covers it.
  w.u8(kFooter);
  w.u64(kFooterBytes - kRecordPrefix);
  w.u64(summaryStart);
  w.u64(0);  // no summary offset section
  const size_t crcFrom = m.options.summary ? summaryFrom : footerAt;
  w.u32(m.options.crcs ? crc32Of(reinterpret_cast<const uint8_t*>(tail.data()) + crcFrom, tail.size() - crcFrom) : 0);
  tail.append(reinterpret_cast<const char*>(kMagic), 8);
  m.out.write(tail.data(), tail.size());
  m.out.commit();
  m.closed = true;
}

}  // namespace voxen::mcap
