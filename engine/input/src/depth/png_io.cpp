// libpng's I/O for Voxen's PNG codecs (png_io.hpp).
#include "depth/png_io.hpp"

#include <cstdio>
#include <cstring>

namespace voxen::detail {

void pngOnError(png_structp png, png_const_charp message) {
  auto* s = static_cast<PngIo*>(png_get_error_ptr(png));
  std::snprintf(s->error, sizeof s->error, "%s", message);
  png_longjmp(png, 1);
}

void pngOnWarning(png_structp, png_const_charp) {}

void pngReadBytes(png_structp png, png_bytep to, png_size_t n) {
  auto* s = static_cast<PngIo*>(png_get_io_ptr(png));
  if (s->pos > s->in.size() || n > s->in.size() - s->pos) png_error(png, "the PNG ends early");
  std::memcpy(to, s->in.data() + s->pos, n);
  s->pos += n;
}

void pngWriteBytes(png_structp png, png_bytep from, png_size_t n) {
  auto* s = static_cast<PngIo*>(png_get_io_ptr(png));
  s->out->insert(s->out->end(), from, from + n);
}

void pngFlushNothing(png_structp) {}

}  // namespace voxen::detail
