#pragma once
// libpng's I/O for Voxen's PNG codecs (depth_png.cpp: 16-bit grey; colour/colour_png.cpp: 8-bit
// RGB): the bytes read from or written to memory, and the message of libpng's last error.
// libpng reports errors by longjmp: a codec keeps its state (a struct deriving from PngIo) on
// the heap, its setjmp frames hold only pointers, and it throws the C++ error after the jump.
#include <png.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace voxen::detail {

struct PngIo {
  std::span<const uint8_t> in;          // reading: the PNG
  size_t pos = 0;                       // reading: bytes taken
  std::vector<uint8_t>* out = nullptr;  // writing: the PNG so far
  char error[256] = {};                 // libpng's last error message
};

// libpng's callbacks; their error and io pointers must be a PngIo* (cast from the codec's state
// before it becomes a void*).
void pngOnError(png_structp png, png_const_charp message);  // keeps the message, longjmps
void pngOnWarning(png_structp png, png_const_charp message);  // ignored
void pngReadBytes(png_structp png, png_bytep to, png_size_t n);  // png_error when `in` ends
void pngWriteBytes(png_structp png, png_bytep from, png_size_t n);
void pngFlushNothing(png_structp png);

}  // namespace voxen::detail
