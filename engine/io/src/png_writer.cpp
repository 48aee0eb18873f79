#include "voxen/io/png_writer.hpp"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "voxen/map/atomic_file.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

void putBE32(std::vector<uint8_t>& out, uint32_t v) {
  const uint8_t bytes[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  out.insert(out.end(), bytes, bytes + 4);
}

void chunk(std::vector<uint8_t>& out, const char type[4], const uint8_t* data, size_t bytes) {
  putBE32(out, uint32_t(bytes));
  const size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  if (bytes) out.insert(out.end(), data, data + bytes);
  const uLong crc = crc32_z(0, out.data() + start, 4 + bytes);  // type and data
  putBE32(out, uint32_t(crc));
}

// Sum of the filtered bytes read as signed values: the usual heuristic for picking a filter.
uint64_t cost(const uint8_t* row, size_t bytes) {
  uint64_t sum = 0;
  for (size_t i = 0; i < bytes; ++i) sum += uint64_t(std::abs(int(int8_t(row[i]))));
  return sum;
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

  // Each row: filter byte, then the row filtered with None, Sub or Up, whichever looks smallest.
  std::vector<uint8_t> filtered((rowBytes + 1) * height);
  std::vector<uint8_t> sub(rowBytes), up(rowBytes);
  for (uint32_t y = 0; y < height; ++y) {
    const uint8_t* row = pixels.data() + y * rowBytes;
    const uint8_t* prior = y ? row - rowBytes : nullptr;
    for (size_t i = 0; i < rowBytes; ++i) {
      sub[i] = uint8_t(row[i] - (i >= bpp ? row[i - bpp] : 0));
      up[i] = uint8_t(row[i] - (prior ? prior[i] : 0));
    }
    uint8_t type = 0;
    const uint8_t* best = row;
    uint64_t bestCost = cost(row, rowBytes);
    if (const uint64_t c = cost(sub.data(), rowBytes); c < bestCost) type = 1, best = sub.data(), bestCost = c;
    if (const uint64_t c = cost(up.data(), rowBytes); c < bestCost) type = 2, best = up.data(), bestCost = c;
    uint8_t* out = filtered.data() + y * (rowBytes + 1);
    out[0] = type;
    std::memcpy(out + 1, best, rowBytes);
  }

  uLongf compressedBytes = compressBound(uLong(filtered.size()));
  std::vector<uint8_t> compressed(compressedBytes);
  if (compress2(compressed.data(), &compressedBytes, filtered.data(), uLong(filtered.size()), 6) != Z_OK)
    throw Error("PNG: zlib compression failed");

  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> ihdr;
  putBE32(ihdr, width);
  putBE32(ihdr, height);
  const uint8_t rest[5] = {8, uint8_t(format == PngFormat::Rgb8 ? 2 : 6), 0, 0, 0};  // depth, colour type, compression, filter, interlace
  ihdr.insert(ihdr.end(), rest, rest + 5);
  chunk(png, "IHDR", ihdr.data(), ihdr.size());
  constexpr size_t kMaxIdat = size_t(1) << 20;
  for (size_t at = 0; at < compressedBytes; at += kMaxIdat)
    chunk(png, "IDAT", compressed.data() + at, std::min<size_t>(kMaxIdat, compressedBytes - at));
  chunk(png, "IEND", nullptr, 0);
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
  detail::AtomicFileWriter out(path, "PNG");
  out.write(png.data(), png.size());
  out.commit();
}

void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgb) {
  writePng(path, width, height, rgb, PngFormat::Rgb8);
}

}  // namespace voxen
