#pragma once
// Numbers for people, shared by the engine's messages and the command line's human-readable text
// (never JSON or data files, which keep plain numbers):
//  - counts with thousands separators: "130,964 points";
//  - values a user typed or that must read back exactly in their shortest exact decimal:
//    formatNumber (error.hpp), so 0.1 prints "0.1", never "0.10000000000000001" or "0.100000";
//  - measurements (rates, durations) to a few significant digits, thousands separated:
//    "82,700 rays/s", "0.0123 s";
//  - a count with its noun in the singular or plural: "1 point", "2 points".
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "voxen/host/error.hpp"

namespace voxen {

inline std::string formatCount(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A float setting in its shortest exact form as a float: 0.7f prints "0.7", where formatNumber's
// double would print "0.699999988079071".
inline std::string formatFloat(float value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

// `digits` significant digits (at least 1). From 1,000 up to 1e15 the value is rounded to them
// and printed whole with separators (82,734.5 -> "82,700"); below, as %g would ("0.0123",
// "12.3"); beyond, and for nan/inf, in the shortest exact form.
inline std::string formatSignificant(double value, int digits = 3) {
  if (digits < 1) digits = 1;
  if (!std::isfinite(value) || std::fabs(value) >= 1e15) return formatNumber(value);
  const double magnitude = std::fabs(value);
  if (magnitude >= 1000.0) {
    const double scale = std::pow(10.0, std::floor(std::log10(magnitude)) + 1 - digits);
    const auto rounded = scale < 1.0 ? uint64_t(std::llround(magnitude)) : uint64_t(std::llround(magnitude / scale) * scale);
    // Not `"-" + formatCount(...)`: g++ 12 reports that as an overflowing memcpy (bug 105329).
    std::string out = value < 0 ? "-" : "";
    return out.append(formatCount(rounded));
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  const std::string out = text;
  // %g turns 999.7 into "1e+03" at 3 digits: that is 1,000 (small values keep their exponent).
  const double reread = std::strtod(text, nullptr);
  if (std::fabs(reread) >= 1000.0) return formatSignificant(reread, digits);
  return out;
}

// "1 point", "2 points", "1,024 points"; `plural` defaults to the singular with an "s".
inline std::string countText(uint64_t n, const std::string& singular, const std::string& plural = {}) {
  return formatCount(n) + " " + (n == 1 ? singular : plural.empty() ? singular + "s" : plural);
}

}  // namespace voxen
