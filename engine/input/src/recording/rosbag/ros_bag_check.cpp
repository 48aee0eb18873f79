// A walk over a ROS 1 bag's records (format 2.0) that checks what librosbag-storage trusts:
// every record's lengths lie inside the file, every chunk has a known compression and a sane
// size, every index entry points inside its chunk (and, for an uncompressed chunk, at the
// start of a record in it), and every chunk info names a chunk. librosbag-storage reads a
// corrupt offset or length as it comes and crashes on it; after this walk, what it is left
// to judge (the bytes inside compressed chunks) it reports as errors.
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "mapped_file.hpp"
#include "recording/recording.hpp"
#include "voxen/host/error.hpp"

namespace voxen::detail {

namespace {

constexpr std::string_view kBagMagic = "#ROSBAG V2.0\n";
constexpr uint32_t kMaxChunkBytes = 1u << 30;  // rosbag writes chunks of about 768 KB; 1 GB is no chunk

struct Record {
  uint64_t start = 0;  // of the record
  std::string_view header, data;
  uint8_t op = 0;
  uint64_t end = 0;    // the byte after it
};

class BagWalker {
 public:
  BagWalker(const std::filesystem::path& path, std::string_view bytes) : path_(path), bytes_(bytes) {}

  [[noreturn]] void fail(uint64_t at, const std::string& what) const {
    throw Error(path_.string() + ": not a readable ROS 1 bag: at byte " + std::to_string(at) + ", " + what);
  }

  uint32_t u32(std::string_view s, size_t at, uint64_t where, const char* what) const {
    if (at + 4 > s.size()) fail(where, std::string(what) + " ends past its record");
    uint32_t v;
    std::memcpy(&v, s.data() + at, 4);
    return v;
  }

  // The record at `pos` of `in` (the file, or an uncompressed chunk's records at file offset `base`).
  Record record(std::string_view in, uint64_t pos, uint64_t base) const {
    Record r;
    r.start = pos;
    const uint64_t at = base + pos;
    const uint32_t headerLen = u32(in, pos, at, "a record's header length");
    if (uint64_t(headerLen) > in.size() - pos - 4) fail(at, "a record header of " + std::to_string(headerLen) + " bytes runs past the end");
    r.header = in.substr(pos + 4, headerLen);
    const uint64_t dataAt = pos + 4 + headerLen;
    const uint32_t dataLen = u32(in, dataAt, at, "a record's data length");
    if (uint64_t(dataLen) > in.size() - dataAt - 4) fail(at, "record data of " + std::to_string(dataLen) + " bytes runs past the end");
    r.data = in.substr(dataAt + 4, dataLen);
    r.end = dataAt + 4 + dataLen;
    const auto op = field(r, "op", at);
    if (op.size() != 1) fail(at, "a record without a one-byte op field");
    r.op = uint8_t(op[0]);
    return r;
  }

  // A header field's value; empty view when absent.
  std::string_view field(const Record& r, std::string_view name, uint64_t at) const {
    size_t pos = 0;
    while (pos < r.header.size()) {
      const uint32_t len = u32(r.header, pos, at, "a header field's length");
      if (uint64_t(len) > r.header.size() - pos - 4) fail(at, "a header field runs past its header");
      const std::string_view f = r.header.substr(pos + 4, len);
      const size_t eq = f.find('=');
      if (eq == std::string_view::npos) fail(at, "a header field without '='");
      if (f.substr(0, eq) == name) return f.substr(eq + 1);
      pos += 4 + len;
    }
    return {};
  }

  template <typename T>
  T number(const Record& r, std::string_view name, uint64_t at) const {
    const std::string_view v = field(r, name, at);
    if (v.size() != sizeof(T)) fail(at, "header field '" + std::string(name) + "' is missing or of the wrong size");
    T out;
    std::memcpy(&out, v.data(), sizeof(T));
    return out;
  }

  void walk() {
    if (bytes_.substr(0, kBagMagic.size()) != kBagMagic) fail(0, "no '#ROSBAG V2.0' line");
    uint64_t pos = kBagMagic.size();
    const Record header = record(bytes_, pos, 0);
    if (header.op != 0x03) fail(pos, "the first record is not the bag header");
    const uint64_t indexPos = number<uint64_t>(header, "index_pos", pos);
    if (indexPos > bytes_.size()) fail(pos, "the index position " + std::to_string(indexPos) + " lies past the end");
    pos = header.end;
    uint32_t chunkSize = 0;
    std::set<uint64_t> chunkStarts, recordStarts;
    bool chunkPlain = false;
    while (pos < bytes_.size()) {
      const Record r = record(bytes_, pos, 0);
      if (r.op == 0x05) {  // chunk
        const std::string_view compression = field(r, "compression", pos);
        if (compression != "none" && compression != "lz4" && compression != "bz2")
          fail(pos, "a chunk compressed as '" + std::string(compression) + "'");
        chunkSize = number<uint32_t>(r, "size", pos);
        if (chunkSize > kMaxChunkBytes) fail(pos, "a chunk of " + std::to_string(chunkSize) + " bytes uncompressed");
        chunkPlain = compression == "none";
        chunkStarts.insert(pos);
        recordStarts.clear();
        if (chunkPlain) {
          if (r.data.size() != chunkSize) fail(pos, "an uncompressed chunk whose size field differs from its data");
          for (uint64_t in = 0; in < r.data.size();) {
            recordStarts.insert(in);
            in = record(r.data, in, uint64_t(r.data.data() - bytes_.data())).end;
          }
        }
      } else if (r.op == 0x04) {  // index data of the chunk before it
        const uint32_t count = number<uint32_t>(r, "count", pos);
        if (uint64_t(count) * 12 != r.data.size()) fail(pos, "index data whose count does not match its bytes");
        for (uint32_t i = 0; i < count; ++i) {
          const uint32_t offset = u32(r.data, size_t(i) * 12 + 8, pos, "an index entry");
          if (offset >= chunkSize || (chunkPlain && !recordStarts.count(offset)))
            fail(pos, "index entry " + std::to_string(i) + " points at byte " + std::to_string(offset) +
                          " of a chunk of " + std::to_string(chunkSize));
        }
      } else if (r.op == 0x06) {  // chunk info
        const uint64_t chunkPos = number<uint64_t>(r, "chunk_pos", pos);
        if (!chunkStarts.count(chunkPos)) fail(pos, "a chunk info names byte " + std::to_string(chunkPos) + ", where no chunk starts");
      }
      pos = r.end;
    }
  }

 private:
  const std::filesystem::path& path_;
  std::string_view bytes_;
};

}  // namespace

void checkRosBagStructure(const std::filesystem::path& path) {
  const std::optional<MappedFile> file = MappedFile::open(path);
  if (!file) throw Error(path.string() + ": cannot be read");
  BagWalker(path, std::string_view(file->data(), file->size())).walk();
}

}  // namespace voxen::detail
