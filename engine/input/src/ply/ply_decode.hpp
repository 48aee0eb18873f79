#pragma once
// Decoding one binary little-endian PLY value to double: shared by the streaming PlyReader
// and the memory-mapped row source, so that both turn the same bytes into the same doubles.
#include <bit>
#include <cstdint>
#include <cstring>

#include "voxen/input/ply.hpp"

namespace voxen::detail {

// A T stored little-endian at p (any alignment: PLY rows are packed).
template <typename T>
T loadLittle(const char* p) {
  T v;
  if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1) {
    std::memcpy(&v, p, sizeof(T));
  } else {
    char tmp[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); ++i) tmp[i] = p[sizeof(T) - 1 - i];
    std::memcpy(&v, tmp, sizeof(T));
  }
  return v;
}

inline double decodePlyValue(PlyType type, const char* p) {
  switch (type) {
    case PlyType::Int8: return double(loadLittle<int8_t>(p));
    case PlyType::UInt8: return double(loadLittle<uint8_t>(p));
    case PlyType::Int16: return double(loadLittle<int16_t>(p));
    case PlyType::UInt16: return double(loadLittle<uint16_t>(p));
    case PlyType::Int32: return double(loadLittle<int32_t>(p));
    case PlyType::UInt32: return double(loadLittle<uint32_t>(p));
    case PlyType::Float32: return double(loadLittle<float>(p));
    case PlyType::Float64: return loadLittle<double>(p);
  }
  return 0.0;
}

}  // namespace voxen::detail
