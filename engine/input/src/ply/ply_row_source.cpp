#include "ply/ply_row_source.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "mapped_file.hpp"
#include "ply/ply_decode.hpp"

namespace voxen::detail {

namespace {

// Bytes per row of an element, or 0 when its rows vary in size (list properties).
uint64_t fixedRowBytes(const PlyElement& e) {
  uint64_t bytes = 0;
  for (const auto& p : e.properties) {
    if (p.isList) return 0;
    bytes += plyTypeSize(p.type);
  }
  return bytes;
}

template <typename T>
void decodeColumn(const char* first, size_t stride, size_t rows, double* out, size_t ncol) {
  for (size_t r = 0; r < rows; ++r) out[r * ncol] = double(loadLittle<T>(first + r * stride));
}

// A fixed-size binary little-endian body in a mapping. PlyReader has checked the header, that
// the body is not text and that no bytes follow the last element; the factory below checks
// that every row is present, so no read here can fail.
class MappedRows final : public PlyRowSource {
 public:
  MappedRows(MappedFile file, const char* body, const PlyReader& ply, size_t chunkRows)
      : PlyRowSource(ply.count(), chunkRows), file_(std::move(file)), body_(body), stride_(fixedRowBytes(ply.element())) {
    const PlyElement& e = ply.element();
    std::vector<size_t> offsets;
    size_t at = 0;
    for (const auto& p : e.properties) {
      offsets.push_back(at);
      at += plyTypeSize(p.type);
    }
    for (size_t c : ply.columns()) columns_.push_back({e.properties[c].type, offsets[c]});
  }

  bool concurrent() const override { return true; }

  size_t read(uint64_t chunk, std::vector<double>& out) override {
    const uint64_t first = firstRow(chunk);
    const size_t n = size_t(std::min<uint64_t>(chunkRows(), rows() - first));
    const size_t ncol = columns_.size();
    out.resize(n * ncol);
    // A block of rows at a time, column by column: one type switch per column and block, and
    // the block's bytes stay in the L1 cache across its columns.
    constexpr size_t kBlock = 256;
    for (size_t r = 0; r < n; r += kBlock) {
      const size_t rows = std::min(kBlock, n - r);
      const char* base = body_ + (first + r) * stride_;
      for (size_t c = 0; c < ncol; ++c) {
        const char* p = base + columns_[c].offset;
        double* dst = out.data() + r * ncol + c;
        switch (columns_[c].type) {
          case PlyType::Int8: decodeColumn<int8_t>(p, stride_, rows, dst, ncol); break;
          case PlyType::UInt8: decodeColumn<uint8_t>(p, stride_, rows, dst, ncol); break;
          case PlyType::Int16: decodeColumn<int16_t>(p, stride_, rows, dst, ncol); break;
          case PlyType::UInt16: decodeColumn<uint16_t>(p, stride_, rows, dst, ncol); break;
          case PlyType::Int32: decodeColumn<int32_t>(p, stride_, rows, dst, ncol); break;
          case PlyType::UInt32: decodeColumn<uint32_t>(p, stride_, rows, dst, ncol); break;
          case PlyType::Float32: decodeColumn<float>(p, stride_, rows, dst, ncol); break;
          case PlyType::Float64: decodeColumn<double>(p, stride_, rows, dst, ncol); break;
        }
      }
    }
    // Each chunk is read once: its rows need not stay resident (a 235 MB cloud would).
    file_.doneWith(body_ + first * stride_, n * stride_);
    return n;
  }

 private:
  struct Column {
    PlyType type;
    size_t offset;  // within a row
  };
  MappedFile file_;
  const char* body_;  // the element's first row, inside file_
  size_t stride_;
  std::vector<Column> columns_;
};

// Through the PlyReader, whose errors name the line or vertex: one chunk after the other.
class StreamedRows final : public PlyRowSource {
 public:
  StreamedRows(PlyReader& ply, size_t chunkRows) : PlyRowSource(ply.count(), chunkRows), ply_(ply) {}

  bool concurrent() const override { return false; }

  size_t read(uint64_t chunk, std::vector<double>& out) override {
    // The pipeline hands out chunks in order under one lock; anything else is a bug here.
    if (chunk != next_) throw std::logic_error("PLY stream read out of order");
    ++next_;
    out.clear();
    return ply_.read(out, chunkRows());
  }

 private:
  PlyReader& ply_;
  uint64_t next_ = 0;
};

}  // namespace

std::unique_ptr<PlyRowSource> makePlyRowSource(PlyReader& ply, size_t chunkRows, bool mapFile) {
  const PlyHeader& header = ply.header();
  if (!mapFile || header.format != PlyFormat::BinaryLittleEndian || ply.count() == 0 || ply.rowsRead() != 0)
    return std::make_unique<StreamedRows>(ply, chunkRows);
  // Where the element's rows start: every element before it must have fixed-size rows too.
  uint64_t start = header.bodyOffset;
  const PlyElement* element = nullptr;
  for (const auto& e : header.elements) {
    const uint64_t rowBytes = fixedRowBytes(e);
    if (rowBytes == 0) return std::make_unique<StreamedRows>(ply, chunkRows);
    if (&e == &ply.element()) {
      element = &e;
      break;
    }
    if (e.count > (std::numeric_limits<uint64_t>::max() - start) / rowBytes) return std::make_unique<StreamedRows>(ply, chunkRows);
    start += e.count * rowBytes;
  }
  if (!element) return std::make_unique<StreamedRows>(ply, chunkRows);
  const uint64_t rowBytes = fixedRowBytes(*element);
  if (element->count > (std::numeric_limits<uint64_t>::max() - start) / rowBytes)
    return std::make_unique<StreamedRows>(ply, chunkRows);
  std::optional<MappedFile> file = MappedFile::open(ply.path());
  // A short body streams, so that its truncation error names the row and byte offset.
  if (!file || start + element->count * rowBytes > file->size()) return std::make_unique<StreamedRows>(ply, chunkRows);
  const char* body = file->data() + start;
  return std::make_unique<MappedRows>(std::move(*file), body, ply, chunkRows);
}

}  // namespace voxen::detail
