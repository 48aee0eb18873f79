#pragma once
// Numbers for people: thousands separated by commas; points as "(x, y, z)".
#include <charconv>
#include <cstdint>
#include <string>

#include <glm/vec3.hpp>

#include "voxen/host/number_text.hpp"

namespace voxen::cli {

// The engine's helpers (voxen/host/number_text.hpp) are the one definition of these forms.
inline std::string withCommas(uint64_t n) { return formatCount(n); }

// Each coordinate in its shortest exact form (1e+30, nan, 3000000000).
inline std::string pointText(const glm::dvec3& p) {
  auto number = [](double v) {
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
  };
  return "(" + number(p.x) + ", " + number(p.y) + ", " + number(p.z) + ")";
}

}  // namespace voxen::cli
