#include "voxen/io/ply.hpp"

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

#include "input_file.hpp"
#include "ply_decode.hpp"
#include "ply_body_checks.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/log.hpp"
#include "voxen/output/atomic_file.hpp"

namespace voxen {

namespace {

constexpr size_t kMaxHeaderLine = 64 * 1024;
constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

std::string inQuotes(std::string_view s) {
  std::string text;
  text.reserve(s.size() + 2);
  text.push_back('\'');
  text.append(s);
  text.push_back('\'');
  return text;
}

// Splits on spaces and tabs (and a trailing '\r').
void tokenize(std::string_view line, std::vector<std::string_view>& tokens) {
  tokens.clear();
  size_t i = 0;
  const size_t n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\v' || line[i] == '\f')) ++i;
    if (i >= n) break;
    const size_t start = i;
    while (i < n && !(line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\v' || line[i] == '\f')) ++i;
    tokens.push_back(line.substr(start, i - start));
  }
}

bool isInteger(PlyType t) { return t != PlyType::Float32 && t != PlyType::Float64; }

double typeMin(PlyType t) {
  switch (t) {
    case PlyType::Int8: return -128.0;
    case PlyType::UInt8: return 0.0;
    case PlyType::Int16: return -32768.0;
    case PlyType::UInt16: return 0.0;
    case PlyType::Int32: return -2147483648.0;
    case PlyType::UInt32: return 0.0;
    case PlyType::Float32: return -double(std::numeric_limits<float>::max());
    case PlyType::Float64: return -std::numeric_limits<double>::max();
  }
  return 0.0;
}

double typeMax(PlyType t) {
  switch (t) {
    case PlyType::Int8: return 127.0;
    case PlyType::UInt8: return 255.0;
    case PlyType::Int16: return 32767.0;
    case PlyType::UInt16: return 65535.0;
    case PlyType::Int32: return 2147483647.0;
    case PlyType::UInt32: return 4294967295.0;
    case PlyType::Float32: return double(std::numeric_limits<float>::max());
    case PlyType::Float64: return std::numeric_limits<double>::max();
  }
  return 0.0;
}

// Parses an ASCII value of the given type. Returns an empty string on success, else why not.
std::string parseValue(std::string_view token, PlyType type, double& value) {
  const char* first = token.data();
  const char* last = token.data() + token.size();
  if (first != last && *first == '+') ++first;
  if (first == last) return "is empty";
  if (isInteger(type)) {
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range) return "is out of range for " + std::string(plyTypeName(type));
    if (ec != std::errc() || ptr != last) return "is not a valid " + std::string(plyTypeName(type));
    if (double(v) < typeMin(type) || double(v) > typeMax(type))
      return "is out of range for " + std::string(plyTypeName(type));
    value = double(v);
    return {};
  }
  if (type == PlyType::Float32) {
    float f = 0.0f;
    const auto [ptr, ec] = std::from_chars(first, last, f);
    if (ec == std::errc::result_out_of_range && ptr == last) {
      const std::string copy(first, last);
      errno = 0;
      f = std::strtof(copy.c_str(), nullptr);
      if (std::isinf(f)) return "is out of range for float";
    } else if (ec != std::errc() || ptr != last) {
      return "is not a valid float";
    }
    value = double(f);
    return {};
  }
  double d = 0.0;
  const auto [ptr, ec] = std::from_chars(first, last, d);
  if (ec == std::errc::result_out_of_range && ptr == last) {
    const std::string copy(first, last);
    d = std::strtod(copy.c_str(), nullptr);
    if (std::isinf(d)) return "is out of range for double";
  } else if (ec != std::errc() || ptr != last) {
    return "is not a valid double";
  }
  value = d;
  return {};
}

using detail::decodePlyValue;

template <typename T>
void storeLittle(std::string& out, T v) {
  char tmp[sizeof(T)];
  std::memcpy(tmp, &v, sizeof(T));
  if constexpr (std::endian::native != std::endian::little && sizeof(T) > 1) std::reverse(tmp, tmp + sizeof(T));
  out.append(tmp, sizeof(T));
}

}  // namespace

// ---- types ---------------------------------------------------------------------------------

size_t plyTypeSize(PlyType type) {
  switch (type) {
    case PlyType::Int8:
    case PlyType::UInt8: return 1;
    case PlyType::Int16:
    case PlyType::UInt16: return 2;
    case PlyType::Int32:
    case PlyType::UInt32:
    case PlyType::Float32: return 4;
    case PlyType::Float64: return 8;
  }
  return 0;
}

const char* plyTypeName(PlyType type) {
  switch (type) {
    case PlyType::Int8: return "char";
    case PlyType::UInt8: return "uchar";
    case PlyType::Int16: return "short";
    case PlyType::UInt16: return "ushort";
    case PlyType::Int32: return "int";
    case PlyType::UInt32: return "uint";
    case PlyType::Float32: return "float";
    case PlyType::Float64: return "double";
  }
  return "?";
}

std::optional<PlyType> parsePlyType(std::string_view name) {
  struct Entry {
    std::string_view name;
    PlyType type;
  };
  static constexpr Entry kTypes[] = {
      {"char", PlyType::Int8},     {"int8", PlyType::Int8},       {"uchar", PlyType::UInt8},
      {"uint8", PlyType::UInt8},   {"short", PlyType::Int16},     {"int16", PlyType::Int16},
      {"ushort", PlyType::UInt16}, {"uint16", PlyType::UInt16},   {"int", PlyType::Int32},
      {"int32", PlyType::Int32},   {"uint", PlyType::UInt32},     {"uint32", PlyType::UInt32},
      {"float", PlyType::Float32}, {"float32", PlyType::Float32}, {"double", PlyType::Float64},
      {"float64", PlyType::Float64},
  };
  for (const auto& e : kTypes)
    if (e.name == name) return e.type;
  return std::nullopt;
}

const char* plyFormatName(PlyFormat format) {
  switch (format) {
    case PlyFormat::Ascii: return "ascii";
    case PlyFormat::BinaryLittleEndian: return "binary_little_endian";
    case PlyFormat::BinaryBigEndian: return "binary_big_endian";
  }
  return "?";
}

std::optional<size_t> PlyElement::find(std::string_view propertyName) const {
  for (size_t i = 0; i < properties.size(); ++i)
    if (properties[i].name == propertyName) return i;
  return std::nullopt;
}

const PlyElement* PlyHeader::find(std::string_view elementName) const {
  for (const auto& e : elements)
    if (e.name == elementName) return &e;
  return nullptr;
}

// ---- header --------------------------------------------------------------------------------

PlyHeader readPlyHeader(std::istream& in, const std::string& name) {
  PlyHeader header;
  uint64_t lineNo = 0;
  auto fail = [&](const std::string& why) -> void { throw Error(name + ":" + std::to_string(lineNo) + ": " + why); };

  std::string line;
  auto nextLine = [&]() -> bool {
    line.clear();
    int c;
    bool any = false;
    while ((c = in.get()) != std::char_traits<char>::eof()) {
      any = true;
      if (c == '\n') break;
      line.push_back(char(c));
      if (line.size() > kMaxHeaderLine) {
        ++lineNo;
        fail("header line longer than " + std::to_string(kMaxHeaderLine) + " bytes (is this a PLY file?)");
      }
    }
    if (!any) return false;
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };

  if (!nextLine()) throw Error(name + ": empty file, not a PLY file");
  // Editors on Windows put a UTF-8 byte order mark in front of text files; it is not part
  // of the magic word.
  if (line.starts_with(kUtf8ByteOrderMark)) line.erase(0, kUtf8ByteOrderMark.size());
  {
    std::vector<std::string_view> t;
    tokenize(line, t);
    if (t.size() != 1 || t[0] != "ply") fail("not a PLY file: the first line must be 'ply'");
  }
  bool haveFormat = false;
  std::vector<std::string_view> tokens;
  for (;;) {
    if (!nextLine()) {
      throw Error(name + ": truncated PLY header: no 'end_header' line (the file ends after line " +
                  std::to_string(lineNo) + ")");
    }
    tokenize(line, tokens);
    if (tokens.empty()) continue;
    const std::string_view keyword = tokens[0];
    if (keyword == "comment" || keyword == "obj_info") {
      const size_t at = line.find(keyword) + keyword.size();
      std::string rest = line.substr(std::min(at, line.size()));
      const size_t b = rest.find_first_not_of(" \t");
      header.comments.push_back(b == std::string::npos ? std::string() : rest.substr(b));
    } else if (keyword == "format") {
      if (tokens.size() != 3) fail("malformed format line: expected 'format <ascii|binary_little_endian> 1.0'");
      if (tokens[1] == "ascii") header.format = PlyFormat::Ascii;
      else if (tokens[1] == "binary_little_endian") header.format = PlyFormat::BinaryLittleEndian;
      else if (tokens[1] == "binary_big_endian") header.format = PlyFormat::BinaryBigEndian;
      else fail("unknown PLY format " + inQuotes(tokens[1]));
      if (tokens[2] != "1.0" && tokens[2] != "1") fail("unsupported PLY version " + inQuotes(tokens[2]) + " (expected 1.0)");
      haveFormat = true;
    } else if (keyword == "element") {
      if (tokens.size() != 3) fail("malformed element line: expected 'element <name> <count>'");
      PlyElement e;
      e.name = std::string(tokens[1]);
      const auto [ptr, ec] = std::from_chars(tokens[2].data(), tokens[2].data() + tokens[2].size(), e.count);
      if (ec != std::errc() || ptr != tokens[2].data() + tokens[2].size())
        fail("element " + inQuotes(e.name) + " has an invalid count " + inQuotes(tokens[2]));
      if (header.find(e.name)) fail("element " + inQuotes(e.name) + " is declared twice");
      header.elements.push_back(std::move(e));
    } else if (keyword == "property") {
      if (header.elements.empty()) fail("property declared before any element");
      PlyElement& e = header.elements.back();
      PlyProperty p;
      if (tokens.size() >= 2 && tokens[1] == "list") {
        if (tokens.size() != 5) fail("malformed list property: expected 'property list <count type> <item type> <name>'");
        const auto ct = parsePlyType(tokens[2]);
        const auto it = parsePlyType(tokens[3]);
        if (!ct) fail("unknown property type " + inQuotes(tokens[2]));
        if (!it) fail("unknown property type " + inQuotes(tokens[3]));
        if (!isInteger(*ct)) fail("list property " + inQuotes(tokens[4]) + " has a non-integer count type " + inQuotes(tokens[2]));
        p.isList = true;
        p.countType = *ct;
        p.type = *it;
        p.name = std::string(tokens[4]);
      } else {
        if (tokens.size() != 3) fail("malformed property line: expected 'property <type> <name>'");
        const auto t = parsePlyType(tokens[1]);
        if (!t) fail("unknown property type " + inQuotes(tokens[1]) + " for property " + inQuotes(tokens[2]));
        p.type = *t;
        p.name = std::string(tokens[2]);
      }
      if (e.find(p.name)) fail("property " + inQuotes(p.name) + " is declared twice in element " + inQuotes(e.name));
      e.properties.push_back(std::move(p));
    } else if (keyword == "end_header") {
      if (tokens.size() != 1) fail("malformed end_header line");
      break;
    } else {
      fail("unknown header keyword " + inQuotes(keyword));
    }
  }
  if (!haveFormat) fail("the header has no 'format' line");
  header.lineCount = lineNo;
  const auto pos = in.tellg();
  header.bodyOffset = pos < 0 ? 0 : uint64_t(pos);
  return header;
}

PlyHeader readPlyHeader(const std::filesystem::path& path) {
  std::ifstream in = detail::openInputFile(path, "PLY file");
  return readPlyHeader(in, path.string());
}

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

// ---- writer --------------------------------------------------------------------------------

PlyWriter::PlyWriter(const std::filesystem::path& path, std::vector<PlyColumn> columns, PlyFormat format,
                     std::vector<std::string> comments)
    : path_(path), columns_(std::move(columns)), format_(format) {
  if (format_ == PlyFormat::BinaryBigEndian)
    throw Error(path_.string() + ": writing binary_big_endian PLY is not supported");
  if (columns_.empty()) throw Error(path_.string() + ": a PLY vertex needs at least one property");
  for (size_t i = 0; i < columns_.size(); ++i) {
    const auto& n = columns_[i].name;
    if (n.empty() || n.find_first_of(" \t\r\n") != std::string::npos)
      throw Error(path_.string() + ": invalid PLY property name " + inQuotes(n));
    for (size_t j = 0; j < i; ++j)
      if (columns_[j].name == n) throw Error(path_.string() + ": property " + inQuotes(n) + " given twice");
  }
  out_ = std::make_unique<detail::AtomicFileWriter>(path_, "PLY", detail::AtomicFileWriter::Patching::Needed);
  uncaughtAtStart_ = std::uncaught_exceptions();
  std::string h = "ply\nformat ";
  h += plyFormatName(format_);
  h += " 1.0\n";
  for (const auto& c : comments) {
    if (c.find_first_of("\r\n") != std::string::npos) throw Error(path_.string() + ": a PLY comment cannot span lines");
    h += "comment " + c + "\n";
  }
  h += "element vertex ";
  countOffset_ = h.size();
  h += std::string(20, ' ');  // the count, patched on close(); readers ignore trailing blanks
  h += "\n";
  for (const auto& c : columns_) h += "property " + std::string(plyTypeName(c.type)) + " " + c.name + "\n";
  h += "end_header\n";
  buffer_ = std::move(h);
  // The header with a count of 0, which close() patches (the file appears only then).
  std::string zero = "0";
  buffer_.replace(countOffset_, zero.size(), zero);
  flush();
}

PlyWriter::~PlyWriter() {
  if (std::uncaught_exceptions() > uncaughtAtStart_) return;  // out_ dies uncommitted: no partial file
  try {
    close();
  } catch (...) {
  }
}

void PlyWriter::write(std::span<const double> row) {
  if (closed_) throw Error(path_.string() + ": write after close");
  if (row.size() != columns_.size()) {
    throw Error(path_.string() + ": vertex " + std::to_string(rows_) + " has " + std::to_string(row.size()) +
                " values for " + std::to_string(columns_.size()) + " properties");
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    const PlyType type = columns_[c].type;
    double v = row[c];
    if (isInteger(type)) {
      v = std::nearbyint(v);
      if (!std::isfinite(v) || v < typeMin(type) || v > typeMax(type)) {
        throw Error(path_.string() + ": vertex " + std::to_string(rows_) + ", property " + inQuotes(columns_[c].name) +
                    ": " + std::to_string(row[c]) + " does not fit " + plyTypeName(type));
      }
    }
    if (format_ == PlyFormat::Ascii) {
      if (c) buffer_.push_back(' ');
      char text[64];
      std::to_chars_result r;
      if (type == PlyType::Float64) r = std::to_chars(text, text + sizeof(text), v);
      else if (type == PlyType::Float32) r = std::to_chars(text, text + sizeof(text), float(v));
      else r = std::to_chars(text, text + sizeof(text), int64_t(v));
      buffer_.append(text, r.ptr);
    } else {
      switch (type) {
        case PlyType::Int8: storeLittle(buffer_, int8_t(v)); break;
        case PlyType::UInt8: storeLittle(buffer_, uint8_t(v)); break;
        case PlyType::Int16: storeLittle(buffer_, int16_t(v)); break;
        case PlyType::UInt16: storeLittle(buffer_, uint16_t(v)); break;
        case PlyType::Int32: storeLittle(buffer_, int32_t(v)); break;
        case PlyType::UInt32: storeLittle(buffer_, uint32_t(v)); break;
        case PlyType::Float32: storeLittle(buffer_, float(v)); break;
        case PlyType::Float64: storeLittle(buffer_, v); break;
      }
    }
  }
  if (format_ == PlyFormat::Ascii) buffer_.push_back('\n');
  ++rows_;
  if (buffer_.size() >= (size_t(1) << 20)) flush();
}

void PlyWriter::writeRows(std::span<const double> rowMajor) {
  const size_t n = columns_.size();
  if (rowMajor.size() % n != 0) {
    throw Error(path_.string() + ": " + std::to_string(rowMajor.size()) + " values are not whole rows of " +
                std::to_string(n));
  }
  for (size_t i = 0; i < rowMajor.size(); i += n) write(rowMajor.subspan(i, n));
}

void PlyWriter::flush() {
  if (buffer_.empty()) return;
  out_->write(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void PlyWriter::close() {
  if (closed_) return;
  closed_ = true;
  flush();
  std::string count = std::to_string(rows_);
  count.resize(20, ' ');
  out_->patch(countOffset_, count.data(), count.size());
  out_->commit();
}

void writePly(const std::filesystem::path& path, const std::vector<PlyColumn>& columns, std::span<const double> rowMajor,
              PlyFormat format, const std::vector<std::string>& comments) {
  PlyWriter writer(path, columns, format, comments);
  writer.writeRows(rowMajor);
  writer.close();
}

}  // namespace voxen
