#pragma once
// Private: one row's bytes. A layer's array of one region is stored little-endian (each
// element of the layer's element size), compressed with zstd, beside its uncompressed size and
// the CRC32 (zlib's) of the uncompressed little-endian bytes followed by the row's identity
// (store format 2): its region key and its layer's name, so that a row moved to another key
// or given another layer's position fails its checksum instead of reading as another map.
// Format 1 rows' CRCs cover the bytes alone (an identity of nullptr).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/map/map.hpp"

namespace voxen::detail {

// What a row is for: the checksum covers it with the bytes.
struct RowIdentity {
  RegionKey key;
  std::string_view layerName;
};

struct EncodedRow {
  std::vector<uint8_t> blob;
  uint64_t uncompressedBytes = 0;
  uint32_t crc32 = 0;
};

// Returns an empty string on success, else why it failed.
std::string encodeRow(std::span<const std::byte> values, uint32_t elementBytes, int level, const RowIdentity* identity,
                      EncodedRow& out);
// Fills `out` (sized by the caller to the expected bytes) from a row; returns why the row is
// corrupt (wrong size, bad zstd frame, checksum mismatch), empty when it is sound. `identity`:
// the key and layer the row was read as (nullptr for a format 1 store's rows).
std::string decodeRow(std::span<const uint8_t> blob, uint64_t storedBytes, uint32_t storedCrc, uint32_t elementBytes,
                      const RowIdentity* identity, std::span<std::byte> out);

}  // namespace voxen::detail
