#include "voxen/clearance/voxel_squares.hpp"

#include <cmath>

namespace voxen {

std::optional<VoxelSquares> voxelSquares(const OccupancyModel& model, const ClearanceOptions& options) {
  const glm::dvec3& scale = options.axisScale;
  if (!(scale.x == scale.y && scale.y == scale.z)) return std::nullopt;
  const double step = model.resolution * scale.x;
  const float range = float(options.range);
  VoxelSquares squares;
  // Every D whose distance is within the range lies inside the padding box (padding per
  // axis: ceil(range / step)), so the loop ends well within it: at most 240^2 + 1 entries.
  for (uint32_t d = 0;; ++d) {
    const float metres = float(step * std::sqrt(double(d)));
    if (!(metres <= range)) break;
    squares.metres.push_back(metres);
  }
  squares.maxSquared = uint32_t(squares.metres.size() - 1);  // metres[0] = 0 is always within the range
  return squares;
}

}  // namespace voxen
