#include "option_checks.hpp"

#include <cmath>

namespace voxen::cli {

std::string voxelIndexProblem(double metres, double resolution) {
  const double index = std::floor(metres / resolution);
  if (std::isfinite(index) && std::fabs(index) <= kMaxVoxelIndex) return {};
  using apps::numberText;
  return numberText(metres) + " m is voxel " + numberText(index) + " at the map's resolution of " + numberText(resolution) +
         " m, beyond the voxel indices a map holds (+-" + numberText(kMaxVoxelIndex) + ")";
}

}  // namespace voxen::cli
