// 8-bit colour PNGs through libpng: image_transport's PNG CompressedImages and TUM RGB-D's
// rgb/*.png in, RGB PNGs out for generators and tests. As depth_png.cpp, through libpng's
// memory I/O and error callbacks in depth/png_io.hpp: the setjmp frames hold only pointers to
// a state on the heap, and the C++ error is thrown after the jump.
#include <png.h>

#include <cstdio>
#include <memory>

#include "depth/png_io.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/colour_decode.hpp"

namespace voxen::detail {

namespace {

constexpr uint64_t kMaxPixels = uint64_t(1) << 28;  // a corrupt IHDR is refused before allocating

struct PngState : PngIo {
  png_uint_32 width = 0, height = 0;
  int bitDepth = 0, colourType = 0, interlace = 0;
  std::vector<uint8_t> rgb;
  std::vector<png_bytep> rows;
};

// Reads the header and sets the transforms to 8-bit RGB; false when libpng failed.
bool readHeader(png_structp png, png_infop info, PngState* s) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_read_fn(png, static_cast<PngIo*>(s), pngReadBytes);
  png_read_info(png, info);
  png_get_IHDR(png, info, &s->width, &s->height, &s->bitDepth, &s->colourType, &s->interlace, nullptr, nullptr);
  if (s->colourType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (s->colourType == PNG_COLOR_TYPE_GRAY && s->bitDepth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (s->bitDepth == 16) png_set_scale_16(png);
  if (s->colourType == PNG_COLOR_TYPE_GRAY || s->colourType == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  png_set_strip_alpha(png);  // RGBA, grey+alpha, and a palette's tRNS
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != size_t(s->width) * 3) png_error(png, "the PNG does not reduce to 8-bit RGB rows");
  return true;
}

bool readPixels(png_structp png, png_infop info, PngState* s) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, s->rows.data());
  png_read_end(png, info);
  return true;
}

bool writeImage(png_structp png, png_infop info, PngState* s) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, static_cast<PngIo*>(s), pngWriteBytes, pngFlushNothing);
  png_set_IHDR(png, info, s->width, s->height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 3);
  png_write_info(png, info);
  png_write_image(png, s->rows.data());
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

std::vector<uint8_t> decodePngRgb8(std::span<const uint8_t> png, const std::string& where, uint32_t& width, uint32_t& height) {
  uint32_t w = 0, h = 0;
  int depth = 0, colour = 0;
  if (!pngSize(png, w, h, depth, colour)) throw Error(where + ": is not a PNG (no PNG signature and IHDR at its start)");
  if (w == 0 || h == 0 || uint64_t(w) * h > kMaxPixels)
    throw Error(where + ": the PNG's size " + std::to_string(w) + " x " + std::to_string(h) + " is no camera image's");
  auto s = std::make_unique<PngState>();
  s->in = png;
  png_structp reader = png_create_read_struct(PNG_LIBPNG_VER_STRING, static_cast<PngIo*>(s.get()), pngOnError, pngOnWarning);
  png_infop info = reader ? png_create_info_struct(reader) : nullptr;
  if (!info) {
    png_destroy_read_struct(&reader, nullptr, nullptr);
    throw Error(where + ": libpng could not start");
  }
  bool ok = readHeader(reader, info, s.get());
  if (ok && (s->width != w || s->height != h)) ok = false, std::snprintf(s->error, sizeof s->error, "the IHDR changed");
  if (ok) {
    s->rgb.resize(size_t(w) * h * 3);
    s->rows.resize(h);
    for (uint32_t y = 0; y < h; ++y) s->rows[y] = s->rgb.data() + size_t(y) * w * 3;
    ok = readPixels(reader, info, s.get());
  }
  png_destroy_read_struct(&reader, &info, nullptr);
  if (!ok) throw Error(where + ": the PNG does not decode: " + s->error);
  width = w, height = h;
  return std::move(s->rgb);
}

std::vector<uint8_t> encodePngRgb8(std::span<const uint8_t> rgb, uint32_t width, uint32_t height) {
  if (rgb.size() != size_t(width) * height * 3 || width == 0 || height == 0)
    throw Error("PNG encoder: " + std::to_string(rgb.size()) + " bytes for a " + std::to_string(width) + " x " +
                std::to_string(height) + " RGB image");
  auto s = std::make_unique<PngState>();
  std::vector<uint8_t> out;
  s->out = &out;
  s->width = width, s->height = height;
  s->rows.resize(height);
  for (uint32_t y = 0; y < height; ++y) s->rows[y] = const_cast<png_bytep>(rgb.data() + size_t(y) * width * 3);
  png_structp writer = png_create_write_struct(PNG_LIBPNG_VER_STRING, static_cast<PngIo*>(s.get()), pngOnError, pngOnWarning);
  png_infop info = writer ? png_create_info_struct(writer) : nullptr;
  if (!info) {
    png_destroy_write_struct(&writer, nullptr);
    throw Error("PNG encoder: libpng could not start");
  }
  const bool ok = writeImage(writer, info, s.get());
  png_destroy_write_struct(&writer, &info);
  if (!ok) throw Error(std::string("PNG encoder: ") + s->error);
  return out;
}

}  // namespace voxen::detail
