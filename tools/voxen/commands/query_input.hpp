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

// width 3: points; width 4: box poses (x y z yaw); width 6: rays.
QueryInput readQueryInput(const std::string& path, size_t width);

// Paths for `--kind path`: one per line of a text file, x1 y1 z1 x2 y2 z2 ... (at least two
// points). values holds every point (width 3); offsets each path's first point and one past
// the last (paths + 1 entries); lines each path's line. Errors name the file and line.
struct QueryPaths {
  QueryInput points;
  std::vector<uint64_t> offsets{0};
  size_t paths() const { return offsets.size() - 1; }
};
QueryPaths readQueryPaths(const std::string& path);

}  // namespace voxen::cli
