// MCAP reader and writer: round trips over every layout the writer makes (compression,
// chunks, summary, message indexes), log-time order, CRC and corruption errors, truncation.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/mcap_reader.hpp"

using Catch::Matchers::Contains;
namespace mcap = voxen::mcap;

namespace {

struct Sent {
  uint16_t channel;
  uint64_t logTime;
  std::vector<uint8_t> data;
  uint64_t publishTime = 0;
};

std::vector<uint8_t> bytesOf(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes, size_t count) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(count));
}

template <typename T>
T load(const std::vector<uint8_t>& bytes, uint64_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

// Two channels, messages of varied lengths (an empty one too), log times given.
std::vector<Sent> writeFile(const std::filesystem::path& path, const mcap::WriterOptions& options,
                            const std::vector<uint64_t>& times) {
  mcap::Writer writer(path, options);
  const std::vector<uint8_t> schemaText = {'f', 'l', 'o', 'a', 't', '3', '2', ' ', 'x'};
  const uint16_t schema = writer.addSchema("sensor_msgs/msg/PointCloud2", "ros2msg", schemaText);
  const uint16_t points = writer.addChannel(schema, "/points", "cdr");
  const uint16_t tf = writer.addChannel(schema, "/tf", "cdr");
  std::vector<Sent> sent;
  for (size_t i = 0; i < times.size(); ++i) {
    Sent s{i % 3 == 0 ? tf : points, times[i], {}, times[i] + 5};
    for (size_t k = 0; k < (i * 7) % 40; ++k) s.data.push_back(uint8_t(i * 31 + k));
    writer.write(s.channel, s.logTime, s.publishTime, s.data);
    sent.push_back(std::move(s));
  }
  writer.close();
  return sent;
}

std::vector<uint64_t> ascending(size_t n) {
  std::vector<uint64_t> t;
  for (size_t i = 0; i < n; ++i) t.push_back(1000 + i * 10);
  return t;
}

// Reads every message on both channels in index order.
std::vector<Sent> readAll(mcap::Reader& reader) {
  const std::vector<uint16_t> ids = {1, 2};
  std::vector<Sent> out;
  for (const mcap::MessageLocation& l : reader.index(ids)) {
    const mcap::Message m = reader.read(l);
    out.push_back({m.channelId, m.logTime, std::vector<uint8_t>(m.data.begin(), m.data.end()), m.publishTime});
  }
  return out;
}

bool same(const std::vector<Sent>& a, const std::vector<Sent>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].channel != b[i].channel || a[i].logTime != b[i].logTime || a[i].data != b[i].data ||
        a[i].publishTime != b[i].publishTime)
      return false;
  return true;
}

std::string errorOf(const std::filesystem::path& path, bool readEverything = true) {
  try {
    mcap::Reader reader(path);
    if (readEverything) readAll(reader);
  } catch (const voxen::Error& e) {
    return e.what();
  }
  return "";
}

// The first Chunk record: the file offset the reader names in its locations.
uint64_t firstChunkOffset(const std::filesystem::path& path) {
  mcap::Reader reader(path);
  const std::vector<uint16_t> ids = {1, 2};
  return reader.index(ids).at(0).chunkOffset;
}

// Little-endian records laid out by hand from the specification, independent of the writer.
struct Bytes {
  std::vector<uint8_t> b;
  Bytes& u8(uint8_t v) { return raw(&v, 1); }
  Bytes& u16(uint16_t v) { return raw(&v, 2); }
  Bytes& u32(uint32_t v) { return raw(&v, 4); }
  Bytes& u64(uint64_t v) { return raw(&v, 8); }
  Bytes& str(const std::string& s) { return u32(uint32_t(s.size())).raw(s.data(), s.size()); }
  Bytes& raw(const void* p, size_t n) {
    b.insert(b.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
    return *this;
  }
  Bytes& add(const Bytes& other) { return raw(other.b.data(), other.b.size()); }
  Bytes& record(uint8_t op, const Bytes& content) { return u8(op).u64(content.b.size()).add(content); }
  size_t size() const { return b.size(); }
};

Bytes messageRecord(uint16_t channel, uint64_t time, const std::string& data) {
  Bytes content;
  content.u16(channel).u32(0).u64(time).u64(time).raw(data.data(), data.size());
  return Bytes().record(0x05, content);
}

}  // namespace

TEST_CASE("MCAP round trips: every compression, chunked or not, with and without summary and message indexes",
          "[mcap]") {
  vt::TempDir dir("mcap-roundtrip");
  for (const char* compression : {"", "zstd", "lz4"})
    for (const uint64_t chunkBytes : {uint64_t(0), uint64_t(100), uint64_t(1) << 20})
      for (const bool summary : {true, false})
        for (const bool messageIndexes : {true, false})
          for (const bool crcs : {true, false}) {
            mcap::WriterOptions o;
            o.compression = compression;
            o.chunkBytes = chunkBytes;
            o.summary = summary;
            o.messageIndexes = messageIndexes;
            o.crcs = crcs;
            INFO("compression '" << compression << "', chunkBytes " << chunkBytes << ", summary " << summary
                                 << ", message indexes " << messageIndexes << ", crcs " << crcs);
            const auto path = dir / "roundtrip.mcap";
            const std::vector<Sent> sent = writeFile(path, o, ascending(30));
            mcap::Reader reader(path);
            CHECK(reader.hasSummary() == (summary && chunkBytes > 0));
            CHECK(reader.profile() == "ros2");
            REQUIRE(reader.channels().size() == 2);
            CHECK(reader.channels().at(1).topic == "/points");
            CHECK(reader.channels().at(2).topic == "/tf");
            CHECK(reader.channels().at(2).messageEncoding == "cdr");
            REQUIRE(reader.schemas().size() == 1);
            CHECK(reader.schemas().at(1).name == "sensor_msgs/msg/PointCloud2");
            CHECK(reader.schemas().at(1).encoding == "ros2msg");
            CHECK(reader.schemas().at(1).data.size() == 9);
            CHECK(reader.messageCount(1) == 20);
            CHECK(reader.messageCount(2) == 10);
            CHECK(reader.messageCount(3) == 0);
            REQUIRE(reader.timeSpan());
            CHECK(*reader.timeSpan() == std::make_pair(uint64_t(1000), uint64_t(1290)));
            CHECK(same(readAll(reader), sent));

            const std::vector<uint16_t> tfOnly = {2};
            const auto tfIndex = reader.index(tfOnly);
            CHECK(tfIndex.size() == 10);
            uint64_t progress = 0;
            for (const auto& l : reader.index(std::vector<uint16_t>{1, 2})) {
              CHECK(l.fileBytes > 0);
              progress += l.fileBytes;
            }
            CHECK(progress <= reader.fileBytes());
            // Reading backwards (chunk after chunk evicted) gives the same bytes.
            for (auto it = tfIndex.rbegin(); it != tfIndex.rend(); ++it)
              CHECK(reader.read(*it).logTime == it->logTime);
          }
}

TEST_CASE("MCAP read with a buffer per thread: every message, from several threads at once, as read() gives it", "[mcap]") {
  vt::TempDir dir("mcap-threads");
  for (const char* compression : {"", "zstd", "lz4"}) {
    mcap::WriterOptions o;
    o.compression = compression;
    o.chunkBytes = 200;
    const auto path = dir / "threads.mcap";
    const std::vector<Sent> sent = writeFile(path, o, ascending(60));
    mcap::Reader reader(path);
    const auto index = reader.index(std::vector<uint16_t>{1, 2});
    REQUIRE(index.size() == sent.size());
    std::vector<std::vector<uint8_t>> want;
    for (const auto& l : index) {
      const mcap::Message m = reader.read(l);
      want.emplace_back(m.data.begin(), m.data.end());
    }
    // Three threads each read every message, in different orders, with their own buffers.
    std::vector<int> mismatches(3, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&, t] {
        mcap::Reader::ReadBuffer buffer;
        for (size_t n = 0; n < index.size(); ++n) {
          const size_t i = t == 1 ? index.size() - 1 - n : (n * (t + 1) * 7) % index.size();
          const mcap::Message m = static_cast<const mcap::Reader&>(reader).read(index[i], buffer);
          if (!std::equal(m.data.begin(), m.data.end(), want[i].begin(), want[i].end())) ++mismatches[size_t(t)];
        }
      });
    for (auto& thread : threads) thread.join();
    INFO("compression '" << compression << "'");
    CHECK(mismatches == std::vector<int>(3, 0));
  }
}

TEST_CASE("MCAP messages out of log-time order across chunks come back sorted, ties in file order", "[mcap]") {
  vt::TempDir dir("mcap-order");
  for (const bool summary : {true, false}) {
    INFO("summary " << summary);
    mcap::WriterOptions o;
    o.compression = "zstd";
    o.chunkBytes = 60;  // a few messages a chunk
    o.summary = summary;
    const std::vector<uint64_t> times = {500, 400, 300, 300, 200, 100, 300, 50, 600, 100, 0, 300};
    const std::vector<Sent> sent = writeFile(dir / "order.mcap", o, times);
    mcap::Reader reader(dir / "order.mcap");
    std::vector<Sent> expected = sent;
    std::stable_sort(expected.begin(), expected.end(), [](const Sent& a, const Sent& b) { return a.logTime < b.logTime; });
    CHECK(same(readAll(reader), expected));
    CHECK(*reader.timeSpan() == std::make_pair(uint64_t(0), uint64_t(600)));
  }
}

TEST_CASE("MCAP: a changed byte in a chunk is a CRC error naming the chunk's offset and both CRCs", "[mcap]") {
  vt::TempDir dir("mcap-crc");
  for (const bool summary : {true, false}) {
    INFO("summary " << summary);
    mcap::WriterOptions o;
    o.summary = summary;  // without: the error comes while scanning, with: when the message is read
    const auto path = dir / "crc.mcap";
    writeFile(path, o, ascending(10));
    const uint64_t chunk = firstChunkOffset(path);
    std::vector<uint8_t> bytes = bytesOf(path);
    // Chunk: prefix 9, times 16, uncompressed_size 8, crc 4, compression "" 4, records length 8.
    const uint32_t stored = load<uint32_t>(bytes, chunk + 9 + 24);
    const uint64_t size = load<uint64_t>(bytes, chunk + 9 + 16);
    const uint64_t records = chunk + 9 + 28 + 4 + 8;
    bytes[records + size - 3] ^= 0x40;  // in the last message's data
    const uint32_t actual = uint32_t(crc32(0, bytes.data() + records, uInt(size)));
    writeBytes(path, bytes, bytes.size());
    char expected[128];
    std::snprintf(expected, sizeof expected, "chunk at byte %llu: CRC mismatch of its uncompressed records: the chunk says 0x%08x, the records give 0x%08x",
                  (unsigned long long)chunk, stored, actual);
    CHECK_THAT(errorOf(path), Contains(path.string()) && Contains(expected));
  }
}

TEST_CASE("MCAP: every truncation of a file is an error, never a crash or a hang", "[mcap]") {
  vt::TempDir dir("mcap-truncated");
  for (const char* compression : {"", "zstd", "lz4"})
    for (const bool summary : {true, false}) {
      INFO("compression '" << compression << "', summary " << summary);
      mcap::WriterOptions o;
      o.compression = compression;
      o.chunkBytes = 80;
      o.summary = summary;
      const auto path = dir / "cut.mcap";
      writeFile(path, o, ascending(8));
      // Cut shorter and shorter in place: rewriting each prefix costs more than reading it.
      for (size_t n = std::filesystem::file_size(path); n-- > 0;) {
        std::filesystem::resize_file(path, n);
        const std::string error = errorOf(path);
        if (error.find(path.string()) == std::string::npos) FAIL_CHECK(n << " bytes: '" << error << "'");
      }
    }
}

TEST_CASE("MCAP: any one changed byte reads or is an error, never a crash or a hang", "[mcap]") {
  vt::TempDir dir("mcap-flipped");
  for (const char* compression : {"", "zstd", "lz4"})
    for (const bool crcs : {true, false}) {
      INFO("compression '" << compression << "', crcs " << crcs);
      mcap::WriterOptions o;
      o.compression = compression;
      o.chunkBytes = 80;
      o.crcs = crcs;
      const auto path = dir / "flipped.mcap";
      writeFile(path, o, ascending(8));
      const std::vector<uint8_t> bytes = bytesOf(path);
      {
        // One byte changed in place, read, changed back: cheaper than a new file each time.
        std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
        const auto put = [&](size_t at, uint8_t value) {
          file.seekp(std::streamoff(at));
          file.put(char(value));
          file.flush();
        };
        for (size_t i = 0; i < bytes.size(); ++i)
          for (const uint8_t flip : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
            put(i, uint8_t(bytes[i] ^ flip));
            errorOf(path);  // an Error or a good read: either is fine, anything else fails the case
            put(i, bytes[i]);
          }
      }
      // The data section cut short and the footer kept, as a recorder that died might leave it.
      const std::vector<uint8_t> footer(bytes.end() - 37, bytes.end());
      for (size_t n = 8; n + 37 < bytes.size(); ++n) {
        std::vector<uint8_t> changed(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
        changed.insert(changed.end(), footer.begin(), footer.end());
        writeBytes(path, changed, changed.size());
        errorOf(path);
      }
    }
}

TEST_CASE("MCAP: a compressed chunk whose bytes are garbage is an error naming the chunk", "[mcap]") {
  vt::TempDir dir("mcap-garbage");
  for (const char* compression : {"zstd", "lz4"})
    for (const bool summary : {true, false}) {
      INFO("compression " << compression << ", summary " << summary);
      mcap::WriterOptions o;
      o.compression = compression;
      o.summary = summary;
      const auto path = dir / "garbage.mcap";
      writeFile(path, o, ascending(10));
      const uint64_t chunk = firstChunkOffset(path);
      std::vector<uint8_t> bytes = bytesOf(path);
      const uint64_t lengthAt = chunk + 9 + 28 + 4 + std::strlen(compression);
      const uint64_t packed = load<uint64_t>(bytes, lengthAt);
      for (uint64_t k = 0; k < packed; ++k) bytes[lengthAt + 8 + k] = uint8_t(0xA5 ^ k);
      writeBytes(path, bytes, bytes.size());
      CHECK_THAT(errorOf(path), Contains(path.string() + ": chunk at byte " + std::to_string(chunk) + ": " + compression +
                                         " data does not decompress"));
    }
}

TEST_CASE("MCAP: bad magic, an empty file and a missing file are errors naming the file", "[mcap]") {
  vt::TempDir dir("mcap-magic");
  const auto path = dir / "bad.mcap";
  writeFile(path, {}, ascending(3));
  std::vector<uint8_t> bytes = bytesOf(path);
  bytes[1] = 'X';
  writeBytes(path, bytes, bytes.size());
  CHECK_THAT(errorOf(path), Contains(path.string()) && Contains("does not begin with the MCAP magic"));
  bytes[1] = 'M';
  bytes[bytes.size() - 2] = '\n';
  writeBytes(path, bytes, bytes.size());
  CHECK_THAT(errorOf(path), Contains(path.string()) && Contains("does not end with the MCAP magic"));
  writeBytes(path, bytes, 0);
  CHECK_THAT(errorOf(path), Contains(path.string()) && Contains("empty file"));
  CHECK_THAT(errorOf(dir / "missing.mcap"), Contains("missing.mcap"));
}

TEST_CASE("MCAP writer: an unknown compression or channel is an error; without close() the target stays as it was",
          "[mcap]") {
  vt::TempDir dir("mcap-writer");
  const auto path = dir / "kept.mcap";
  writeFile(path, {}, ascending(3));
  const std::vector<uint8_t> before = bytesOf(path);
  mcap::WriterOptions brotli;
  brotli.compression = "brotli";
  CHECK_THROWS_WITH(mcap::Writer(path, brotli), Contains("unknown compression 'brotli'"));
  {
    mcap::Writer writer(path);
    const uint16_t channel = writer.addChannel(0, "/x", "cdr");
    CHECK_THROWS_WITH(writer.write(uint16_t(channel + 1), 0, 0, {}), Contains("channel 2"));
    CHECK_THROWS_WITH(writer.addChannel(7, "/y", "cdr"), Contains("schema 7"));
    writer.write(channel, 0, 0, {});
  }
  CHECK(bytesOf(path) == before);
}

TEST_CASE("MCAP read() of a 4 MB message from a zstd, an lz4 and an uncompressed chunk: bytes intact, rate reported", "[mcap]") {
  vt::TempDir dir("mcap-speed");
  // A lidar-like cloud: float x, y, z on a smooth surface plus a noisy intensity, 16 bytes a point.
  std::vector<uint8_t> cloud(4 << 20);
  uint32_t seed = 12345;
  for (size_t p = 0; p + 16 <= cloud.size(); p += 16) {
    seed = seed * 1664525u + 1013904223u;
    const float i = float(p / 16);
    const float v[4] = {std::cos(i * 1e-3f) * 20.0f, std::sin(i * 1e-3f) * 20.0f, float(seed >> 20) * 1e-4f, float(seed >> 24)};
    std::memcpy(cloud.data() + p, v, 16);
  }
  // Uncompressed too: its rate is the CRC's alone, the floor under the other two.
  for (const char* compression : {"zstd", "lz4", ""}) {
    mcap::WriterOptions o;
    o.compression = compression;
    o.chunkBytes = 1;  // one message a chunk
    const auto path = dir / (std::string(compression) + "-chunks.mcap");
    {
      mcap::Writer writer(path, o);
      const uint16_t channel = writer.addChannel(0, "/points", "cdr");
      writer.write(channel, 1, 1, cloud);
      writer.write(channel, 2, 2, cloud);
    }
    // The writer above was never closed: nothing was written.
    CHECK_FALSE(std::filesystem::exists(path));
    {
      mcap::Writer writer(path, o);
      const uint16_t channel = writer.addChannel(0, "/points", "cdr");
      writer.write(channel, 1, 1, cloud);
      writer.write(channel, 2, 2, cloud);
      writer.close();
    }
    mcap::Reader reader(path);
    const auto index = reader.index(std::vector<uint16_t>{1});
    REQUIRE(index.size() == 2);
    const int reads = 16;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reads; ++r) {
      const mcap::Message m = reader.read(index[size_t(r % 2)]);  // alternating: every read decompresses
      REQUIRE(m.data.size() == cloud.size());
      if (r < 2) CHECK(std::memcmp(m.data.data(), cloud.data(), cloud.size()) == 0);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("MCAP read() of a 4 MiB message, %s chunk (%.1f%% of raw): %.0f MB/s\n",
                *compression ? compression : "uncompressed",
                100.0 * double(std::filesystem::file_size(path)) / double(2 * cloud.size()),
                double(reads) * double(cloud.size()) / seconds / 1e6);
  }
}

TEST_CASE("MCAP: a summary whose indexes miss messages outside chunks is not trusted: the file is scanned", "[mcap]") {
  vt::TempDir dir("mcap-handmade");
  const uint8_t magic[8] = {0x89, 'M', 'C', 'A', 'P', 0x30, '\r', '\n'};
  Bytes schema, channel, file;
  schema.u16(1).str("Example").str("c").u32(3).u8(4).u8(5).u8(6);
  channel.u16(1).u16(1).str("example").str("a").u32(0);
  file.raw(magic, 8).record(0x01, Bytes().str("").str("hand"));
  file.record(0x03, schema).record(0x04, channel);
  file.add(messageRecord(1, 20, "outside"));  // in no chunk index
  const Bytes inner = messageRecord(1, 10, "inside");
  const uint64_t chunkAt = file.size();
  Bytes chunk;
  chunk.u64(10).u64(10).u64(inner.size()).u32(0).str("").u64(inner.size()).add(inner);
  file.record(0x06, chunk);
  const uint64_t chunkLength = file.size() - chunkAt;
  const uint64_t indexAt = file.size();
  file.record(0x07, Bytes().u16(1).u32(16).u64(10).u64(0));
  const uint64_t indexLength = file.size() - indexAt;
  file.record(0x0F, Bytes().u32(0));
  const uint64_t summaryAt = file.size();
  file.record(0x03, schema).record(0x04, channel);
  file.record(0x0B, Bytes().u64(2).u16(1).u32(1).u32(0).u32(0).u32(1).u64(10).u64(20).u32(10).u16(1).u64(2));
  file.record(0x08, Bytes().u64(10).u64(10).u64(chunkAt).u64(chunkLength).u32(10).u16(1).u64(indexAt)
                        .u64(indexLength).str("").u64(inner.size()).u64(inner.size()));
  file.record(0x02, Bytes().u64(summaryAt).u64(0).u32(0)).raw(magic, 8);
  const auto path = dir / "hand.mcap";
  writeBytes(path, file.b, file.size());

  mcap::Reader reader(path);
  CHECK_FALSE(reader.hasSummary());
  CHECK(reader.messageCount(1) == 2);
  const auto index = reader.index(std::vector<uint16_t>{1});
  REQUIRE(index.size() == 2);
  const mcap::Message first = reader.read(index[0]), second = reader.read(index[1]);
  CHECK(first.logTime == 10);
  CHECK(std::string(first.data.begin(), first.data.end()) == "inside");
  CHECK(second.logTime == 20);
  CHECK(std::string(second.data.begin(), second.data.end()) == "outside");
  CHECK(reader.schemas().at(1).data == std::vector<uint8_t>{4, 5, 6});
}
