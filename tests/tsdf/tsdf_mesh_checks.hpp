#pragma once
// Checks on TSDF meshes for the mesher's tests: the same mesh (bit for bit), and the mesh's
// edges (closed, oriented) over its vertex indices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "voxen/tsdf/tsdf_mesh.hpp"

namespace voxen::test {

inline void requireSameMesh(const TsdfMesh& a, const TsdfMesh& b) {
  REQUIRE(a.edges == b.edges);
  REQUIRE(a.positions.size() == b.positions.size());
  CHECK(std::memcmp(a.positions.data(), b.positions.data(), a.positions.size() * sizeof(glm::vec3)) == 0);
  CHECK(std::memcmp(a.normals.data(), b.normals.data(), a.normals.size() * sizeof(glm::vec3)) == 0);
  CHECK(a.faces == b.faces);
  CHECK(a.colours == b.colours);
}

struct EdgeUse {
  size_t edges = 0, once = 0, twice = 0, more = 0, misoriented = 0, degenerate = 0;
};

// Each undirected mesh edge: how many faces use it, and whether two uses run opposite ways.
inline EdgeUse edgeUse(const TsdfMesh& mesh) {
  std::map<std::pair<uint32_t, uint32_t>, std::pair<int, int>> uses;  // (forward, backward) uses
  EdgeUse out;
  for (const glm::uvec3& f : mesh.faces) {
    if (f.x == f.y || f.y == f.z || f.x == f.z) {
      ++out.degenerate;
      continue;
    }
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = f[k], b = f[(k + 1) % 3];
      auto& u = uses[{std::min(a, b), std::max(a, b)}];
      (a < b ? u.first : u.second)++;
    }
  }
  for (const auto& [edge, u] : uses) {
    ++out.edges;
    const int n = u.first + u.second;
    out.once += n == 1, out.twice += n == 2, out.more += n > 2;
    out.misoriented += n == 2 && u.first != 1;
  }
  return out;
}

}  // namespace voxen::test
