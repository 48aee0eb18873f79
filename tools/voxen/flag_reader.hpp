#pragma once
// Small helpers shared by the voxen subcommands: a reader for `--flag value` and
// `--flag=value` arguments with range-checked numbers, and text formatting.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace voxen::cli {

// Flags take their value as the next argument or after '='.
class FlagReader {
 public:
  explicit FlagReader(const std::vector<std::string>& args) : args_(args) {}

  bool next() {
    if (index_ >= args_.size()) return false;
    const std::string& arg = args_[index_++];
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      flag_ = arg.substr(0, eq);
      inlineValue_ = arg.substr(eq + 1);
    } else {
      flag_ = arg;
      inlineValue_.reset();
    }
    return true;
  }
  const std::string& flag() const { return flag_; }

  std::string text() {
    if (inlineValue_) return *inlineValue_;
    if (index_ >= args_.size()) throw UsageError(flag_ + " needs a value");
    return args_[index_++];
  }
  int64_t integer(int64_t lo, int64_t hi) {
    const std::string value = text();
    int64_t out = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
    if (ec != std::errc() || end != value.data() + value.size() || out < lo || out > hi)
      throw UsageError(flag_ + ": expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                       ", got '" + value + "'");
    return out;
  }
  uint64_t seed() {
    const std::string value = text();
    uint64_t out = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
    if (ec != std::errc() || end != value.data() + value.size())
      throw UsageError(flag_ + ": expected a non-negative integer, got '" + value + "'");
    return out;
  }
  // A finite number in [lo, hi] (or (lo, hi] when openLow).
  double number(double lo, double hi, bool openLow, const char* unit) {
    const std::string value = text();
    double out = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
    const bool inRange = std::isfinite(out) && (openLow ? out > lo : out >= lo) && out <= hi;
    if (ec != std::errc() || end != value.data() + value.size() || !inRange) {
      char range[128];
      std::snprintf(range, sizeof range, "%s%g, %g]", openLow ? "(" : "[", lo, hi);
      throw UsageError(flag_ + ": expected a number of " + unit + " in " + range + ", got '" + value + "'");
    }
    return out;
  }

 private:
  const std::vector<std::string>& args_;
  size_t index_ = 0;
  std::string flag_;
  std::optional<std::string> inlineValue_;
};

inline std::string withCommas(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

inline std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace voxen::cli
