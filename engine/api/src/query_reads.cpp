#include "query_reads.hpp"

#include <cmath>
#include <string>

namespace voxen {

namespace {

constexpr uint64_t past(uint64_t limit) { return limit == UINT64_MAX ? limit : limit + 1; }

}  // namespace

uint64_t pointReads(size_t points, uint64_t readsPerPoint, uint64_t limit) {
  if (readsPerPoint != 0 && points > limit / readsPerPoint) return past(limit);
  return uint64_t(points) * readsPerPoint;
}

uint64_t raycastReads(double resolution, std::span<const QueryRay> rays, uint64_t limit) {
  double total = 0.0;
  for (const QueryRay& ray : rays) {
    // A walk crosses at most range / resolution faces per axis, so this bounds its voxels
    // only to within a factor of 3; it is an estimate of the work, not a limit on it.
    total += ray.maxRange / resolution + 1.0;
    if (!(total <= double(limit))) return past(limit);
  }
  return uint64_t(total);
}

void checkAnswerRoom(const char* owner, const char* query, const char* items, size_t asked, size_t room) {
  if (room < asked)
    throw QueryOutputError(std::string(owner) + "::" + query + ": " + std::to_string(asked) + " " + items +
                           " but the answer span holds " + std::to_string(room) + " (it needs one element per item)");
}

uint64_t boxReads(double resolution, const QueryBox& box, uint64_t limit) {
  double total = 1.0;
  for (int a = 0; a < 3; ++a) total *= std::floor((box.max[a] - box.min[a]) / resolution) + 2.0;
  if (!(total <= double(limit)) || !(total > 0.0)) return past(limit);
  return uint64_t(total);
}

}  // namespace voxen
