#pragma once
// An exact oracle for the voxel walk, and the adversarial rays it is checked on.
//
// The rays lie on a 2^-22 grid in voxel units (resolution 1 m), with components of d cut to
// 24 significant bits, so their end points, the walk's o and d (floats), and every face
// crossing t = num / den are exact in integers: the
// oracle merges the crossings of the three axes by their exact t (ties to the lower axis,
// as the walk breaks them), independently of the walk's float arithmetic.
//
// Families (adversarialRays):
// - exact ones, where the walk must visit exactly the oracle's voxels in the oracle's order:
//   diagonals through voxel corners and edges, axis-aligned rays on faces and edges, rays
//   through lattice points, starting or ending on faces, with every |d| a power of two and
//   offsets on a 1/256 grid (1/d, p - o and the product are then exact in float); and rays whose components have one
//   magnitude that is not a power of two (3, 5, 7, 12 voxels) with mirrored offsets, whose
//   ties the walk computes from bit-identical operands on every axis.
// - near ones: nearly parallel to an axis, diagonals whose axes' offsets differ by a few
//   grid steps (crossings of two axes a few float ulps apart at every corner), and random
//   grid rays: there the walk may swap crossings whose exact times lie within float rounding
//   of each other, and no others (nearOrderTolerance).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/map/ray.hpp"
#include "voxen/testdata/split_mix.hpp"

namespace vt::walk_oracle {

inline constexpr int64_t kGrid = int64_t(1) << 22;  // grid steps per voxel
inline constexpr int64_t kCoarse = kGrid / 256;     // the exact families' grid step
__extension__ typedef __int128 Wide;                // products of two crossings' terms, scaled

struct GridRay {
  int64_t from[3];  // end points in 1/256 voxel units
  int64_t to[3];
  bool exact = false;  // from an exact family (see the file comment)
  voxen::Ray ray() const {
    voxen::Ray r;
    for (int a = 0; a < 3; ++a) {
      r.origin[a] = double(from[a]) / double(kGrid);
      r.sample[a] = double(to[a]) / double(kGrid);
    }
    return r;
  }
};

inline int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// One face crossing: its axis, its index along that axis and its exact t = num / den.
struct Crossing {
  int axis = 0;
  int64_t index = 0;
  int64_t num = 0, den = 1;
};

inline bool before(const Crossing& a, const Crossing& b) {
  const Wide l = Wide(a.num) * b.den, r = Wide(b.num) * a.den;
  return l < r || (l == r && a.axis < b.axis);
}

// Crossing j of axis a of the ray (exact).
inline Crossing crossingOf(const GridRay& g, int a, int64_t j) {
  const int64_t s = floorDiv(g.from[a], kGrid);
  Crossing c{a, j, 0, 1};
  if (g.to[a] > g.from[a]) {
    c.num = (s + j + 1) * kGrid - g.from[a];
    c.den = g.to[a] - g.from[a];
  } else {
    c.num = g.from[a] - (s - j) * kGrid;
    c.den = g.from[a] - g.to[a];
  }
  return c;
}

inline int64_t facesOn(const GridRay& g, int a) {
  return std::abs(floorDiv(g.to[a], kGrid) - floorDiv(g.from[a], kGrid));
}

// Every crossing of the ray in the oracle's order (exact t, then axis).
inline std::vector<Crossing> oracleCrossings(const GridRay& g) {
  std::vector<Crossing> out;
  int64_t next[3] = {0, 0, 0};
  for (;;) {
    int best = -1;
    Crossing bestC;
    for (int a = 0; a < 3; ++a) {
      if (next[a] >= facesOn(g, a)) continue;
      const Crossing c = crossingOf(g, a, next[a]);
      if (best < 0 || before(c, bestC)) best = a, bestC = c;
    }
    if (best < 0) return out;
    out.push_back(bestC);
    ++next[best];
  }
}

// The voxels the oracle visits: the start voxel, then one per crossing.
inline std::vector<glm::ivec3> oracleVoxels(const GridRay& g) {
  glm::ivec3 v(int(floorDiv(g.from[0], kGrid)), int(floorDiv(g.from[1], kGrid)), int(floorDiv(g.from[2], kGrid)));
  std::vector<glm::ivec3> out{v};
  for (const Crossing& c : oracleCrossings(g)) {
    v[c.axis] += g.to[c.axis] > g.from[c.axis] ? 1 : -1;
    out.push_back(v);
  }
  return out;
}

// Whether two crossings' exact t differ by at most 2^-20 of the larger: a few float ulps,
// the most by which (p - o) * (1/d), three correctly rounded operations, can move a crossing.
inline bool nearOrderTolerance(const Crossing& a, const Crossing& b) {
  const Wide l = Wide(a.num) * b.den, r = Wide(b.num) * a.den;
  return (l > r ? l - r : r - l) * (Wide(1) << 20) <= std::max(l, r);
}

inline bool sameTime(const Crossing& a, const Crossing& b) { return Wide(a.num) * b.den == Wide(b.num) * a.den; }

// delta cut to 24 significant bits (towards 0), so that the walk's float d is exact.
inline int64_t fitFloat(int64_t delta) {
  const int64_t magnitude = std::abs(delta);
  int bits = 0;
  while ((magnitude >> bits) >= (int64_t(1) << 24)) ++bits;
  return (delta < 0 ? -1 : 1) * ((magnitude >> bits) << bits);
}

// Adversarial grid rays (see the file comment), deterministic from the seed.
inline std::vector<GridRay> adversarialRays(uint64_t seed, size_t perFamily) {
  voxen::SplitMix rng(seed);
  auto pick = [&](std::initializer_list<int64_t> values) { return values.begin()[rng.next() % values.size()]; };
  auto sign = [&] { return rng.chance(50) ? int64_t(1) : int64_t(-1); };
  auto voxel = [&] { return (int64_t(rng.range(0, 80)) - 40) * kGrid; };
  // Offsets inside a voxel: on the face, the middle, quarters, 1/256 from a face or the middle.
  auto offset = [&] { return pick({0, 128, 64, 192, 1, 255, 129, 127}) * kCoarse; };
  auto power = [&] { return kGrid << rng.range(0, 5); };  // 1 to 32 voxels
  std::vector<GridRay> rays;
  auto add = [&](const int64_t from[3], const int64_t delta[3], bool exact) {
    GridRay g;
    for (int a = 0; a < 3; ++a) g.from[a] = from[a], g.to[a] = from[a] + fitFloat(delta[a]);
    g.exact = exact;
    rays.push_back(g);
  };
  for (size_t i = 0; i < perFamily; ++i) {
    int64_t from[3], delta[3];
    // Diagonals through corners and edges: equal power-of-two lengths, one offset for all axes.
    const int64_t f = offset(), L = power();
    for (int a = 0; a < 3; ++a) from[a] = voxel() + f, delta[a] = sign() * L;
    if (rng.chance(30)) delta[rng.next() % 3] = 0;  // a face diagonal
    add(from, delta, true);
    // Power-of-two lengths per axis (some zero), offsets per axis, from lattice points too.
    for (int a = 0; a < 3; ++a) {
      from[a] = voxel() + (rng.chance(40) ? 0 : offset());
      delta[a] = rng.chance(25) ? 0 : sign() * (power() >> rng.range(0, 3));
    }
    add(from, delta, true);
    // Axis-aligned on faces and edges, ending on a face or inside a voxel.
    for (int a = 0; a < 3; ++a) from[a] = voxel() + pick({0, 0, 128, 255}) * kCoarse, delta[a] = 0;
    delta[rng.next() % 3] = sign() * (int64_t(rng.range(1, 40)) * kGrid + pick({0, 0, 1, 128}) * kCoarse);
    add(from, delta, true);
    // One magnitude that is no power of two, mirrored offsets (1 - f where the axis steps down).
    const int64_t m = pick({3, 5, 7, 12}) * kGrid, g = pick({128, 64, 192, 1, 255}) * kCoarse;
    for (int a = 0; a < 3; ++a) {
      delta[a] = sign() * m;
      from[a] = voxel() + (delta[a] > 0 ? g : kGrid - g);
    }
    add(from, delta, true);
    // Nearly parallel to an axis: a few 2^-16 voxels of drift over up to 40 voxels.
    for (int a = 0; a < 3; ++a) from[a] = voxel() + offset() + int64_t(rng.range(0, 3)), delta[a] = sign() * int64_t(rng.range(0, 2)) * 64;
    delta[rng.next() % 3] = sign() * int64_t(rng.range(1, 40)) * kGrid;
    add(from, delta, false);
    // Nearly diagonal: equal lengths, offsets a few grid steps apart (a few float ulps
    // between the axes' crossings at every corner, as 2^-22 of a voxel is).
    const int64_t n = int64_t(rng.range(1, 30)) * kGrid + pick({0, 128, 77}) * kCoarse;
    for (int a = 0; a < 3; ++a) from[a] = voxel() + (f == 0 ? kGrid / 2 : f) + int64_t(rng.range(0, 8)), delta[a] = sign() * n;
    add(from, delta, false);
    // Anything on the grid.
    for (int a = 0; a < 3; ++a) from[a] = voxel() + int64_t(rng.range(0, kGrid - 1)), delta[a] = int64_t(rng.range(0, 40 * kGrid)) - 20 * kGrid;
    add(from, delta, false);
  }
  return rays;
}

inline std::vector<voxen::Ray> asRays(const std::vector<GridRay>& grid) {
  std::vector<voxen::Ray> rays;
  rays.reserve(grid.size());
  for (const GridRay& g : grid) rays.push_back(g.ray());
  return rays;
}

}  // namespace vt::walk_oracle
