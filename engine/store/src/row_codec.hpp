#pragma once
// Private: one row's bytes. A layer's array of one region is stored little-endian (each
// element of the layer's element size), compressed with zstd, beside its uncompressed size and
// the CRC32 (zlib's) of the uncompressed little-endian bytes.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace voxen::store_detail {

struct EncodedRow {
  std::vector<uint8_t> blob;
  uint64_t uncompressedBytes = 0;
  uint32_t crc32 = 0;
};

// Returns an empty string on success, else why it failed.
std::string encodeRow(std::span<const std::byte> values, uint32_t elementBytes, int level, EncodedRow& out);
// Fills `out` (sized by the caller to the expected bytes) from a row; returns why the row is
// corrupt (wrong size, bad zstd frame, checksum mismatch), empty when it is sound.
std::string decodeRow(std::span<const uint8_t> blob, uint64_t storedBytes, uint32_t storedCrc, uint32_t elementBytes,
                      std::span<std::byte> out);

}  // namespace voxen::store_detail
