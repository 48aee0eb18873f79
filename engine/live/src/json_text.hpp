#pragma once
// Small pieces of the JSON text the publisher writes by hand (a region's cubes are thousands of
// objects: formatting them with snprintf into one string is several times faster than building
// a JSON tree): base64 for binary fields, a timestamp object, numbers that read back exactly.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace voxen::live::detail {

inline std::string base64(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = uint32_t(bytes[i]) << 16 | uint32_t(bytes[i + 1]) << 8 | bytes[i + 2];
    out += kDigits[v >> 18], out += kDigits[(v >> 12) & 63], out += kDigits[(v >> 6) & 63], out += kDigits[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint32_t(bytes[i]) << 16;
    out += kDigits[v >> 18], out += kDigits[(v >> 12) & 63], out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = uint32_t(bytes[i]) << 16 | uint32_t(bytes[i + 1]) << 8;
    out += kDigits[v >> 18], out += kDigits[(v >> 12) & 63], out += kDigits[(v >> 6) & 63], out += '=';
  }
  return out;
}

// {"sec":S,"nsec":N}
inline std::string timeJson(uint64_t ns) {
  char text[64];
  std::snprintf(text, sizeof text, "{\"sec\":%llu,\"nsec\":%llu}", (unsigned long long)(ns / 1000000000ull),
                (unsigned long long)(ns % 1000000000ull));
  return text;
}

// A double as the shortest text that reads back as the same double (std::to_chars' shortest
// round trip: one conversion, where trying precisions one by one took up to a dozen).
inline std::string number(double v) {
  char text[32];
  const std::to_chars_result r = std::to_chars(text, text + sizeof text, v);
  return std::string(text, r.ptr);
}

// A JSON string literal (quotes and backslashes escaped, control characters as \u00XX).
inline std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (uint8_t(c) < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", unsigned(uint8_t(c)));
      out += esc;
    } else out += c;
  }
  return out + "\"";
}

}  // namespace voxen::live::detail
