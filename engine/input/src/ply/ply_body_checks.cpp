#include "ply/ply_body_checks.hpp"

#include <algorithm>

namespace voxen::detail {

bool looksLikeAsciiNumbers(std::string_view bytes) {
  // Fewer bytes than a line of three short numbers prove nothing either way.
  if (bytes.size() < 8) return false;
  bool digit = false, lineEnd = false;
  for (const char c : bytes) {
    if (c >= '0' && c <= '9') digit = true;
    else if (c == '\n') lineEnd = true;
    else if (c != ' ' && c != '\t' && c != '\r' && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E')
      return false;
  }
  return digit && lineEnd;
}

std::string_view firstLineOf(std::string_view bytes) {
  const size_t end = std::min({bytes.find_first_of("\r\n"), bytes.size(), size_t(40)});
  return bytes.substr(0, end);
}

}  // namespace voxen::detail
