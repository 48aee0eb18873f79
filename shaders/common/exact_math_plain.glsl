// The plain flavour of exact_math.glsl (exactDivIntegers, exactSqrtIntegers; the float64
// flavour falls back on them for subnormals): correctly rounded float division and square root
// (IEEE binary32, round to nearest even, subnormals kept) with no double and no reliance on
// the driver's division, root or denormal handling; only integer operations and the native
// division or root of two normal floats in [1, 4), used as an estimate.
//
// Why the estimate suffices: Vulkan bounds float division by 2.5 ULP and sqrt by
// inversesqrt's error (a few ULP), so the estimate of a 24-bit integer result (the quotient
// or root scaled by 2^23) is off by a few units at most. The remainder of that estimate is
// then small (|r| < 2^31), so it is computed exactly in wrapping 32-bit unsigned arithmetic
// (the high bits of the 48-bit products cancel). One integer division of that remainder by
// the divisor (a Newton step for the root) then moves the estimate to the exact truncated
// result with 0 <= r < divisor, however many units it was off while |r| < 2^31. The
// remainder then decides the rounding exactly: above, below or on the midpoint.
//
// No loops: lavapipe stops an invocation's loops silently after 65,535 iterations counted
// over all of them (and a SIMD vector of lanes loops as long as its slowest lane). The
// correction loops this file had cost a few iterations per call, and the mesher divides
// three times a triangle: a workgroup meshing kMeshBlocksPerGroup random blocks ran out
// of iterations and left its last blocks' triangles unwritten.
#ifndef VOXEN_COMMON_EXACT_MATH_PLAIN_GLSL
#define VOXEN_COMMON_EXACT_MATH_PLAIN_GLSL

// The significand of a finite nonzero float's magnitude bits as an integer in [2^23, 2^24)
// and the exponent e with |x| = m * 2^e (subnormals normalised here, in integers).
uint exactSignificand(uint magnitude, out int e) {
  uint field = magnitude >> 23, m = magnitude & 0x7fffffu;
  if (field == 0u) {
    int shift = 23 - findMSB(m);
    e = -149 - shift;
    return m << uint(shift);
  }
  e = int(field) - 150;
  return m | 0x800000u;
}

// The bits of (q + r/d) * 2^(biased - 150) rounded to nearest even, q in [2^23, 2^24) and
// 0 <= r < d (r > 0 when the exact value lies above q; rAbove2 says whether 2r > d, rTie
// whether 2r == d): a normal float, a subnormal one (biased <= 0), zero or infinity.
uint exactRoundBits(uint q, int biased, bool rNonzero, bool rAbove, bool rTie) {
  if (biased >= 255) return 0x7f800000u;
  if (biased >= 1) {
    bool up = rAbove || (rTie && (q & 1u) != 0u);
    // A carry out of the significand moves into the exponent (and to infinity from 254).
    return (uint(biased - 1) << 23) + q + (up ? 1u : 0u);
  }
  uint s = uint(min(1 - biased, 25));  // below 2^-150 rounds to zero, as with s = 25
  uint m = q >> s, rest = q & ((1u << s) - 1u), midpoint = 1u << (s - 1u);
  bool up = rest > midpoint || (rest == midpoint && (rNonzero || (m & 1u) != 0u));
  return m + (up ? 1u : 0u);  // 2^23 here is the smallest normal float, as it should be
}

// floor(r / d) for d > 0, with one integer division (GLSL's truncates toward zero).
int exactFloorDiv(int r, uint d) {
  if (r >= 0) return int(uint(r) / d);
  return -int((uint(-r) + d - 1u) / d);
}

float exactDivIntegers(float a, float b) {
  uint ua = floatBitsToUint(a), ub = floatBitsToUint(b);
  uint sign = (ua ^ ub) & 0x80000000u, ma = ua & 0x7fffffffu, mb = ub & 0x7fffffffu;
  if (ma > 0x7f800000u || mb > 0x7f800000u) return uintBitsToFloat(0x7fc00000u);
  if (ma == 0x7f800000u) return uintBitsToFloat(mb == 0x7f800000u ? 0x7fc00000u : (sign | 0x7f800000u));
  if (mb == 0x7f800000u) return uintBitsToFloat(sign);
  if (mb == 0u) return uintBitsToFloat(ma == 0u ? 0x7fc00000u : (sign | 0x7f800000u));
  if (ma == 0u) return uintBitsToFloat(sign);
  int ea, eb;
  uint sa = exactSignificand(ma, ea), sb = exactSignificand(mb, eb);
  if (sa < sb) {  // the significands' quotient in [1, 2)
    sa <<= 1;
    ea -= 1;
  }
  // The estimate: float(sa) and float(sb) are exact (sa < 2^25, even when >= 2^24).
  float estimate = float(sa) / float(sb);
  uint q = clamp(uint(estimate * 8388608.0), 0x800000u, 0xffffffu);
  // r = sa * 2^23 - q * sb, exact in wrapping arithmetic while |r| < 2^31.
  int r = int((sa << 23) - q * sb);
  // q + floor(r / sb) is the truncated quotient and r - floor(r / sb) * sb its remainder.
  int steps = exactFloorDiv(r, sb);
  q += uint(steps);
  r -= steps * int(sb);
  uint twiceR = uint(r) << 1;
  uint bits = exactRoundBits(q, ea - eb + 127, r != 0, twiceR > sb, twiceR == sb);
  return uintBitsToFloat(sign | bits);
}

float exactSqrtIntegers(float x) {
  uint ux = floatBitsToUint(x);
  if ((ux & 0x7fffffffu) == 0u) return x;  // +-0
  if (ux > 0x7f800000u) return uintBitsToFloat(0x7fc00000u);  // NaN or negative
  if (ux == 0x7f800000u) return x;
  int e;
  uint m = exactSignificand(ux, e);
  // x = m * 2^e = N * 2^(e - k) with N = m * 2^k in [2^46, 2^48) and e - k even: the root
  // is sqrt(N) * 2^((e - k) / 2), sqrt(N) in [2^23, 2^24).
  uint k = ((e & 1) != 0) ? 23u : 24u;
  // m * 2^(k - 46), exact, in [1, 4).
  float estimate = sqrt(float(m) * ((k == 24u) ? 2.384185791015625e-7 : 1.1920928955078125e-7));
  uint s = clamp(uint(estimate * 8388608.0), 0x800000u, 0xffffffu);
  // r = N - s^2, exact in wrapping arithmetic while |r| < 2^31; s is right when 0 <= r <= 2s.
  int r = int((m << k) - s * s);
  // A Newton step s + floor(r / 2s): with t = sqrt(N) and s = t + u, s + r / 2s equals
  // t + u^2 / 2s, so the step lands on floor(t) or, when t + u^2 / 2s crosses an integer
  // (u^2 / 2s < 2^-9 here, as |r| < 2^31 keeps |u| < 128), on floor(t) + 1, which the one
  // check after it takes back. s stays in [2^23, 2^24]: 2s fits, s^2 wraps as r expects.
  s += uint(exactFloorDiv(r, 2u * s));
  r = int((m << k) - s * s);
  if (r < 0) {
    r += int(2u * s - 1u);
    s -= 1u;
  }
  // sqrt(N) > s + 1/2 exactly when N > s^2 + s + 1/4, that is r > s (never a tie).
  bool above = uint(r) > s;
  int biased = (e - int(k)) / 2 + 150;
  return uintBitsToFloat(exactRoundBits(s, biased, r != 0, above, false));
}

#endif
