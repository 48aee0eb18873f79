#include "depth_png.hpp"

#include <png.h>

#include <vector>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

struct PngState {
  std::string bytes;
  std::string error;
};

[[noreturn]] void onError(png_structp png, png_const_charp message) {
  static_cast<PngState*>(png_get_error_ptr(png))->error = message;
  png_longjmp(png, 1);
}
void onWarning(png_structp, png_const_charp) {}
void append(png_structp png, png_bytep data, size_t n) {
  static_cast<PngState*>(png_get_io_ptr(png))->bytes.append(reinterpret_cast<const char*>(data), n);
}
void flushNothing(png_structp) {}

// Kept apart from encodeGrey16Png's locals: libpng returns here by longjmp on an error.
bool encode(PngState& state, uint32_t width, uint32_t height, png_bytepp rows) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, onError, onWarning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    state.error = "out of memory";
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &state, append, flushNothing);
  png_set_IHDR(png, info, width, height, 16, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 3);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

std::string encodeGrey16Png(uint32_t width, uint32_t height, const uint16_t* values) {
  std::vector<uint8_t> big(size_t(width) * height * 2);
  for (size_t i = 0; i < size_t(width) * height; ++i) {
    big[2 * i] = uint8_t(values[i] >> 8);
    big[2 * i + 1] = uint8_t(values[i] & 0xFF);
  }
  std::vector<png_bytep> rows(height);
  for (uint32_t y = 0; y < height; ++y) rows[y] = big.data() + size_t(y) * width * 2;
  PngState state;
  if (!encode(state, width, height, rows.data())) throw Error("PNG encoder: " + state.error);
  return std::move(state.bytes);
}

}  // namespace voxen
