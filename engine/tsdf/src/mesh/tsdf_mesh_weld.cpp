// The weld: blocks' vertices (equal edges carry equal integers) sorted and made one per edge,
// finished as floats once, in double (tsdf_mesh.hpp: position, normal); faces as indices.
#include <algorithm>
#include <cmath>

#include "tsdf_mesh_internal.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/parallel_for.hpp"

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
  // The edges by value beside their vertex (sorting values, not pointers to them, keeps the
  // comparisons in cache), then one per edge.
  struct Keyed {
    TsdfEdge edge;
    const TsdfMeshVertex* vertex;
  };
  std::vector<Keyed> all;
  std::vector<size_t> firstFace(blocks.size() + 1, 0);
  size_t vertices = 0;
  for (const TsdfBlockMesh* b : blocks) vertices += b->vertices.size();
  all.reserve(vertices);
  for (size_t i = 0; i < blocks.size(); ++i) {
    for (const TsdfMeshVertex& v : blocks[i]->vertices) all.push_back({v.edge, &v});
    firstFace[i + 1] = firstFace[i] + blocks[i]->triangles.size();
  }
  std::sort(all.begin(), all.end(), [](const Keyed& a, const Keyed& b) { return a.edge < b.edge; });
  all.erase(std::unique(all.begin(), all.end(), [](const Keyed& a, const Keyed& b) { return a.edge == b.edge; }), all.end());
  if (all.size() > size_t(UINT32_MAX)) throw Error("a TSDF mesh of more than 2^32 vertices cannot be indexed");
  mesh.edges.resize(all.size());
  mesh.positions.resize(all.size());
  mesh.normals.resize(all.size());
  if (coloured) mesh.colours.resize(all.size());
  parallelFor(all.size(), [&](size_t i) {
    mesh.edges[i] = all[i].edge;
    finish(*all[i].vertex, resolution, mesh.positions[i], mesh.normals[i]);
    if (coloured) {
      const uint32_t c = all[i].vertex->colour;
      mesh.colours[i] = glm::u8vec3(uint8_t(c & 0xFFu), uint8_t((c >> 8) & 0xFFu), uint8_t((c >> 16) & 0xFFu));
    }
  });
  // Faces block by block, each at its place in the block order: a block's vertices (sorted,
  // each once) find their indices in the mesh's edges once, increasing, and its triangles'
  // corners look up their edge among the block's few vertices before all of the mesh's.
  mesh.faces.resize(firstFace.back());
  parallelFor(blocks.size(), [&](size_t i) {
    const TsdfBlockMesh& b = *blocks[i];
    std::vector<uint32_t> global(b.vertices.size());
    auto from = mesh.edges.begin();
    for (size_t k = 0; k < b.vertices.size(); ++k) {
      from = std::lower_bound(from, mesh.edges.end(), b.vertices[k].edge);
      global[k] = uint32_t(from - mesh.edges.begin());
    }
    // A corner's edge among the block's vertices, else (the GPU's blocks hold only the edges
    // whose lower voxel is theirs) among all of the mesh's.
    const auto indexOf = [&](const TsdfEdge& e) {
      const auto at = std::lower_bound(b.vertices.begin(), b.vertices.end(), e,
                                       [](const TsdfMeshVertex& v, const TsdfEdge& edge) { return v.edge < edge; });
      if (at != b.vertices.end() && at->edge == e) return global[size_t(at - b.vertices.begin())];
      return uint32_t(std::lower_bound(mesh.edges.begin(), mesh.edges.end(), e) - mesh.edges.begin());
    };
    for (size_t t = 0; t < b.triangles.size(); ++t) {
      const auto& corners = b.triangles[t];
      mesh.faces[firstFace[i] + t] = {indexOf(corners[0]), indexOf(corners[1]), indexOf(corners[2])};
    }
  });
  return mesh;
}

}  // namespace voxen::detail
