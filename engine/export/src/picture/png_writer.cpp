#include "voxen/export/png_writer.hpp"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <new>
#include <string>

#include "voxen/host/error.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen {

namespace {

// What libpng's callbacks share with encodeRows. libpng reports an error by calling
// onError, which must not return: it keeps the message and jumps back to encodeRows'
// setjmp. C++ exceptions must not cross libpng's C frames, hence the jump.
struct EncodeState {
  std::vector<uint8_t>* out = nullptr;
  char message[256] = "";
  std::jmp_buf jump;
};

[[noreturn]] void onError(png_structp png, png_const_charp message) {
  auto* state = static_cast<EncodeState*>(png_get_error_ptr(png));
  std::snprintf(state->message, sizeof state->message, "%s", message);
  std::longjmp(state->jump, 1);
}

void onWarning(png_structp, png_const_charp) {}  // nothing written here is worth a warning

void appendBytes(png_structp png, png_bytep data, size_t bytes) {
  auto* state = static_cast<EncodeState*>(png_get_io_ptr(png));
  try {
    state->out->insert(state->out->end(), data, data + bytes);
  } catch (const std::bad_alloc&) {
    png_error(png, "out of memory");
  }
}

void flushNothing(png_structp) {}

// libpng encodes `rows` into state.out; false (and state.message) when it failed. Only
// plain values live in this frame, so the jump back to setjmp skips no destructor.
bool encodeRows(EncodeState& state, uint32_t width, uint32_t height, PngFormat format, png_bytepp rows) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, onError, onWarning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(state.message, sizeof state.message, "out of memory");
    return false;
  }
  if (setjmp(state.jump)) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &state, appendBytes, flushNothing);
  png_set_IHDR(png, info, width, height, 8, format == PngFormat::Rgb8 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 6);
  png_set_compression_buffer_size(png, 1 << 20);  // IDAT chunks of up to 1 MiB rather than 8 KiB
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

std::vector<uint8_t> encodePng(uint32_t width, uint32_t height, const std::vector<uint8_t>& pixels, PngFormat format) {
  const size_t bpp = size_t(format);
  if (width == 0 || height == 0) throw Error("PNG: image of " + std::to_string(width) + "x" + std::to_string(height) + " pixels is empty");
  if (width > 0x7fffffffu || height > 0x7fffffffu) throw Error("PNG: width and height must be below 2^31");
  const size_t rowBytes = size_t(width) * bpp;
  if (pixels.size() != rowBytes * height)
    throw Error("PNG: " + std::to_string(width) + "x" + std::to_string(height) + " pixels of " + std::to_string(bpp) +
                " bytes need " + std::to_string(rowBytes * height) + " bytes, got " + std::to_string(pixels.size()));

  // libpng reads the rows through non-const pointers but does not write to them.
  std::vector<png_bytep> rows(height);
  for (uint32_t y = 0; y < height; ++y) rows[y] = const_cast<png_bytep>(pixels.data() + y * rowBytes);
  std::vector<uint8_t> png;
  EncodeState state;
  state.out = &png;
  if (!encodeRows(state, width, height, format, rows.data())) throw Error(std::string("PNG: libpng: ") + state.message);
  return png;
}

void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& pixels,
              PngFormat format) {
  std::vector<uint8_t> png;
  try {
    png = encodePng(width, height, pixels, format);
  } catch (const Error& e) {
    throw Error("cannot save PNG to '" + path.string() + "': " + e.what());
  }
  detail::AtomicFileWriter out(path, "PNG");  // the old file stays until the new one is complete
  out.write(png.data(), png.size());
  out.commit();
}

void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgb) {
  writePng(path, width, height, rgb, PngFormat::Rgb8);
}

}  // namespace voxen
