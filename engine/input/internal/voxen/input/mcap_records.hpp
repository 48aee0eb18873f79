#pragma once
// MCAP's record layer, shared by the reader and the writer: opcodes, the magic, CRC32, and
// a bounds-checked cursor over one record's fields. Every read checks the bytes left first,
// so a length field that lies (a truncated or corrupted file) becomes an Error naming the
// byte offset and the field, never a read past the mapping.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace voxen::mcap::format {

enum Op : uint8_t {
  kHeader = 0x01,
  kFooter = 0x02,
  kSchema = 0x03,
  kChannel = 0x04,
  kMessage = 0x05,
  kChunk = 0x06,
  kMessageIndex = 0x07,
  kChunkIndex = 0x08,
  kAttachment = 0x09,
  kStatistics = 0x0B,
  kDataEnd = 0x0F,
};

inline constexpr uint8_t kMagic[8] = {0x89, 'M', 'C', 'A', 'P', 0x30, '\r', '\n'};
inline constexpr uint64_t kRecordPrefix = 9;  // opcode + uint64 content length
inline constexpr uint64_t kFooterBytes = kRecordPrefix + 8 + 8 + 4;
inline constexpr uint64_t kMessageFixedBytes = 2 + 4 + 8 + 8;  // channel, sequence, log and publish time

// zlib's CRC32 (the one MCAP names), over any length; `crc` continues an earlier one.
uint32_t crc32Of(const uint8_t* data, uint64_t bytes, uint32_t crc = 0);

// "0x1234abcd", for CRC messages.
std::string hex32(uint32_t value);

// One record: opcode, where it starts (in its region's own offsets) and its content.
struct Record {
  uint8_t op = 0;
  uint64_t offset = 0;
  std::span<const uint8_t> content;
  uint64_t end() const { return offset + kRecordPrefix + content.size(); }
};

// The record at `offset` of `region` (whose byte 0 has offset `base` in what `where` names).
// Throws when its prefix or content runs past the region's end.
Record recordAt(std::span<const uint8_t> region, uint64_t offset, const std::string& where, uint64_t base = 0);

// Reads one record's fields in order. `where` names the file (and chunk) for messages;
// `base` is the offset of the content's first byte there.
class FieldReader {
 public:
  FieldReader(std::span<const uint8_t> content, uint64_t base, const char* record, const std::string& where)
      : p_(content.data()), size_(content.size()), base_(base), record_(record), where_(where) {}

  uint8_t u8(const char* field) { return fixed<uint8_t>(field); }
  uint16_t u16(const char* field) { return fixed<uint16_t>(field); }
  uint32_t u32(const char* field) { return fixed<uint32_t>(field); }
  uint64_t u64(const char* field) { return fixed<uint64_t>(field); }
  std::string string(const char* field) {
    const auto b = bytes(field, u32(field));
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }
  // `count` bytes, not copied.
  std::span<const uint8_t> bytes(const char* field, uint64_t count) {
    need(field, count);
    const std::span<const uint8_t> out(p_ + pos_, size_t(count));
    pos_ += count;
    return out;
  }
  std::span<const uint8_t> rest() { return bytes("data", size_ - pos_); }
  uint64_t left() const { return size_ - pos_; }
  uint64_t offset() const { return base_ + pos_; }  // of the next field

 private:
  template <typename T>
  T fixed(const char* field) {
    need(field, sizeof(T));
    T v;
    std::memcpy(&v, p_ + pos_, sizeof(T));  // MCAP is little-endian, as is every host Voxen builds for
    pos_ += sizeof(T);
    return v;
  }
  void need(const char* field, uint64_t count) {
    if (count > size_ - pos_) fail(field, count);
  }
  [[noreturn]] void fail(const char* field, uint64_t count) const;

  const uint8_t* p_;
  uint64_t size_;
  uint64_t pos_ = 0;
  uint64_t base_;
  const char* record_;
  const std::string& where_;
};

// Appends little-endian fields, for the writer.
class FieldWriter {
 public:
  explicit FieldWriter(std::string& out) : out_(out) {}
  void u8(uint8_t v) { put(v); }
  void u16(uint16_t v) { put(v); }
  void u32(uint32_t v) { put(v); }
  void u64(uint64_t v) { put(v); }
  void bytes(std::span<const uint8_t> b) { out_.append(reinterpret_cast<const char*>(b.data()), b.size()); }
  void string(std::string_view s) {
    u32(uint32_t(s.size()));
    out_.append(s);
  }
  // Starts a record; finish() fills in its length.
  size_t begin(uint8_t op) {
    u8(op);
    const size_t at = out_.size();
    u64(0);
    return at;
  }
  void finish(size_t lengthAt) {
    const uint64_t length = out_.size() - lengthAt - 8;
    std::memcpy(out_.data() + lengthAt, &length, 8);
  }

 private:
  template <typename T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  std::string& out_;
};

}  // namespace voxen::mcap::format
