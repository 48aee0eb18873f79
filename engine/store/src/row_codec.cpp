#include "row_codec.hpp"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace voxen::detail {

namespace {

void swapElements(std::span<std::byte> bytes, uint32_t elementBytes) {
  if (elementBytes <= 1) return;
  for (size_t i = 0; i + elementBytes <= bytes.size(); i += elementBytes)
    std::reverse(bytes.begin() + i, bytes.begin() + i + elementBytes);
}

uint32_t crcOf(const void* data, size_t bytes, const RowIdentity* identity) {
  uLong crc = crc32_z(0, static_cast<const Bytef*>(data), bytes);
  if (identity) {
    // The key as three little-endian int32s, then the layer's name.
    uint8_t key[12];
    const int32_t axes[3] = {identity->key.x, identity->key.y, identity->key.z};
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 4; ++b) key[4 * a + b] = uint8_t(uint32_t(axes[a]) >> (8 * b));
    crc = crc32_z(crc, key, sizeof key);
    crc = crc32_z(crc, reinterpret_cast<const Bytef*>(identity->layerName.data()), identity->layerName.size());
  }
  return uint32_t(crc);
}

std::string hex32(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08" PRIx32, v);
  return text;
}

}  // namespace

std::string encodeRow(std::span<const std::byte> values, uint32_t elementBytes, int level, const RowIdentity* identity,
                      EncodedRow& out) {
  std::span<const std::byte> source = values;
  std::vector<std::byte> swapped;
  if constexpr (std::endian::native == std::endian::big) {
    swapped.assign(values.begin(), values.end());
    swapElements(swapped, elementBytes);
    source = swapped;
  }
  out.uncompressedBytes = source.size();
  out.crc32 = crcOf(source.data(), source.size(), identity);
  out.blob.resize(ZSTD_compressBound(source.size()));
  const size_t written = ZSTD_compress(out.blob.data(), out.blob.size(), source.data(), source.size(), level);
  if (ZSTD_isError(written)) return std::string("zstd compression failed: ") + ZSTD_getErrorName(written);
  out.blob.resize(written);
  return {};
}

std::string decodeRow(std::span<const uint8_t> blob, uint64_t storedBytes, uint32_t storedCrc, uint32_t elementBytes,
                      const RowIdentity* identity, std::span<std::byte> out) {
  if (storedBytes != out.size())
    return "its stated size is " + std::to_string(storedBytes) + " bytes, the layer's region holds " + std::to_string(out.size());
  const unsigned long long frame = ZSTD_getFrameContentSize(blob.data(), blob.size());
  if (frame == ZSTD_CONTENTSIZE_ERROR) return "not a zstd frame (" + std::to_string(blob.size()) + " bytes)";
  if (frame != ZSTD_CONTENTSIZE_UNKNOWN && frame != out.size())
    return "its zstd frame holds " + std::to_string(frame) + " bytes, expected " + std::to_string(out.size());
  const size_t got = ZSTD_decompress(out.data(), out.size(), blob.data(), blob.size());
  if (ZSTD_isError(got)) return std::string("zstd decompression failed: ") + ZSTD_getErrorName(got);
  if (got != out.size()) return "it decompresses to " + std::to_string(got) + " bytes, expected " + std::to_string(out.size());
  const uint32_t computed = crcOf(out.data(), out.size(), identity);
  if (computed != storedCrc) {
    std::string why = "checksum mismatch (stored " + hex32(storedCrc) + ", computed " + hex32(computed) + ")";
    if (identity) why += ": the checksum covers the row's bytes, its region key and its layer, so a row moved to another key or layer fails it too";
    return why;
  }
  if constexpr (std::endian::native == std::endian::big) swapElements(out, elementBytes);
  (void)elementBytes;
  return {};
}

}  // namespace voxen::detail
