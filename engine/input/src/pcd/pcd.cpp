#include "voxen/input/pcd.hpp"

#include <lzf.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "voxen/input/input_file.hpp"
#include "mapped_file.hpp"
#include "voxen/host/allocation.hpp"
#include "voxen/host/error.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen {

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

template <typename T>
void decodeAs(const char* p, size_t stride, uint64_t n, double* out, size_t ncol) {
  for (uint64_t r = 0; r < n; ++r) {
    T v;
    std::memcpy(&v, p + r * stride, sizeof(T));
    out[r * ncol] = double(v);
  }
}

// One field's values for n points `stride` bytes apart, into every ncol-th double: the type
// is switched on once per column, not per value.
void decodeColumn(const PcdField& f, const char* p, size_t stride, uint64_t n, double* out, size_t ncol) {
  const int key = (f.type == 'F' ? 0 : f.type == 'I' ? 16 : 32) + f.size;
  switch (key) {
    case 4: decodeAs<float>(p, stride, n, out, ncol); break;
    case 8: decodeAs<double>(p, stride, n, out, ncol); break;
    case 17: decodeAs<int8_t>(p, stride, n, out, ncol); break;
    case 18: decodeAs<int16_t>(p, stride, n, out, ncol); break;
    case 20: decodeAs<int32_t>(p, stride, n, out, ncol); break;
    case 24: decodeAs<int64_t>(p, stride, n, out, ncol); break;
    case 33: decodeAs<uint8_t>(p, stride, n, out, ncol); break;
    case 34: decodeAs<uint16_t>(p, stride, n, out, ncol); break;
    case 36: decodeAs<uint32_t>(p, stride, n, out, ncol); break;
    default: decodeAs<uint64_t>(p, stride, n, out, ncol); break;
  }
}

void encodeValue(char* p, char type, int size, double value) {
  if (type == 'F') {
    if (size == 4) {
      const float v = float(value);
      std::memcpy(p, &v, 4);
    } else {
      std::memcpy(p, &value, 8);
    }
    return;
  }
  const int64_t i = int64_t(std::llround(value));
  std::memcpy(p, &i, size_t(size));  // little-endian: the low bytes first
}

std::string at(const std::string& name, uint64_t line) { return name + ":" + std::to_string(line) + ": "; }

// A whole number as a header writes it, read in full 64 bits: anything but digits, or a
// value past `max` (the field's range, or the stated limit), is refused naming the line and
// the key, never cut to fit.
uint64_t parseCount(const std::string& name, uint64_t line, const std::string& key, const std::string& text,
                    uint64_t max, const std::string& why) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool digits = !text.empty() && end == text.data() + text.size() &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) throw Error(at(name, line) + key + " must be a whole number, not '" + text + "'");
  if (ec == std::errc::result_out_of_range || v > max)
    throw Error(at(name, line) + key + " " + text + " is more than " + std::to_string(max) + " (" + why + ")");
  return v;
}

const std::string kPointsLimit = "the most points a PCD header may state, 2^40";

// a x b, or nullopt when it does not fit 64 bits.
std::optional<uint64_t> product(uint64_t a, uint64_t b) {
  uint64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p)) return std::nullopt;
  return p;
}

// The body's size against what the header says it holds, before anything is allocated for it.
void checkBodyAgainstHeader(const std::string& name, const PcdHeader& h, uint64_t bodyBytes) {
  const std::optional<uint64_t> bytes = product(h.points, h.rowBytes);  // at most 2^40 x 2^20 from readPcdHeader
  if (!bytes || h.points > kPcdMaxPoints || h.rowBytes > kPcdMaxRowBytes)
    throw Error(name + ": POINTS " + std::to_string(h.points) + " of " + std::to_string(h.rowBytes) +
                " bytes is past the limits of a PCD header (2^40 points of at most " + std::to_string(kPcdMaxRowBytes) + " bytes)");
  const uint64_t need = *bytes;
  if (h.data == PcdData::Binary && bodyBytes != need)
    throw Error(name + ": the binary body holds " + std::to_string(bodyBytes) + " bytes, but POINTS " +
                std::to_string(h.points) + " of " + std::to_string(h.rowBytes) + " bytes need " + std::to_string(need) +
                (bodyBytes < need ? " (the file is truncated)" : " (bytes follow the last point)"));
  if (h.data == PcdData::BinaryCompressed && need > 0) {
    if (bodyBytes < 8)
      throw Error(name + ": truncated binary_compressed body: " + std::to_string(bodyBytes) +
                  " bytes, less than its 8-byte sizes");
    // An LZF back reference of 2-3 bytes expands to at most 264: a header promising more than
    // the body can expand to is corrupt, and must not make a small file allocate gigabytes.
    const uint64_t packed = bodyBytes - 8;
    if (need > packed * 132 + 64)
      throw Error(name + ": the binary_compressed body cannot expand from " + std::to_string(packed) + " to " +
                  std::to_string(need) + " bytes (LZF expands at most 132 times): POINTS " + std::to_string(h.points) +
                  " of " + std::to_string(h.rowBytes) + " bytes, or the file, is wrong");
  }
}

}  // namespace

const PcdField* PcdHeader::find(std::string_view name) const {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

const char* pcdDataName(PcdData data) {
  switch (data) {
    case PcdData::Ascii: return "ascii";
    case PcdData::Binary: return "binary";
    case PcdData::BinaryCompressed: return "binary_compressed";
  }
  return "?";
}

const char* pcdViewpointName(PcdViewpoint reading) { return reading == PcdViewpoint::Pose ? "pose" : "origin"; }

std::optional<PcdViewpoint> parsePcdViewpoint(std::string_view name) {
  if (name == "origin") return PcdViewpoint::Origin;
  if (name == "pose") return PcdViewpoint::Pose;
  return std::nullopt;
}

std::string pcdTypeName(const PcdField& field) { return std::string(1, field.type) + std::to_string(field.size); }

bool PcdHeader::viewpointIsIdentity() const {
  const std::array<double, 7> identity{0, 0, 0, 1, 0, 0, 0};
  return viewpoint == identity;
}

PcdHeader readPcdHeader(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::ifstream in = detail::openInputFile(path, "PCD file");
  PcdHeader h;
  std::vector<std::string> names, sizes, types, counts;
  uint64_t fieldsLine = 0, sizeLine = 0, countLine = 0, widthLine = 0, pointsLine = 0;
  bool haveWidth = false, havePoints = false, haveData = false;
  std::string line;
  uint64_t lineNo = 0;
  while (!haveData && std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto w = words(line);
    if (w.empty() || w[0][0] == '#') continue;
    const std::string& key = w[0];
    auto fail = [&](const std::string& why) { throw Error(at(name, lineNo) + why); };
    auto need = [&](size_t n) {
      if (w.size() != n + 1) fail(key + " takes " + std::to_string(n) + " value" + (n == 1 ? "" : "s") + ", found " +
                                  std::to_string(w.size() - 1));
    };
    if (key == "VERSION") {
      need(1);
      h.version = w[1];
    } else if (key == "FIELDS" || key == "COLUMNS") {
      names.assign(w.begin() + 1, w.end());
      fieldsLine = lineNo;
    } else if (key == "SIZE") {
      sizes.assign(w.begin() + 1, w.end());
      sizeLine = lineNo;
    } else if (key == "TYPE") {
      types.assign(w.begin() + 1, w.end());
    } else if (key == "COUNT") {
      counts.assign(w.begin() + 1, w.end());
      countLine = lineNo;
    } else if (key == "WIDTH") {
      need(1);
      h.width = parseCount(name, lineNo, key, w[1], kPcdMaxPoints, kPointsLimit);
      haveWidth = true;
      widthLine = lineNo;
    } else if (key == "HEIGHT") {
      need(1);
      h.height = parseCount(name, lineNo, key, w[1], kPcdMaxPoints, kPointsLimit);
    } else if (key == "POINTS") {
      need(1);
      h.points = parseCount(name, lineNo, key, w[1], kPcdMaxPoints, kPointsLimit);
      havePoints = true;
      pointsLine = lineNo;
    } else if (key == "VIEWPOINT") {
      need(7);
      for (int i = 0; i < 7; ++i) {
        char* end = nullptr;
        h.viewpoint[size_t(i)] = std::strtod(w[size_t(i) + 1].c_str(), &end);
        if (*end != '\0' || !std::isfinite(h.viewpoint[size_t(i)]))
          fail("VIEWPOINT value " + std::to_string(i + 1) + " is not a finite number: '" + w[size_t(i) + 1] + "'");
      }
      h.hasViewpoint = true;
      h.viewpointLine = lineNo;
    } else if (key == "DATA") {
      need(1);
      if (w[1] == "ascii") h.data = PcdData::Ascii;
      else if (w[1] == "binary") h.data = PcdData::Binary;
      else if (w[1] == "binary_compressed") h.data = PcdData::BinaryCompressed;
      else fail("DATA must be ascii, binary or binary_compressed, not '" + w[1] + "'");
      haveData = true;
    } else {
      fail("not a PCD header line (unknown key '" + key + "')");
    }
  }
  if (!haveData) throw Error(name + ": truncated PCD header: no DATA line (the file ends after line " + std::to_string(lineNo) + ")");
  h.headerLines = lineNo;
  const uint64_t fileSize = std::filesystem::file_size(path);
  h.bodyOffset = in.eof() ? fileSize : uint64_t(in.tellg());
  if (names.empty()) throw Error(name + ": the PCD header has no FIELDS line");
  if (sizes.size() != names.size() || types.size() != names.size() || (!counts.empty() && counts.size() != names.size()))
    throw Error(at(name, fieldsLine) + "FIELDS names " + std::to_string(names.size()) + " fields but SIZE has " + std::to_string(sizes.size()) +
                ", TYPE " + std::to_string(types.size()) + (counts.empty() ? "" : ", COUNT " + std::to_string(counts.size())));
  const std::string rowLimit = "a point's fields may take at most " + std::to_string(kPcdMaxRowBytes) + " bytes";
  uint64_t offset = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    PcdField f;
    f.name = names[i];
    f.type = types[i].size() == 1 ? types[i][0] : '?';
    const uint64_t size = parseCount(name, sizeLine, "SIZE of field " + f.name, sizes[i], 8, "a value takes 1, 2, 4 or 8 bytes");
    const uint64_t count = counts.empty() ? 1 : parseCount(name, countLine, "COUNT of field " + f.name, counts[i],
                                                           kPcdMaxRowBytes, rowLimit);
    const bool sizeOk = f.type == 'F' ? (size == 4 || size == 8) : (size == 1 || size == 2 || size == 4 || size == 8);
    if ((f.type != 'F' && f.type != 'I' && f.type != 'U') || !sizeOk)
      throw Error(at(name, fieldsLine) + "field " + f.name + " has TYPE " + types[i] + " and SIZE " + sizes[i] +
                  " (expected F 4/8, or I or U 1/2/4/8)");
    if (count < 1) throw Error(at(name, countLine) + "field " + f.name + " has COUNT 0 (at least 1)");
    f.size = int(size);
    f.count = int(count);  // at most kPcdMaxRowBytes
    f.offset = size_t(offset);
    offset += size * count;  // each term at most 8 x 2^20: no overflow before the check below
    if (offset > kPcdMaxRowBytes)
      throw Error(at(name, countLine ? countLine : sizeLine) + "the fields up to " + f.name + " take " + std::to_string(offset) +
                  " bytes a point (SIZE x COUNT summed), more than the " + std::to_string(kPcdMaxRowBytes) +
                  " bytes a PCD point may have");
    h.fields.push_back(f);
  }
  h.rowBytes = size_t(offset);
  if (!haveWidth) throw Error(name + ": the PCD header has no WIDTH line");
  const std::optional<uint64_t> area = product(h.width, h.height);
  if (!area || *area > kPcdMaxPoints)
    throw Error(at(name, widthLine) + "WIDTH x HEIGHT (" + std::to_string(h.width) + " x " + std::to_string(h.height) +
                ") is more than " + std::to_string(kPcdMaxPoints) + " points (" + kPointsLimit + ")");
  if (!havePoints) h.points = *area;
  if (h.points != *area)
    throw Error(at(name, pointsLine) + "POINTS " + std::to_string(h.points) + " is not WIDTH x HEIGHT (" + std::to_string(h.width) +
                " x " + std::to_string(h.height) + ")");
  checkBodyAgainstHeader(name, h, fileSize - std::min(fileSize, h.bodyOffset));
  return h;
}

void readPcdPoints(const std::filesystem::path& path, const PcdHeader& h, std::span<const size_t> fields, uint64_t first,
                   uint64_t count, std::vector<double>& out) {
  const std::string name = path.string();
  const size_t ncol = fields.size();
  count = std::min(count, h.points - std::min(first, h.points));
  const uint64_t fileSize = std::filesystem::file_size(path);
  const uint64_t bodyBytes = fileSize - std::min(fileSize, h.bodyOffset);
  // Checked again: the file may have changed since its header was read.
  checkBodyAgainstHeader(name, h, bodyBytes);
  size_t tokens = 0;  // values a point has (ascii)
  for (const PcdField& f : h.fields) tokens += size_t(f.count);
  if (h.data == PcdData::Ascii) {
    // Every value takes a character and a space or line end after it: a body of B bytes holds
    // at most (B + 1) / (2 x values) points, whatever POINTS says (more is found short below).
    count = std::min<uint64_t>(count, (bodyBytes + 1) / std::max<uint64_t>(2 * tokens, 1));
  }
  const std::string pointsSetBy = "set by POINTS " + std::to_string(h.points) + " in its header";
  resizeFor(out, allocationBytes(count, ncol), "the values of " + std::to_string(count) + " points of " + name, pointsSetBy);
  if (h.data == PcdData::Binary) {
    if (count == 0) return;
    std::optional<detail::MappedFile> file = detail::MappedFile::open(path);
    if (!file) throw Error(name + ": cannot map the binary body");
    const char* body = file->data() + h.bodyOffset + first * h.rowBytes;
    // Blocks of rows, column by column: the block's bytes stay in the L1 cache across columns.
    constexpr uint64_t kBlock = 256;
    for (uint64_t r = 0; r < count; r += kBlock) {
      const uint64_t n = std::min(kBlock, count - r);
      for (size_t c = 0; c < ncol; ++c) {
        const PcdField& f = h.fields[fields[c]];
        decodeColumn(f, body + r * h.rowBytes + f.offset, h.rowBytes, n, out.data() + r * ncol + c, ncol);
      }
    }
    return;
  }
  std::ifstream in = detail::openInputFile(path, "PCD file");
  in.seekg(std::streamoff(h.bodyOffset));
  std::string body;
  allocating("the " + std::string(pcdDataName(h.data)) + " body of " + name, bodyBytes, "the file's size", [&] {
    body.resize(size_t(bodyBytes));
  });
  in.read(body.data(), std::streamsize(body.size()));
  if (h.data == PcdData::BinaryCompressed) {
    uint32_t sizes[2] = {0, 0};
    if (body.size() < 8) throw Error(name + ": truncated binary_compressed body: " + std::to_string(body.size()) + " bytes, less than its 8-byte sizes");
    std::memcpy(sizes, body.data(), 8);
    const uint64_t need = h.points * h.rowBytes;  // at most 2^40 x 2^20 (checked above)
    if (sizes[1] != need)
      throw Error(name + ": the binary_compressed body says it expands to " + std::to_string(sizes[1]) + " bytes, but POINTS " +
                  std::to_string(h.points) + " of " + std::to_string(h.rowBytes) + " bytes need " + std::to_string(need));
    if (uint64_t(sizes[0]) + 8 > body.size())
      throw Error(name + ": truncated binary_compressed body: " + std::to_string(body.size() - 8) + " compressed bytes of " +
                  std::to_string(sizes[0]) + " declared");
    // An LZF back reference of 2-3 bytes expands to at most 264: a header promising more than
    // that is corrupt, and must not make a small file allocate gigabytes.
    if (need > uint64_t(sizes[0]) * 132 + 64)
      throw Error(name + ": the binary_compressed body cannot expand from " + std::to_string(sizes[0]) + " to " +
                  std::to_string(need) + " bytes (LZF expands at most 132 times): the header or the sizes are corrupt");
    std::vector<char> raw;
    resizeFor(raw, need, "the decompressed binary_compressed body of " + name, pointsSetBy);
    if (need > 0) {
      const unsigned got = lzf_decompress(body.data() + 8, sizes[0], raw.data(), unsigned(need));
      if (got != need)
        throw Error(name + ": the binary_compressed body does not decompress (LZF gave " + std::to_string(got) + " of " +
                    std::to_string(need) + " bytes: the data is corrupt)");
    }
    // Field after field: each field's values for every point, one after the other.
    for (size_t c = 0; c < ncol; ++c) {
      const PcdField& f = h.fields[fields[c]];
      const char* base = raw.data() + h.points * f.offset;
      const size_t stride = size_t(f.size) * size_t(f.count);
      decodeColumn(f, base + first * stride, stride, count, out.data() + c, ncol);
    }
    return;
  }
  // ascii: a point a line, every field's COUNT values.
  std::vector<size_t> column(h.fields.size() + 1, 0);  // token index of each field's first value
  for (size_t i = 0; i < h.fields.size(); ++i) column[i + 1] = column[i] + size_t(h.fields[i].count);
  std::vector<double> values(tokens);
  size_t pos = 0;
  uint64_t point = 0, stored = 0;
  uint64_t lineNo = h.headerLines;
  while (pos < body.size() && point < h.points) {
    size_t end = body.find('\n', pos);
    if (end == std::string::npos) end = body.size();
    ++lineNo;
    const char* p = body.data() + pos;
    const char* e = body.data() + end;
    pos = end + 1;
    while (p < e && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (p == e) continue;  // blank line
    size_t n = 0;
    while (p < e) {
      if (n == tokens)
        throw Error(name + ":" + std::to_string(lineNo) + ": more than the " + std::to_string(tokens) + " values a point has");
      char* stop = nullptr;
      const double v = std::strtod(p, &stop);
      if (stop == p || (stop < e && !std::isspace(static_cast<unsigned char>(*stop)))) {
        const char* wordEnd = p;
        while (wordEnd < e && !std::isspace(static_cast<unsigned char>(*wordEnd))) ++wordEnd;
        size_t field = 0;
        while (column[field + 1] <= n) ++field;
        throw Error(name + ":" + std::to_string(lineNo) + ": field " + h.fields[field].name + ": not a number: '" +
                    std::string(p, wordEnd) + "'");
      }
      values[n++] = v;
      p = stop;
      while (p < e && std::isspace(static_cast<unsigned char>(*p))) ++p;
    }
    if (n < tokens)
      throw Error(name + ":" + std::to_string(lineNo) + ": " + std::to_string(n) + " values, a point has " + std::to_string(tokens));
    if (point >= first && stored < count) {
      for (size_t c = 0; c < ncol; ++c) out[stored * ncol + c] = values[column[fields[c]]];
      ++stored;
    }
    ++point;
  }
  if (point < h.points)
    throw Error(name + ":" + std::to_string(lineNo) + ": the body ends after " + std::to_string(point) + " of POINTS " +
                std::to_string(h.points) + " points (the file is truncated)");
  for (; pos < body.size(); ++pos) {
    if (!std::isspace(static_cast<unsigned char>(body[pos])))
      throw Error(name + ":" + std::to_string(lineNo + 1) + ": more points than POINTS " + std::to_string(h.points));
  }
}

void writePcd(const std::filesystem::path& path, std::span<const PcdColumn> columns, std::span<const double> rows,
              PcdData data, std::optional<std::array<double, 7>> viewpoint) {
  const size_t ncol = columns.size();
  const size_t points = ncol ? rows.size() / ncol : 0;
  std::ostringstream head;
  head.precision(17);
  head << "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS";
  for (const auto& c : columns) head << ' ' << c.name;
  head << "\nSIZE";
  for (const auto& c : columns) head << ' ' << c.size;
  head << "\nTYPE";
  for (const auto& c : columns) head << ' ' << c.type;
  head << "\nCOUNT";
  for (size_t i = 0; i < ncol; ++i) head << " 1";
  head << "\nWIDTH " << points << "\nHEIGHT 1\n";
  if (viewpoint) {
    head << "VIEWPOINT";
    for (const double v : *viewpoint) head << ' ' << v;
    head << '\n';
  }
  head << "POINTS " << points << "\nDATA " << pcdDataName(data) << '\n';
  detail::AtomicFileWriter out(path, "PCD");
  const std::string text = head.str();
  out.write(text.data(), text.size());
  size_t rowBytes = 0;
  for (const auto& c : columns) rowBytes += size_t(c.size);
  if (data == PcdData::Ascii) {
    std::ostringstream body;
    body.precision(17);
    for (size_t r = 0; r < points; ++r) {
      for (size_t c = 0; c < ncol; ++c) {
        if (c) body << ' ';
        const double v = rows[r * ncol + c];
        if (columns[c].type == 'F') body << (columns[c].size == 4 ? double(float(v)) : v);
        else body << std::llround(v);
      }
      body << '\n';
    }
    const std::string b = body.str();
    out.write(b.data(), b.size());
  } else {
    std::vector<char> raw(points * rowBytes);
    size_t offset = 0;
    for (size_t c = 0; c < ncol; ++c) {
      for (size_t r = 0; r < points; ++r) {
        // binary: rows of fields; binary_compressed: each field's column in turn.
        char* p = data == PcdData::Binary ? raw.data() + r * rowBytes + offset : raw.data() + points * offset + r * size_t(columns[c].size);
        encodeValue(p, columns[c].type, columns[c].size, rows[r * ncol + c]);
      }
      offset += size_t(columns[c].size);
    }
    if (data == PcdData::Binary) {
      out.write(raw.data(), raw.size());
    } else {
      std::vector<char> packed(raw.size() + raw.size() / 16 + 64);
      const unsigned n = raw.empty() ? 0 : lzf_compress(raw.data(), unsigned(raw.size()), packed.data(), unsigned(packed.size()));
      if (!raw.empty() && n == 0) throw Error(path.string() + ": LZF compression failed");
      const uint32_t sizes[2] = {n, uint32_t(raw.size())};
      out.write(sizes, 8);
      out.write(packed.data(), n);
    }
  }
  out.commit();
}

}  // namespace voxen
