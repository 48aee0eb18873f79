#pragma once
// Deterministic pseudo-random numbers (splitmix64) for generated test data: the same
// sequence on every platform and standard library (std's distributions are not specified
// bit for bit), so that a failure reproduces anywhere.
#include <cstdint>

namespace voxen {

struct SplitMix {
  uint64_t state;
  explicit SplitMix(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t u32() { return uint32_t(next() >> 32); }
  // Uniform in [lo, hi].
  uint64_t range(uint64_t lo, uint64_t hi) { return lo + next() % (hi - lo + 1); }
  bool chance(unsigned percent) { return next() % 100 < percent; }
};

}  // namespace voxen
