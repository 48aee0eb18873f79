#pragma once
// The --json summaries: one nlohmann object per run, keys in the order they are set, printed
// on one line. Numbers keep the precision the summaries have always had (rounded), so a
// time reads 12.34 rather than 12.340000152587891.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace voxen::cli {

using Json = nlohmann::ordered_json;

inline double rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::isfinite(value) ? std::round(value * scale) / scale : value;
}

// A float as the double its shortest decimal form names: 0.7f is written 0.7, not
// 0.699999988079071, and still reads back as the same float.
inline double floatValue(float value) {
  char text[32];
  const auto written = std::to_chars(text, text + sizeof text, value);
  double out = value;
  std::from_chars(text, written.ptr, out);
  return out;
}

// Invalid UTF-8 (a file name in another encoding) is replaced rather than thrown on.
inline void printJson(const Json& summary) {
  const std::string text = summary.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::printf("%s\n", text.c_str());
}

}  // namespace voxen::cli
