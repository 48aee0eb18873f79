#pragma once
// Whole binary files as byte vectors, the little-endian patching and CRC32 that tests of
// damaged files need (written out here so that the tests do not trust the code under test),
// and the error a damaged map file gives.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "voxen/host/error.hpp"
#include "voxen/map/map_file.hpp"

namespace vt {

inline std::vector<uint8_t> readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void writeBytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  REQUIRE(out.good());
}

inline void patch32(std::vector<uint8_t>& bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = uint8_t(value >> (8 * i));
}

inline uint32_t read32(const std::vector<uint8_t>& bytes, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(bytes[at + i]) << (8 * i);
  return v;
}

// zlib's CRC32 (polynomial 0xEDB88320).
inline uint32_t crc32Of(const uint8_t* data, size_t bytes) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < bytes; ++i) {
    c ^= data[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

// The message of the Error that loading a map file throws, or "<no error>".
inline std::string loadError(const std::filesystem::path& path) {
  try {
    voxen::loadMap(path);
  } catch (const voxen::Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace vt
