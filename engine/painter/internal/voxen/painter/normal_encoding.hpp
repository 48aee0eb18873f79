#pragma once
// Octahedral normal encoding, the C++ mirror of encodeNormal / decodeNormal in
// shaders/painter/normal_encoding.glsl. encodeNormal does the same float operations in the
// same order (IEEE single precision, no FMA contraction) and packs like packSnorm2x16,
// round(clamp(v, -1, 1) * 32767) to nearest even, so CPU and GPU bits agree.
// decodeNormal is for shading and checks only: its normalize is not bit-exact across devices.
#include <cmath>
#include <cstdint>

namespace voxen {

namespace detail {
inline uint32_t packSnorm16(float v) {
  const float c = v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v);
  return uint32_t(uint16_t(int16_t(std::nearbyint(c * 32767.0f))));
}
inline float unpackSnorm16(uint32_t bits) {
  const float v = float(int16_t(uint16_t(bits))) / 32767.0f;
  return v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v);
}
}  // namespace detail

// `n` need not be normalised: the encoding divides by the L1 norm. Zero encodes +z.
inline uint32_t encodeNormal(float nx, float ny, float nz) {
  const float l1 = (std::fabs(nx) + std::fabs(ny)) + std::fabs(nz);
  float px = 0.0f, py = 0.0f;
  if (l1 > 0.0f) {
    px = nx / l1;
    py = ny / l1;
  }
  if (nz < 0.0f) {
    const float sx = px >= 0.0f ? 1.0f : -1.0f, sy = py >= 0.0f ? 1.0f : -1.0f;
    const float qx = (1.0f - std::fabs(py)) * sx, qy = (1.0f - std::fabs(px)) * sy;
    px = qx;
    py = qy;
  }
  return detail::packSnorm16(px) | detail::packSnorm16(py) << 16;
}

struct DecodedNormal {
  float x, y, z;
};

inline DecodedNormal decodeNormal(uint32_t bits) {
  float x = detail::unpackSnorm16(bits), y = detail::unpackSnorm16(bits >> 16);
  float z = 1.0f - std::fabs(x) - std::fabs(y);
  if (z < 0.0f) {
    const float sx = x >= 0.0f ? 1.0f : -1.0f, sy = y >= 0.0f ? 1.0f : -1.0f;
    const float nx = (1.0f - std::fabs(y)) * sx, ny = (1.0f - std::fabs(x)) * sy;
    x = nx;
    y = ny;
  }
  const float length = std::sqrt(x * x + y * y + z * z);
  return {x / length, y / length, z / length};
}

}  // namespace voxen
