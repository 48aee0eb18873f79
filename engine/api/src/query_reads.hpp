#pragma once
// How many voxels a batched query reads: the measure MapperRunOptions::hostQueryVoxels
// bounds to answer small queries on the CPU. Counting stops past `limit` (a batch of a
// million rays is not walked twice to learn that it is large); a range or box that is not
// finite counts as past it. Either path judges bad input with the same code (query_prep).
#include <cstdint>
#include <span>

#include "voxen/query/query_types.hpp"

namespace voxen {

uint64_t pointReads(size_t points, uint64_t readsPerPoint, uint64_t limit);
// A ray reads its range in voxels plus one (its origin's voxel), at most.
uint64_t raycastReads(double resolution, std::span<const QueryRay> rays, uint64_t limit);
uint64_t boxReads(double resolution, const QueryBox& box, uint64_t limit);

// Refuses a caller's span with room for fewer answers than the items asked, before any work
// (QueryOutputError naming `owner::query` and both sizes): Mapper's and MapSnapshot's span forms.
void checkAnswerRoom(const char* owner, const char* query, const char* items, size_t asked, size_t room);

}  // namespace voxen
