#pragma once
// The inputs of `voxen query`: points (x y z) or rays (ox oy oz dx dy dz) from a PLY file
// (vertex properties x,y,z; rays ox,oy,oz or x,y,z and dx,dy,dz) or a whitespace-separated
// text file (one item per line; blank lines and lines starting with '#' are skipped). Every
// bad row is an Error naming the file and line (text) or vertex (PLY).
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

namespace voxen::cli {

struct QueryInput {
  std::string path;
  std::vector<double> values;  // row-major, 3 (points) or 6 (rays) per item
  std::vector<uint64_t> lines; // text: each item's line (1-based); PLY: empty
  size_t width = 3;
  size_t size() const { return values.size() / width; }
  // "points.txt:12" or "points.ply: vertex 7": where item i came from, for errors.
  std::string where(size_t i) const;
};

// width 3: points; width 6: rays.
QueryInput readQueryInput(const std::string& path, size_t width);

}  // namespace voxen::cli
