#pragma once
// 16-bit greyscale PNG (depth images: TUM RGB-D's depth/*.png) encoded with libpng.
#include <cstdint>
#include <string>

namespace voxen {

// width x height values, row-major, row 0 at the top; the PNG stores them big-endian as the
// format requires. Throws Error when libpng fails.
std::string encodeGrey16Png(uint32_t width, uint32_t height, const uint16_t* values);

}  // namespace voxen
