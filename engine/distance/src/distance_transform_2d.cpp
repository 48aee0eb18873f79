// The CPU reference of the 2D squared distance transform, and the choice between it and the GPU.
#include "voxen/distance/distance_transform_2d.hpp"

#include <algorithm>
#include <vector>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

// One parabola lower envelope pass over n samples of f, `stride` apart (kNoObstacle: no
// parabola there), into out[0..n):
// d(q) = min over p of (q - p)^2 + f(p). Integer inputs; the envelope's breakpoints are
// rationals compared exactly by cross-multiplication.
void distance1D(const uint64_t* f, size_t stride, size_t n, uint64_t* out, std::vector<int64_t>& v, std::vector<int64_t>& fv) {
  v.clear(), fv.clear();
  // intersection of parabolas at p (value a) and q (value b), p < q: s = ((b + q^2) - (a + p^2)) / (2 (q - p))
  auto numerator = [](int64_t p, int64_t a, int64_t q, int64_t b) { return (b + q * q) - (a + p * p); };
  for (size_t q = 0; q < n; ++q) {
    const uint64_t value = f[q * stride];
    if (value == kNoObstacle) continue;
    const int64_t b = int64_t(value), qi = int64_t(q);
    // Drop envelope parabolas that the new one hides: s(last, q) <= s(before last, last).
    while (v.size() >= 2) {
      const size_t k = v.size() - 1;
      const int64_t n1 = numerator(v[k], fv[k], qi, b), d1 = 2 * (qi - v[k]);
      const int64_t n0 = numerator(v[k - 1], fv[k - 1], v[k], fv[k]), d0 = 2 * (v[k] - v[k - 1]);
      if ((__int128)n1 * d0 <= (__int128)n0 * d1) v.pop_back(), fv.pop_back();
      else break;
    }
    v.push_back(qi), fv.push_back(b);
  }
  if (v.empty()) {
    for (size_t q = 0; q < n; ++q) out[q] = kNoObstacle;
    return;
  }
  size_t k = 0;
  for (size_t q = 0; q < n; ++q) {
    const int64_t qi = int64_t(q);
    // Move to the next parabola while it is at least as low at q.
    while (k + 1 < v.size()) {
      const int64_t here = (qi - v[k]) * (qi - v[k]) + fv[k], next = (qi - v[k + 1]) * (qi - v[k + 1]) + fv[k + 1];
      if (next <= here) ++k;
      else break;
    }
    out[q] = uint64_t((qi - v[k]) * (qi - v[k]) + fv[k]);
  }
}

}  // namespace

std::vector<uint64_t> squaredDistanceTransform2D(std::span<const uint8_t> obstacle, uint32_t width, uint32_t height) {
  if (obstacle.size() != size_t(width) * height) throw Error("squaredDistanceTransform2D: the grid's size is not width x height");
  std::vector<uint64_t> columns(obstacle.size()), result(obstacle.size());
  for (size_t i = 0; i < obstacle.size(); ++i) columns[i] = obstacle[i] ? 0 : kNoObstacle;
  std::vector<int64_t> v, fv;
  v.reserve(std::max(width, height)), fv.reserve(std::max(width, height));
  std::vector<uint64_t> scratch(std::max(width, height));
  // Pass 1: along each column (y), in place through a scratch copy.
  for (uint32_t x = 0; x < width; ++x) {
    distance1D(columns.data() + x, width, height, scratch.data(), v, fv);
    for (uint32_t y = 0; y < height; ++y) columns[size_t(y) * width + x] = scratch[y];
  }
  // Pass 2: along each row (x).
  for (uint32_t y = 0; y < height; ++y) distance1D(columns.data() + size_t(y) * width, 1, width, result.data() + size_t(y) * width, v, fv);
  return result;
}

std::vector<uint64_t> squaredDistanceTransform2D(Scheduler* scheduler, std::span<const uint8_t> obstacle, uint32_t width,
                                                 uint32_t height) {
  return scheduler ? squaredDistanceTransform2DGpu(*scheduler, obstacle, width, height)
                   : squaredDistanceTransform2D(obstacle, width, height);
}

}  // namespace voxen
