#include "voxen_apps/number_checks.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace voxen::apps {

namespace {

template <typename T>
std::optional<T> wholeWord(const std::string& word) {
  const char* begin = word.data();
  const char* end = word.data() + word.size();
  if (begin != end && *begin == '+') ++begin;  // from_chars takes '-' but not '+'
  T value{};
  const auto [stop, ec] = std::from_chars(begin, end, value);
  if (begin == end || ec != std::errc() || stop != end) return std::nullopt;
  return value;
}

std::string rangeText(double lo, double hi, LowEnd low, HighEnd high) {
  return (low == LowEnd::Open ? "(" : "[") + numberText(lo) + ", " + numberText(hi) + (high == HighEnd::Open ? ")" : "]");
}

// "a number of metres", or "a number" when the number counts nothing in particular.
std::string quantity(const std::string& unit) { return unit.empty() ? "a number" : "a number of " + unit; }

}  // namespace

std::optional<int64_t> parseInteger(const std::string& word) {
  if (word.starts_with("+-")) return std::nullopt;
  return wholeWord<int64_t>(word);
}

std::optional<double> parseFinite(const std::string& word) {
  if (word.starts_with("+-")) return std::nullopt;
  const auto value = wholeWord<double>(word);
  return value && std::isfinite(*value) ? value : std::nullopt;
}

std::string numberText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

CLI::Validator integerIn(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [=](std::string& word) -> std::string {
        const auto value = parseInteger(word);
        if (value && *value >= lo && *value <= hi) return {};
        return "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" + word + "'";
      },
      "integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator naturalNumber() {
  return CLI::Validator(
      [](std::string& word) -> std::string {
        return !word.starts_with('+') && wholeWord<uint64_t>(word) ? std::string()
                                                                  : "expected a non-negative integer, got '" + word + "'";
      },
      "integer in [0, 2^64 - 1]");
}

CLI::Validator numberIn(double lo, double hi, const std::string& unit, LowEnd low, HighEnd high) {
  const std::string range = rangeText(lo, hi, low, high);
  return CLI::Validator(
      [=](std::string& word) -> std::string {
        const auto value = parseFinite(word);
        if (value && (low == LowEnd::Open ? *value > lo : *value >= lo) && (high == HighEnd::Open ? *value < hi : *value <= hi))
          return {};
        return "expected " + quantity(unit) + " in " + range + ", got '" + word + "'";
      },
      (unit.empty() ? "number" : unit) + " in " + range);
}

CLI::Validator finiteNumber() {
  return CLI::Validator(
      [](std::string& word) -> std::string {
        return parseFinite(word) ? std::string() : "expected a finite number, got '" + word + "'";
      },
      "finite number");
}

CLI::Validator commaSeparatedNumbers(size_t count) {
  return CLI::Validator(
      [count](std::string& text) -> std::string {
        std::stringstream in(text);
        size_t numbers = 0;
        for (std::string item; std::getline(in, item, ',');)
          if (!parseFinite(item) || ++numbers > count) break;
        if (numbers == count && in.eof() && !text.ends_with(',')) return {};
        return "expected " + std::to_string(count) + " comma-separated finite numbers, got '" + text + "'";
      },
      "");
}

CLI::Validator commaSeparatedNumbers(size_t count, double lo, double hi, const std::string& unit) {
  const std::string range = rangeText(lo, hi, LowEnd::Closed, HighEnd::Closed);
  const CLI::Validator shape = commaSeparatedNumbers(count);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::string copy = text;
        if (std::string why = shape(copy); !why.empty()) return why;
        for (const double value : numberList(text)) {
          if (value < lo || value > hi)
            return "expected " + std::to_string(count) + " comma-separated numbers" + (unit.empty() ? "" : " of " + unit) +
                   " in " + range + ", got " + numberText(value) + " in '" + text + "'";
        }
        return {};
      },
      "");
}

std::vector<double> numberList(const std::string& text) {
  std::vector<double> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) values.push_back(parseFinite(item).value_or(0.0));
  return values;
}

}  // namespace voxen::apps
