#include "option_checks.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

namespace voxen::cli {

namespace {

template <typename T>
std::optional<T> wholeWord(const std::string& word) {
  T value{};
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (word.empty() || ec != std::errc() || end != word.data() + word.size()) return std::nullopt;
  return value;
}

std::optional<double> finiteWord(const std::string& word) {
  const auto value = wholeWord<double>(word);
  return value && std::isfinite(*value) ? value : std::nullopt;
}

std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

CLI::Validator integerIn(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [=](std::string& word) -> std::string {
        const auto value = wholeWord<int64_t>(word);
        if (value && *value >= lo && *value <= hi) return {};
        return "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" + word + "'";
      },
      "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator naturalNumber() {
  return CLI::Validator(
      [](std::string& word) -> std::string {
        return wholeWord<uint64_t>(word) ? std::string() : "expected a non-negative integer, got '" + word + "'";
      },
      "");
}

CLI::Validator numberIn(double lo, double hi, const std::string& unit, LowEnd low) {
  const std::string range = (low == LowEnd::Open ? "(" : "[") + formatNumber(lo) + ", " + formatNumber(hi) + "]";
  return CLI::Validator(
      [=](std::string& word) -> std::string {
        const auto value = finiteWord(word);
        if (value && (low == LowEnd::Open ? *value > lo : *value >= lo) && *value <= hi) return {};
        return "expected a number of " + unit + " in " + range + ", got '" + word + "'";
      },
      unit + " in " + range);
}

CLI::Validator finiteNumber() {
  return CLI::Validator(
      [](std::string& word) -> std::string { return finiteWord(word) ? std::string() : "needs a number, got '" + word + "'"; },
      "");
}

CLI::Validator commaSeparatedNumbers(size_t count) {
  return CLI::Validator(
      [count](std::string& text) -> std::string {
        std::stringstream in(text);
        size_t numbers = 0;
        for (std::string item; std::getline(in, item, ',');)
          if (!finiteWord(item) || ++numbers > count) break;
        if (numbers == count && in.eof() && !text.ends_with(',')) return {};
        return "needs " + std::to_string(count) + " comma-separated numbers, got '" + text + "'";
      },
      "");
}

CLI::Validator commaSeparatedNumbers(size_t count, double lo, double hi, const std::string& unit) {
  const std::string range = "[" + formatNumber(lo) + ", " + formatNumber(hi) + "]";
  const CLI::Validator shape = commaSeparatedNumbers(count);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::string copy = text;
        if (std::string why = shape(copy); !why.empty()) return why;
        for (const double value : numberList(text)) {
          if (value < lo || value > hi)
            return "each of the " + std::to_string(count) + " numbers must be " + unit + " in " + range + ", got " +
                   formatNumber(value) + " in '" + text + "'";
        }
        return {};
      },
      "");
}

std::string voxelIndexProblem(double metres, double resolution) {
  const double index = std::floor(metres / resolution);
  if (std::isfinite(index) && std::fabs(index) <= kMaxVoxelIndex) return {};
  return formatNumber(metres) + " m is voxel " + formatNumber(index) + " at the map's resolution of " +
         formatNumber(resolution) + " m, beyond the voxel indices a map holds (+-" + formatNumber(kMaxVoxelIndex) + ")";
}

std::vector<double> numberList(const std::string& text) {
  std::vector<double> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) values.push_back(finiteWord(item).value_or(0.0));
  return values;
}

}  // namespace voxen::cli
