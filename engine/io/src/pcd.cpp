#include "voxen/io/pcd.hpp"

#include <lzf.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "input_file.hpp"
#include "mapped_file.hpp"
#include "voxen/host/error.hpp"
#include "voxen/output/atomic_file.hpp"

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

uint64_t parseCount(const std::string& name, int line, const std::string& key, const std::string& text) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw Error(name + ":" + std::to_string(line) + ": " + key + " must be a whole number, not '" + text + "'");
  return v;
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

std::string pcdTypeName(const PcdField& field) { return std::string(1, field.type) + std::to_string(field.size); }

PcdHeader readPcdHeader(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::ifstream in = detail::openInputFile(path, "PCD file");
  PcdHeader h;
  std::vector<std::string> names, sizes, types, counts;
  int fieldsLine = 0;
  bool haveWidth = false, havePoints = false, haveData = false;
  std::string line;
  int lineNo = 0;
  while (!haveData && std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto w = words(line);
    if (w.empty() || w[0][0] == '#') continue;
    const std::string& key = w[0];
    auto fail = [&](const std::string& why) { throw Error(name + ":" + std::to_string(lineNo) + ": " + why); };
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
    } else if (key == "TYPE") {
      types.assign(w.begin() + 1, w.end());
    } else if (key == "COUNT") {
      counts.assign(w.begin() + 1, w.end());
    } else if (key == "WIDTH") {
      need(1);
      h.width = parseCount(name, lineNo, key, w[1]);
      haveWidth = true;
    } else if (key == "HEIGHT") {
      need(1);
      h.height = parseCount(name, lineNo, key, w[1]);
    } else if (key == "POINTS") {
      need(1);
      h.points = parseCount(name, lineNo, key, w[1]);
      havePoints = true;
    } else if (key == "VIEWPOINT") {
      need(7);
      for (int i = 0; i < 7; ++i) {
        char* end = nullptr;
        h.viewpoint[size_t(i)] = std::strtod(w[size_t(i) + 1].c_str(), &end);
        if (*end != '\0' || !std::isfinite(h.viewpoint[size_t(i)]))
          fail("VIEWPOINT value " + std::to_string(i + 1) + " is not a finite number: '" + w[size_t(i) + 1] + "'");
      }
      h.hasViewpoint = true;
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
  h.bodyOffset = uint64_t(in.tellg());
  if (in.eof()) h.bodyOffset = std::filesystem::file_size(path);
  const std::string at = name + ":" + std::to_string(fieldsLine) + ": ";
  if (names.empty()) throw Error(name + ": the PCD header has no FIELDS line");
  if (sizes.size() != names.size() || types.size() != names.size() || (!counts.empty() && counts.size() != names.size()))
    throw Error(at + "FIELDS names " + std::to_string(names.size()) + " fields but SIZE has " + std::to_string(sizes.size()) +
                ", TYPE " + std::to_string(types.size()) + (counts.empty() ? "" : ", COUNT " + std::to_string(counts.size())));
  size_t offset = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    PcdField f;
    f.name = names[i];
    f.type = types[i].size() == 1 ? types[i][0] : '?';
    f.size = int(parseCount(name, fieldsLine, "SIZE of field " + f.name, sizes[i]));
    f.count = counts.empty() ? 1 : int(parseCount(name, fieldsLine, "COUNT of field " + f.name, counts[i]));
    const bool sizeOk = f.type == 'F' ? (f.size == 4 || f.size == 8)
                                      : (f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8);
    if ((f.type != 'F' && f.type != 'I' && f.type != 'U') || !sizeOk)
      throw Error(at + "field " + f.name + " has TYPE " + types[i] + " and SIZE " + sizes[i] +
                  " (expected F 4/8, or I or U 1/2/4/8)");
    if (f.count < 1) throw Error(at + "field " + f.name + " has COUNT " + std::to_string(f.count) + " (at least 1)");
    f.offset = offset;
    offset += size_t(f.size) * size_t(f.count);
    h.fields.push_back(f);
  }
  h.rowBytes = offset;
  if (!haveWidth) throw Error(name + ": the PCD header has no WIDTH line");
  if (!havePoints) h.points = h.width * h.height;
  if (h.points != h.width * h.height)
    throw Error(name + ": POINTS " + std::to_string(h.points) + " is not WIDTH x HEIGHT (" + std::to_string(h.width) +
                " x " + std::to_string(h.height) + ")");
  return h;
}

void readPcdPoints(const std::filesystem::path& path, const PcdHeader& h, std::span<const size_t> fields, uint64_t first,
                   uint64_t count, std::vector<double>& out) {
  const std::string name = path.string();
  const size_t ncol = fields.size();
  count = std::min(count, h.points - std::min(first, h.points));
  out.resize(size_t(count) * ncol);
  const uint64_t fileSize = std::filesystem::file_size(path);
  const uint64_t bodyBytes = fileSize - std::min(fileSize, h.bodyOffset);
  if (h.data == PcdData::Binary) {
    const uint64_t need = h.points * h.rowBytes;
    if (bodyBytes != need)
      throw Error(name + ": the binary body holds " + std::to_string(bodyBytes) + " bytes, but POINTS " +
                  std::to_string(h.points) + " of " + std::to_string(h.rowBytes) + " bytes need " + std::to_string(need) +
                  (bodyBytes < need ? " (the file is truncated)" : " (bytes follow the last point)"));
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
  std::string body(size_t(bodyBytes), '\0');
  in.read(body.data(), std::streamsize(body.size()));
  if (h.data == PcdData::BinaryCompressed) {
    uint32_t sizes[2] = {0, 0};
    if (body.size() < 8) throw Error(name + ": truncated binary_compressed body: " + std::to_string(body.size()) + " bytes, less than its 8-byte sizes");
    std::memcpy(sizes, body.data(), 8);
    const uint64_t need = h.points * h.rowBytes;
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
    std::vector<char> raw(need);
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
  const size_t tokens = column.back();
  std::vector<double> values(tokens);
  size_t pos = 0;
  uint64_t point = 0, stored = 0;
  int lineNo = h.headerLines;
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
