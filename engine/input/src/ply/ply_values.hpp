#pragma once
// What the PLY header parser, reader and writer share: quoting names in messages, splitting a
// line into tokens, the range of each PLY type and the parsing of one ASCII value.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/input/ply.hpp"

namespace voxen::detail::ply_values {

inline std::string inQuotes(std::string_view s) {
  std::string text;
  text.reserve(s.size() + 2);
  text.push_back('\'');
  text.append(s);
  text.push_back('\'');
  return text;
}

// Splits on spaces and tabs (and a trailing '\r').
inline void tokenize(std::string_view line, std::vector<std::string_view>& tokens) {
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

inline bool isInteger(PlyType t) { return t != PlyType::Float32 && t != PlyType::Float64; }

inline double typeMin(PlyType t) {
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

inline double typeMax(PlyType t) {
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
inline std::string parseValue(std::string_view token, PlyType type, double& value) {
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

}  // namespace voxen::detail::ply_values
