#pragma once
// Strict parsing of the words in stroke and input script lines (and of the integers in
// command-line options): a number must be the whole word ("12px" is an error, not 12), so a
// typo is reported instead of guessed at.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace voxel_painter {

inline std::optional<double> parseNumber(const std::string& word) {
  double value = 0.0;
  const char* begin = word.data();
  if (!word.empty() && word[0] == '+') ++begin;  // from_chars rejects a leading '+'
  const auto [end, ec] = std::from_chars(begin, word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

inline std::optional<int64_t> parseInteger(const std::string& word) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size() || word.empty()) return std::nullopt;
  return value;
}

// The words of a script line, with everything from '#' on dropped.
inline std::vector<std::string> scriptWords(const std::string& line) {
  std::istringstream in(line.substr(0, line.find('#')));
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// "RRGGBB", "RRGGBBAA" or with a leading '#', as the painter's RGBA8 (red in the low byte).
inline std::optional<uint32_t> parseHexColor(std::string word) {
  if (!word.empty() && word[0] == '#') word.erase(0, 1);
  if (word.size() != 6 && word.size() != 8) return std::nullopt;
  uint32_t packed = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), packed, 16);
  if (ec != std::errc() || end != word.data() + word.size()) return std::nullopt;
  if (word.size() == 6) packed = (packed << 8) | 0xffu;
  const uint32_t r = packed >> 24, g = (packed >> 16) & 0xff, b = (packed >> 8) & 0xff, a = packed & 0xff;
  return r | (g << 8) | (b << 16) | (a << 24);
}

// The inverse of parseHexColor, without alpha: "#rrggbb".
inline std::string hexColor(uint32_t rgba) {
  static const char* digits = "0123456789abcdef";
  std::string out = "#";
  for (int channel = 0; channel < 3; ++channel) {
    const uint32_t v = (rgba >> (8 * channel)) & 0xff;
    out += digits[v >> 4];
    out += digits[v & 15];
  }
  return out;
}

}  // namespace voxel_painter

namespace voxel_painter {

// A problem in a script file; the message starts with "file:line: ".
class ScriptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace voxel_painter
