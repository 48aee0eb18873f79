// Octahedral normal encoding (the same arithmetic as
// engine/painter/internal/voxen/painter/normal_encoding.hpp), for every painter shader that
// writes or reads gpu::Triangle normals: the frame megakernel (painter_common.glsl) and the
// box-instance expansion (box_instances.comp).
#ifndef VOXEN_PAINTER_NORMAL_ENCODING_GLSL
#define VOXEN_PAINTER_NORMAL_ENCODING_GLSL

#include "../common/exact_math.glsl"

// packSnorm2x16 with ties to even, as the C++ mirror rounds: GLSL leaves the direction of
// round()'s ties, which packSnorm2x16 uses, to the driver.
uint packSnormEven(float v) { return uint(int(roundEven(clamp(v, -1.0, 1.0) * 32767.0))) & 0xFFFFu; }

uint encodeNormal(vec3 n) {
  precise vec3 a = abs(n);
  precise float l1 = a.x + a.y + a.z;
  vec2 p = l1 > 0.0 ? vec2(exactDiv(n.x, l1), exactDiv(n.y, l1)) : vec2(0.0);
  if (n.z < 0.0) {
    vec2 s = vec2(p.x >= 0.0 ? 1.0 : -1.0, p.y >= 0.0 ? 1.0 : -1.0);
    p = (vec2(1.0) - abs(p.yx)) * s;
  }
  return packSnormEven(p.x) | packSnormEven(p.y) << 16;
}

vec3 decodeNormal(uint bits) {
  vec2 p = unpackSnorm2x16(bits);
  vec3 n = vec3(p, 1.0 - abs(p.x) - abs(p.y));
  if (n.z < 0.0) {
    vec2 s = vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    n.xy = (vec2(1.0) - abs(n.yx)) * s;
  }
  return normalize(n);
}

#endif
