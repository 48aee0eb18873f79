#include "voxen/map/decimal_voxel.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace voxen {

namespace {

using Int = __int128;

// Results past 2^62 either way are clamped there: no map reaches that far.
constexpr int64_t kFar = int64_t(1) << 62;

int64_t clampFar(Int v) { return int64_t(std::clamp<Int>(v, -Int(kFar), Int(kFar))); }
int64_t clampFar(double v) { return v < -double(kFar) ? -kFar : v <= double(kFar) ? int64_t(v) : kFar; }  // NaN: far

// value = digits x 10^exponent, the shortest decimal that reads back as the double.
struct Decimal {
  Int digits = 0;
  int exponent = 0;
};

std::optional<Decimal> decimalOf(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  char text[48];
  const auto [end, error] = std::to_chars(text, text + sizeof text, v, std::chars_format::scientific);
  if (error != std::errc()) return std::nullopt;
  Decimal d;
  const char* p = text;
  const bool negative = *p == '-';
  if (negative) ++p;
  int fractionDigits = 0;
  bool fraction = false;
  for (; p < end && *p != 'e'; ++p) {
    if (*p == '.') {
      fraction = true;
      continue;
    }
    d.digits = d.digits * 10 + (*p - '0');
    fractionDigits += fraction;
  }
  int exponent = 0;
  if (p < end) {
    const char* e = p + 1;
    if (*e == '+') ++e;
    std::from_chars(e, end, exponent);
  }
  d.exponent = exponent - fractionDigits;
  if (negative) d.digits = -d.digits;
  return d;
}

// metres / resolution as num / den (den > 0), exactly, of the two decimals.
struct Fraction {
  Int num = 0, den = 1;
};

std::optional<Fraction> ratio(double metres, double resolution) {
  const std::optional<Decimal> a = decimalOf(metres), b = decimalOf(resolution);
  if (!a || !b || b->digits <= 0) return std::nullopt;
  const int shift = a->exponent - b->exponent;
  if (std::abs(shift) > 20) return std::nullopt;  // 10^20 x 17 digits stays below 2^127
  Int power = 1;
  for (int k = 0; k < std::abs(shift); ++k) power *= 10;
  if (shift >= 0) return Fraction{a->digits * power, b->digits};
  return Fraction{a->digits, b->digits * power};
}

// floor(n / d) for d > 0.
Int floorDivide(Int n, Int d) {
  Int q = n / d;
  if (n % d != 0 && n < 0) --q;
  return q;
}

// floor(q + offset) when the double quotient q is far enough from a boundary that the exact
// one cannot lie across it (they differ by a few units in the last place): most points of a
// batched query take this path and skip the decimal conversion.
std::optional<int64_t> clearFloor(double metres, double resolution, double offset) {
  const double q = metres / resolution + offset;
  if (!(std::abs(q) < 1e15)) return std::nullopt;
  if (std::abs(q - std::nearbyint(q)) <= 1e-6 * std::max(1.0, std::abs(q))) return std::nullopt;
  return int64_t(std::floor(q));
}

}  // namespace

int64_t voxelIndexOfDecimal(double metres, double resolution) {
  if (const std::optional<int64_t> k = clearFloor(metres, resolution, 0.0)) return *k;
  if (const std::optional<Fraction> f = ratio(metres, resolution)) return clampFar(floorDivide(f->num, f->den));
  return clampFar(std::floor(metres / resolution));
}

// (k + 0.5) >= n / d  <=>  k >= (2n - d) / 2d; (k + 0.5) <= n / d  <=>  k <= (2n - d) / 2d.
int64_t firstVoxelCentredAtOrAbove(double metres, double resolution) {
  if (const std::optional<int64_t> k = clearFloor(metres, resolution, -0.5)) return *k + 1;  // ceil of a non-integer
  if (const std::optional<Fraction> f = ratio(metres, resolution))
    return clampFar(-floorDivide(-(2 * f->num - f->den), 2 * f->den));
  return clampFar(std::ceil(metres / resolution - 0.5));
}

int64_t lastVoxelCentredAtOrBelow(double metres, double resolution) {
  if (const std::optional<int64_t> k = clearFloor(metres, resolution, -0.5)) return *k;
  if (const std::optional<Fraction> f = ratio(metres, resolution)) return clampFar(floorDivide(2 * f->num - f->den, 2 * f->den));
  return clampFar(std::floor(metres / resolution - 0.5));
}

}  // namespace voxen
