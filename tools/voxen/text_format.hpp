#pragma once
// Numbers for people: thousands separated by commas.
#include <cstdint>
#include <string>

namespace voxen::cli {

inline std::string withCommas(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace voxen::cli
