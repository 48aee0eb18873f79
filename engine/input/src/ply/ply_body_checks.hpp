#pragma once
// Plausibility checks on a PLY body that the header alone cannot give: whether bytes a
// header declares binary are in fact ASCII text (a header edited or written wrongly, which
// would otherwise decode text as floats and map garbage).
#include <cstddef>
#include <string_view>

namespace voxen::detail {

// How many bytes from the start of a binary body looksLikeAsciiNumbers wants to see.
inline constexpr size_t kBodySniffBytes = 256;

// True when `bytes` (the start of a body) holds only what ASCII numbers are written with
// (digits, signs, '.', 'e', 'E'), blanks and line ends, with at least
// one digit and one line end. Binary numbers practically never do: their bytes spread over
// the whole range, zeros included.
bool looksLikeAsciiNumbers(std::string_view bytes);

// The first line of `bytes`, for a message: at most 40 characters, without the line end.
std::string_view firstLineOf(std::string_view bytes);

}  // namespace voxen::detail
