// PlyReader: a PLY body read row by row (ASCII and binary), columns chosen by name.
#include "voxen/input/ply.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>

#include "voxen/input/input_file.hpp"
#include "ply/ply_body_checks.hpp"
#include "ply/ply_decode.hpp"
#include "ply/ply_values.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/log.hpp"

namespace voxen {

using namespace detail::ply_values;

using detail::decodePlyValue;


// ---- reader --------------------------------------------------------------------------------

struct PlyReader::Impl {
  std::filesystem::path path;
  std::string name;
  PlyHeader header;
  size_t elementIndex = 0;
  std::ifstream in;
  uint64_t fileSize = 0;
  std::vector<size_t> columns;
  uint64_t row = 0;
  bool failed = false;  // an Error left the stream in an unknown place

  // ASCII body.
  uint64_t lineNo = 0;
  bool lineUnterminated = false;  // the last line read ended at the end of the file, not at '\n'
  std::string line;
  std::vector<std::string_view> tokens;

  // Binary body: buf[pos, len) holds the file's bytes from bufOffset + pos on.
  std::vector<char> buf;
  size_t pos = 0, len = 0;
  uint64_t bufOffset = 0;
  size_t bufferBytes = size_t(1) << 20;
  bool fixedStride = false;  // the element has no lists
  size_t stride = 0;
  std::vector<size_t> columnOffsets;  // byte offset of each selected column in a fixed row

  const PlyElement& element() const { return header.elements[elementIndex]; }
  uint64_t offset() const { return bufOffset + pos; }

  [[noreturn]] void failLine(const std::string& why) const {
    throw Error(name + ":" + std::to_string(lineNo) + ": " + why);
  }
  [[noreturn]] void failBinary(const PlyElement& e, uint64_t index, uint64_t rowStart, const std::string& why) const {
    throw Error(name + ": " + e.name + " " + std::to_string(index) + " (byte offset " + std::to_string(rowStart) +
                "): " + why);
  }

  // Makes n bytes available at buf[pos]; false when the file ends first.
  bool fill(size_t n) {
    if (len - pos >= n) return true;
    if (pos > 0) {
      std::memmove(buf.data(), buf.data() + pos, len - pos);
      bufOffset += pos;
      len -= pos;
      pos = 0;
    }
    if (buf.size() < std::max(n, bufferBytes)) buf.resize(std::max(n, bufferBytes));
    while (len < n) {
      const uint64_t fileAt = bufOffset + len;
      if (fileAt >= fileSize) return false;
      const size_t want = size_t(std::min<uint64_t>(buf.size() - len, fileSize - fileAt));
      in.read(buf.data() + len, std::streamsize(want));
      const auto got = size_t(in.gcount());
      if (got == 0) {
        if (in.bad()) throw Error(name + ": read error at byte " + std::to_string(fileAt));
        return false;
      }
      len += got;
    }
    return true;
  }

  // Skips n bytes; false when the file ends first.
  bool skip(uint64_t n) {
    const uint64_t inBuffer = len - pos;
    if (n <= inBuffer) {
      pos += size_t(n);
      return true;
    }
    const uint64_t target = bufOffset + pos + n;
    if (target > fileSize) return false;
    in.clear();
    in.seekg(std::streamoff(target));
    if (!in) throw Error(name + ": cannot seek to byte " + std::to_string(target));
    bufOffset = target;
    pos = len = 0;
    return true;
  }

  uint64_t fileEnd() const { return fileSize; }

  // One binary row of element e; values[slot[k]] receives scalar property k when slot >= 0.
  void readBinaryRow(const PlyElement& e, uint64_t index, const std::vector<int>& slots, double* values) {
    const uint64_t rowStart = offset();
    for (size_t k = 0; k < e.properties.size(); ++k) {
      const PlyProperty& p = e.properties[k];
      if (!p.isList) {
        const size_t size = plyTypeSize(p.type);
        if (!fill(size)) {
          failBinary(e, index, rowStart,
                     "truncated binary body: property " + inQuotes(p.name) + " needs " + std::to_string(size) +
                         " bytes at byte offset " + std::to_string(offset()) + " but the file ends at byte " +
                         std::to_string(fileEnd()) + " (the header declares " + std::to_string(e.count) + " " +
                         e.name + " elements)");
        }
        if (slots[k] >= 0) values[slots[k]] = decodePlyValue(p.type, buf.data() + pos);
        pos += size;
      } else {
        const size_t cs = plyTypeSize(p.countType);
        if (!fill(cs)) {
          failBinary(e, index, rowStart,
                     "truncated binary body: the count of list property " + inQuotes(p.name) +
                         " runs past the end of the file (byte " + std::to_string(fileEnd()) + ")");
        }
        const double count = decodePlyValue(p.countType, buf.data() + pos);
        pos += cs;
        if (count < 0) {
          failBinary(e, index, rowStart, "list property " + inQuotes(p.name) + " has a negative count " +
                                             std::to_string(int64_t(count)));
        }
        const uint64_t bytes = uint64_t(count) * plyTypeSize(p.type);
        const uint64_t at = offset();
        if (!skip(bytes)) {
          failBinary(e, index, rowStart,
                     "truncated binary body: list property " + inQuotes(p.name) + " has " +
                         std::to_string(uint64_t(count)) + " items (" + std::to_string(bytes) + " bytes from byte offset " +
                         std::to_string(at) + ") but the file ends at byte " + std::to_string(fileEnd()));
        }
      }
    }
  }

  // Reads the next non-blank line; false at the end of the file.
  bool nextAsciiLine() {
    for (;;) {
      if (!std::getline(in, line)) {
        if (in.bad()) throw Error(name + ": read error after line " + std::to_string(lineNo));
        return false;
      }
      ++lineNo;
      lineUnterminated = in.eof();
      tokenize(line, tokens);
      if (!tokens.empty()) return true;
    }
  }

  void readAsciiRow(const PlyElement& e, uint64_t index, const std::vector<int>& slots, double* values) {
    if (!nextAsciiLine()) {
      throw Error(name + ": truncated ASCII body: the header declares " + std::to_string(e.count) + " " + e.name +
                  " elements but the file ends after " + std::to_string(index) + " of them (after line " +
                  std::to_string(lineNo) + ")");
    }
    size_t t = 0;
    for (size_t k = 0; k < e.properties.size(); ++k) {
      const PlyProperty& p = e.properties[k];
      if (t >= tokens.size()) {
        failLine(e.name + " " + std::to_string(index) + " has too few values (" + std::to_string(tokens.size()) +
                 "): property " + inQuotes(p.name) + " is missing");
      }
      if (!p.isList) {
        if (slots[k] >= 0) {
          double v = 0.0;
          const std::string why = parseValue(tokens[t], p.type, v);
          if (!why.empty()) failLine(e.name + " " + std::to_string(index) + ", property " + inQuotes(p.name) + ": " + inQuotes(tokens[t]) + " " + why);
          values[slots[k]] = v;
        }
        ++t;
      } else {
        double count = 0.0;
        const std::string why = parseValue(tokens[t], p.countType, count);
        if (!why.empty())
          failLine(e.name + " " + std::to_string(index) + ", count of list property " + inQuotes(p.name) + ": " + inQuotes(tokens[t]) + " " + why);
        ++t;
        if (count < 0 || uint64_t(count) > tokens.size() - t) {
          failLine(e.name + " " + std::to_string(index) + ": list property " + inQuotes(p.name) + " declares " +
                   std::to_string(int64_t(count)) + " items but the line has " + std::to_string(tokens.size() - t) +
                   " values left");
        }
        t += size_t(count);
      }
    }
    if (t != tokens.size()) {
      failLine(e.name + " " + std::to_string(index) + " has " + std::to_string(tokens.size()) + " values, expected " +
               std::to_string(t));
    }
  }

  void skipElement(const PlyElement& e) {
    const std::vector<int> none(e.properties.size(), -1);
    if (header.format == PlyFormat::Ascii) {
      for (uint64_t i = 0; i < e.count; ++i) readAsciiRow(e, i, none, nullptr);
      return;
    }
    bool fixed = true;
    uint64_t rowBytes = 0;
    for (const auto& p : e.properties) {
      if (p.isList) fixed = false;
      rowBytes += plyTypeSize(p.type);
    }
    if (fixed) {
      const uint64_t start = offset();
      if (rowBytes != 0 && e.count > (std::numeric_limits<uint64_t>::max() - start) / rowBytes) {
        failBinary(e, 0, start, "the header's element count " + std::to_string(e.count) + " is impossibly large");
      }
      if (!skip(e.count * rowBytes)) {
        const uint64_t complete = rowBytes == 0 ? 0 : (fileSize - start) / rowBytes;
        failBinary(e, complete, start + complete * rowBytes,
                   "truncated binary body: the header declares " + std::to_string(e.count) + " " + e.name +
                       " elements of " + std::to_string(rowBytes) + " bytes but the file ends at byte " +
                       std::to_string(fileSize));
      }
      return;
    }
    for (uint64_t i = 0; i < e.count; ++i) readBinaryRow(e, i, none, nullptr);
  }

  // A header that says binary over a body written as text decodes digits as floats: refuse
  // it before any value is read.
  void checkBinaryBodyIsNotText() {
    if (header.format == PlyFormat::Ascii || header.bodyOffset >= fileSize) return;
    const size_t n = size_t(std::min<uint64_t>(detail::kBodySniffBytes, fileSize - header.bodyOffset));
    if (!fill(n)) return;
    const std::string_view start(buf.data() + pos, n);
    if (!detail::looksLikeAsciiNumbers(start)) return;
    throw Error(name + ":" + std::to_string(header.lineCount + 1) + ": the header says format " +
                plyFormatName(header.format) + " but the body is ASCII text (it starts with " +
                inQuotes(detail::firstLineOf(start)) + "): fix the header's format line ('format ascii 1.0')");
  }

  // Called once every row of the element has been read. When it is the header's last
  // element, anything after it means the header's count (or a property type) is wrong:
  // reading on silently would drop those points.
  void checkNothingAfterLastElement() {
    if (elementIndex + 1 != header.elements.size()) return;
    const PlyElement& e = element();
    const std::string declared = std::to_string(e.count) + " " + e.name + " element" + (e.count == 1 ? "" : "s");
    if (header.format == PlyFormat::Ascii) {
      const bool lastLineUnterminated = lineUnterminated;
      if (nextAsciiLine()) {
        failLine("data after the " + declared + " the header declares ('element " + e.name + " " +
                 std::to_string(e.count) + "'): the header's count is wrong, or the file holds more than one cloud");
      }
      if (lastLineUnterminated && e.count > 0) {
        logMessage(LogLevel::Warning, name + ":" + std::to_string(lineNo) +
                                          ": the file ends in the middle of a line, without a line end: if it was "
                                          "cut short, the last " + e.name + "'s last value may be cut too");
      }
      return;
    }
    const uint64_t end = offset();
    if (end < fileSize) {
      throw Error(name + ": " + std::to_string(fileSize - end) + " bytes after the " + declared +
                  " the header declares (they end at byte " + std::to_string(end) + ", the file at byte " +
                  std::to_string(fileSize) + "): the header's count or property types are wrong");
    }
  }

  void setColumns(std::vector<size_t> cols) {
    const PlyElement& e = element();
    for (size_t c : cols) {
      if (c >= e.properties.size()) throw Error(name + ": column index " + std::to_string(c) + " out of range");
      if (e.properties[c].isList)
        throw Error(name + ": property " + inQuotes(e.properties[c].name) + " of element " + inQuotes(e.name) +
                    " is a list, not a column");
    }
    columns = std::move(cols);
    columnOffsets.clear();
    if (fixedStride) {
      std::vector<size_t> offsets(e.properties.size(), 0);
      size_t at = 0;
      for (size_t k = 0; k < e.properties.size(); ++k) {
        offsets[k] = at;
        at += plyTypeSize(e.properties[k].type);
      }
      for (size_t c : columns) columnOffsets.push_back(offsets[c]);
    }
  }
};

// A binary body longer than its header implies means the header's types do not describe the
// body (a header saying float over doubles reads garbage coordinates, some of them huge): it
// is refused before any row is read. Only fixed-size rows give an implied size; a shorter body
// is left to the truncation errors of the reads, which name the row and the byte offset.
namespace {
void checkBinaryBodySize(const PlyHeader& header, uint64_t fileSize, const std::string& name) {
  if (header.format == PlyFormat::Ascii) return;
  uint64_t implied = header.bodyOffset;
  std::string rows;
  for (const auto& e : header.elements) {
    uint64_t rowBytes = 0;
    for (const auto& p : e.properties) {
      if (p.isList) return;
      rowBytes += plyTypeSize(p.type);
    }
    if (rowBytes != 0 && e.count > (std::numeric_limits<uint64_t>::max() - implied) / rowBytes) return;
    implied += e.count * rowBytes;
    rows += (rows.empty() ? "" : " + ") + std::to_string(e.count) + " " + e.name + " x " + std::to_string(rowBytes) + " bytes";
  }
  if (fileSize > implied && !header.elements.empty()) {
    const PlyElement& last = header.elements.back();
    throw Error(name + ": " + std::to_string(fileSize - implied) + " bytes after the " + std::to_string(last.count) + " " +
                last.name + " elements the header declares (they end at byte " + std::to_string(implied) +
                ", the file at byte " + std::to_string(fileSize) + "): the header implies a file of " + std::to_string(implied) + " bytes (" +
                std::to_string(header.bodyOffset) + " of header + " + (rows.empty() ? "no elements" : rows) +
                ") but the file has " + std::to_string(fileSize) +
                " bytes: the header's property types or counts do not match the body (for example 'float' declared "
                "for doubles)");
  }
}
}  // namespace

PlyReader::PlyReader(const std::filesystem::path& path) : PlyReader(path, Options{}) {}

PlyReader::PlyReader(const std::filesystem::path& path, Options options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  m.name = path.string();
  m.bufferBytes = std::max<size_t>(options.bufferBytes, 16);
  std::error_code ec;
  m.in = detail::openInputFile(path, "PLY file");
  m.fileSize = std::filesystem::file_size(path, ec);
  if (ec) throw Error(m.name + ": cannot read the file size: " + ec.message());
  m.header = readPlyHeader(m.in, m.name);
  if (m.header.format == PlyFormat::BinaryBigEndian) {
    throw Error(m.name + ": format binary_big_endian is not supported (convert the file to binary_little_endian or ascii)");
  }
  checkBinaryBodySize(m.header, m.fileSize, m.name);
  bool found = false;
  for (size_t i = 0; i < m.header.elements.size(); ++i) {
    if (m.header.elements[i].name == options.element) {
      m.elementIndex = i;
      found = true;
      break;
    }
  }
  if (!found) {
    std::string have;
    for (const auto& e : m.header.elements) have += (have.empty() ? "" : ", ") + e.name;
    throw Error(m.name + ": no element " + inQuotes(options.element) + " in the header (elements: " +
                (have.empty() ? "none" : have) + ")");
  }
  m.lineNo = m.header.lineCount;
  m.bufOffset = m.header.bodyOffset;
  if (m.header.format != PlyFormat::Ascii) {
    m.in.clear();
    m.in.seekg(std::streamoff(m.header.bodyOffset));
  }
  const PlyElement& e = m.element();
  m.fixedStride = true;
  m.stride = 0;
  for (const auto& p : e.properties) {
    if (p.isList) m.fixedStride = false;
    m.stride += plyTypeSize(p.type);
  }
  m.checkBinaryBodyIsNotText();
  for (size_t i = 0; i < m.elementIndex; ++i) m.skipElement(m.header.elements[i]);
  std::vector<size_t> all;
  for (size_t k = 0; k < e.properties.size(); ++k)
    if (!e.properties[k].isList) all.push_back(k);
  m.setColumns(std::move(all));
  // An element declared empty is read in full already; what follows it must be checked now,
  // since no read() will.
  if (e.count == 0) m.checkNothingAfterLastElement();
}

PlyReader::~PlyReader() = default;
PlyReader::PlyReader(PlyReader&&) noexcept = default;
PlyReader& PlyReader::operator=(PlyReader&&) noexcept = default;

const std::filesystem::path& PlyReader::path() const { return impl_->path; }
const PlyHeader& PlyReader::header() const { return impl_->header; }
const PlyElement& PlyReader::element() const { return impl_->element(); }
uint64_t PlyReader::count() const { return impl_->element().count; }
uint64_t PlyReader::rowsRead() const { return impl_->row; }

std::optional<size_t> PlyReader::findProperty(std::string_view name) const {
  const auto i = impl_->element().find(name);
  if (!i || impl_->element().properties[*i].isList) return std::nullopt;
  return i;
}

void PlyReader::selectColumns(std::vector<size_t> propertyIndices) { impl_->setColumns(std::move(propertyIndices)); }

void PlyReader::selectColumns(const std::vector<std::string>& names) {
  std::vector<size_t> indices;
  std::string missing;
  for (const auto& n : names) {
    if (const auto i = findProperty(n)) indices.push_back(*i);
    else missing += (missing.empty() ? "" : ", ") + n;
  }
  if (!missing.empty()) {
    std::string have;
    for (const auto& p : element().properties) have += (have.empty() ? "" : ", ") + p.name + (p.isList ? " (list)" : "");
    throw Error(impl_->name + ": element " + inQuotes(element().name) + " lacks the scalar propert" +
                (missing.find(',') == std::string::npos ? "y " : "ies ") + missing + " (it has: " +
                (have.empty() ? "none" : have) + ")");
  }
  impl_->setColumns(std::move(indices));
}

const std::vector<size_t>& PlyReader::columns() const { return impl_->columns; }

size_t PlyReader::read(std::vector<double>& out, size_t maxRows) {
  Impl& m = *impl_;
  if (m.failed) throw Error(m.name + ": the reader cannot continue after an earlier error");
  const PlyElement& e = m.element();
  const size_t rows = size_t(std::min<uint64_t>(e.count - m.row, maxRows));
  if (rows == 0) return 0;
  const size_t ncol = m.columns.size();
  const size_t base = out.size();

  std::vector<int> slots(e.properties.size(), -1);
  for (size_t c = 0; c < ncol; ++c) slots[m.columns[c]] = int(c);
  std::vector<PlyType> types(ncol);
  for (size_t c = 0; c < ncol; ++c) types[c] = e.properties[m.columns[c]].type;

  // The output grows batch by batch, so that a corrupt count cannot demand a huge allocation
  // before the body runs out.
  constexpr size_t kBatch = 65536;
  try {
    for (size_t done = 0; done < rows;) {
      const size_t batch = std::min(kBatch, rows - done);
      const size_t at = out.size();
      out.resize(at + batch * ncol);
      double* dst = out.data() + at;
      if (m.header.format == PlyFormat::Ascii) {
        for (size_t r = 0; r < batch; ++r) m.readAsciiRow(e, m.row + done + r, slots, dst + r * ncol);
      } else {
        for (size_t r = 0; r < batch; ++r) {
          double* values = dst + r * ncol;
          if (m.fixedStride && m.stride > 0 && m.fill(m.stride)) {
            const char* p = m.buf.data() + m.pos;
            for (size_t c = 0; c < ncol; ++c) values[c] = decodePlyValue(types[c], p + m.columnOffsets[c]);
            m.pos += m.stride;
          } else {
            m.readBinaryRow(e, m.row + done + r, slots, values);
          }
        }
      }
      done += batch;
    }
    if (m.row + rows == e.count) m.checkNothingAfterLastElement();
  } catch (...) {
    m.failed = true;
    out.resize(base);
    throw;
  }
  m.row += rows;
  return rows;
}

}  // namespace voxen
