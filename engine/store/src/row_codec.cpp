#include "row_codec.hpp"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace voxen::store_detail {

namespace {

void swapElements(std::span<std::byte> bytes, uint32_t elementBytes) {
  if (elementBytes <= 1) return;
  for (size_t i = 0; i + elementBytes <= bytes.size(); i += elementBytes)
    std::reverse(bytes.begin() + i, bytes.begin() + i + elementBytes);
}

uint32_t crcOf(const void* data, size_t bytes) {
  return uint32_t(crc32_z(0, static_cast<const Bytef*>(data), bytes));
}

std::string hex32(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08" PRIx32, v);
  return text;
}

}  // namespace

std::string encodeRow(std::span<const std::byte> values, uint32_t elementBytes, int level, EncodedRow& out) {
  std::span<const std::byte> source = values;
  std::vector<std::byte> swapped;
  if constexpr (std::endian::native == std::endian::big) {
    swapped.assign(values.begin(), values.end());
    swapElements(swapped, elementBytes);
    source = swapped;
  }
  out.uncompressedBytes = source.size();
  out.crc32 = crcOf(source.data(), source.size());
  out.blob.resize(ZSTD_compressBound(source.size()));
  const size_t written = ZSTD_compress(out.blob.data(), out.blob.size(), source.data(), source.size(), level);
  if (ZSTD_isError(written)) return std::string("zstd compression failed: ") + ZSTD_getErrorName(written);
  out.blob.resize(written);
  return {};
}

std::string decodeRow(std::span<const uint8_t> blob, uint64_t storedBytes, uint32_t storedCrc, uint32_t elementBytes,
                      std::span<std::byte> out) {
  if (storedBytes != out.size())
    return "its stated size is " + std::to_string(storedBytes) + " bytes, the layer's region holds " + std::to_string(out.size());
  const unsigned long long frame = ZSTD_getFrameContentSize(blob.data(), blob.size());
  if (frame == ZSTD_CONTENTSIZE_ERROR) return "not a zstd frame (" + std::to_string(blob.size()) + " bytes)";
  if (frame != ZSTD_CONTENTSIZE_UNKNOWN && frame != out.size())
    return "its zstd frame holds " + std::to_string(frame) + " bytes, expected " + std::to_string(out.size());
  const size_t got = ZSTD_decompress(out.data(), out.size(), blob.data(), blob.size());
  if (ZSTD_isError(got)) return std::string("zstd decompression failed: ") + ZSTD_getErrorName(got);
  if (got != out.size()) return "it decompresses to " + std::to_string(got) + " bytes, expected " + std::to_string(out.size());
  const uint32_t computed = crcOf(out.data(), out.size());
  if (computed != storedCrc) return "checksum mismatch (stored " + hex32(storedCrc) + ", computed " + hex32(computed) + ")";
  if constexpr (std::endian::native == std::endian::big) swapElements(out, elementBytes);
  (void)elementBytes;
  return {};
}

}  // namespace voxen::store_detail
