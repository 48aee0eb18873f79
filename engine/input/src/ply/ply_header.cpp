// PLY types and the header parser (readPlyHeader): what the reader and writer share.
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
#include "ply/ply_values.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

using namespace detail::ply_values;

namespace {

constexpr size_t kMaxHeaderLine = 64 * 1024;
constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

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

}  // namespace voxen
