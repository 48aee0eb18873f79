// The weld: blocks' vertices (equal edges carry equal integers) sorted and made one per edge,
// finished as floats once, in double (tsdf_mesh.hpp: position, normal); faces as indices.
#include <algorithm>
#include <cmath>

#include "tsdf_mesh_internal.hpp"
#include "voxen/host/error.hpp"

namespace voxen::detail {

namespace {

void finish(const TsdfMeshVertex& v, double resolution, glm::vec3& position, glm::vec3& normal) {
  double p[3] = {v.edge.x + 0.5, v.edge.y + 0.5, v.edge.z + 0.5};
  p[v.edge.axis] += double(v.t) / double(gpu::kTsdfFine);
  position = glm::vec3(float(p[0] * resolution), float(p[1] * resolution), float(p[2] * resolution));
  const double g[3] = {double(v.gradient[0]), double(v.gradient[1]), double(v.gradient[2])};
  const double length = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  if (length > 0) {
    normal = glm::vec3(float(g[0] / length), float(g[1] / length), float(g[2] / length));
  } else {
    normal = glm::vec3(0.0f);
    normal[int(v.edge.axis)] = v.lowerInside ? 1.0f : -1.0f;  // toward the edge's outside end
  }
}

}  // namespace

TsdfMesh weldTsdfMesh(std::span<const TsdfBlockMesh* const> blocks, double resolution, bool coloured) {
  TsdfMesh mesh;
  mesh.resolution = resolution;
  std::vector<const TsdfMeshVertex*> all;
  size_t triangles = 0;
  for (const TsdfBlockMesh* b : blocks) {
    for (const TsdfMeshVertex& v : b->vertices) all.push_back(&v);
    triangles += b->triangles.size();
  }
  std::sort(all.begin(), all.end(), [](const TsdfMeshVertex* a, const TsdfMeshVertex* b) { return a->edge < b->edge; });
  all.erase(std::unique(all.begin(), all.end(), [](const TsdfMeshVertex* a, const TsdfMeshVertex* b) { return a->edge == b->edge; }),
            all.end());
  if (all.size() > size_t(UINT32_MAX)) throw Error("a TSDF mesh of more than 2^32 vertices cannot be indexed");
  mesh.edges.resize(all.size());
  mesh.positions.resize(all.size());
  mesh.normals.resize(all.size());
  if (coloured) mesh.colours.resize(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    mesh.edges[i] = all[i]->edge;
    finish(*all[i], resolution, mesh.positions[i], mesh.normals[i]);
    if (coloured) {
      const uint32_t c = all[i]->colour;
      mesh.colours[i] = glm::u8vec3(uint8_t(c & 0xFFu), uint8_t((c >> 8) & 0xFFu), uint8_t((c >> 16) & 0xFFu));
    }
  }
  mesh.faces.reserve(triangles);
  const auto indexOf = [&](const TsdfEdge& e) {
    return uint32_t(std::lower_bound(mesh.edges.begin(), mesh.edges.end(), e) - mesh.edges.begin());
  };
  for (const TsdfBlockMesh* b : blocks)
    for (const auto& t : b->triangles) mesh.faces.push_back({indexOf(t[0]), indexOf(t[1]), indexOf(t[2])});
  return mesh;
}

}  // namespace voxen::detail
