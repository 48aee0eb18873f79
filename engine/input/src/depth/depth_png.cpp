// 16-bit greyscale PNGs through libpng: compressedDepth payloads and TUM RGB-D depth files in,
// and out for generators and tests. libpng reports errors by longjmp: the setjmp frames below
// hold only pointers to a state on the heap, so nothing with a destructor is skipped, and the
// C++ error is thrown after the jump, in ordinary code.
#include <png.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <memory>

#include "depth/png_io.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/depth_decode.hpp"

namespace voxen::detail {

namespace {

// Images beyond this are refused before any allocation (a corrupt IHDR).
constexpr uint64_t kMaxPixels = uint64_t(1) << 28;

struct PngState : PngIo {
  png_uint_32 width = 0, height = 0;
  int bitDepth = 0, colourType = 0, interlace = 0;
  std::vector<uint16_t> values;
  std::vector<png_bytep> rows;
};

// Reads the header into s; false when libpng failed (s->error says why).
bool readHeader(png_structp png, png_infop info, PngState* s) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_read_fn(png, static_cast<PngIo*>(s), pngReadBytes);
  png_read_info(png, info);
  png_get_IHDR(png, info, &s->width, &s->height, &s->bitDepth, &s->colourType, &s->interlace, nullptr, nullptr);
  return true;
}

// Reads the pixels into s->values (sized by the caller, rows pointing into it).
bool readPixels(png_structp png, png_infop info, PngState* s) {
  if (setjmp(png_jmpbuf(png))) return false;
  if (std::endian::native == std::endian::little) png_set_swap(png);  // PNG stores 16-bit values big-endian
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  png_read_image(png, s->rows.data());
  png_read_end(png, nullptr);
  return true;
}

bool writeImage(png_structp png, png_infop info, PngState* s) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, static_cast<PngIo*>(s), pngWriteBytes, pngFlushNothing);
  png_set_IHDR(png, info, s->width, s->height, 16, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (std::endian::native == std::endian::little) png_set_swap(png);
  png_write_image(png, s->rows.data());
  png_write_end(png, nullptr);
  return true;
}

uint32_t bigEndian32(const uint8_t* b) { return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3]; }

}  // namespace

bool pngSize(std::span<const uint8_t> png, uint32_t& width, uint32_t& height, int& bitDepth, int& colourType) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (png.size() < 8 + 8 + 13 || std::memcmp(png.data(), kSignature, 8) != 0 || std::memcmp(png.data() + 12, "IHDR", 4) != 0)
    return false;
  width = bigEndian32(png.data() + 16);
  height = bigEndian32(png.data() + 20);
  bitDepth = png[24];
  colourType = png[25];
  return true;
}

std::vector<uint16_t> decodePng16(std::span<const uint8_t> png, const std::string& where, uint32_t& width, uint32_t& height) {
  uint32_t w = 0, h = 0;
  int depth = 0, colour = 0;
  if (!pngSize(png, w, h, depth, colour)) throw Error(where + ": is not a PNG (no PNG signature and IHDR at its start)");
  if (depth != 16 || colour != PNG_COLOR_TYPE_GRAY)
    throw Error(where + ": the PNG is " + std::to_string(depth) + "-bit " +
                (colour == PNG_COLOR_TYPE_GRAY ? "grey" : colour == PNG_COLOR_TYPE_RGB ? "RGB"
                 : colour == PNG_COLOR_TYPE_RGB_ALPHA ? "RGBA" : colour == PNG_COLOR_TYPE_PALETTE ? "palette" : "grey+alpha") +
                ", not 16-bit grey as depth images are");
  if (w == 0 || h == 0 || uint64_t(w) * h > kMaxPixels)
    throw Error(where + ": the PNG's size " + std::to_string(w) + " x " + std::to_string(h) + " is no depth image's");
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
    s->values.resize(size_t(w) * h);
    s->rows.resize(h);
    for (uint32_t y = 0; y < h; ++y) s->rows[y] = reinterpret_cast<png_bytep>(s->values.data() + size_t(y) * w);
    ok = readPixels(reader, info, s.get());
  }
  png_destroy_read_struct(&reader, &info, nullptr);
  if (!ok) throw Error(where + ": the PNG does not decode: " + s->error);
  width = w, height = h;
  return std::move(s->values);
}

std::vector<uint8_t> encodePng16(std::span<const uint16_t> values, uint32_t width, uint32_t height) {
  if (values.size() != size_t(width) * height || width == 0 || height == 0)
    throw Error("PNG encoder: " + std::to_string(values.size()) + " values for a " + std::to_string(width) + " x " +
                std::to_string(height) + " image");
  auto s = std::make_unique<PngState>();
  std::vector<uint8_t> out;
  s->out = &out;
  s->width = width, s->height = height;
  s->rows.resize(height);
  for (uint32_t y = 0; y < height; ++y)
    s->rows[y] = reinterpret_cast<png_bytep>(const_cast<uint16_t*>(values.data() + size_t(y) * width));
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
