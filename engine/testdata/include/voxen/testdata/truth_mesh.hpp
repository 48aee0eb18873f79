#pragma once
// The synthetic scene's surface as triangles, the ground truth that TSDF meshes are compared
// with (issue 40): every primitive's whole surface, boxes (walls, floor and ceiling too) as
// 12 triangles, ramps as their six faces, cylinders and spheres tessellated so that no point
// of the true surface is further than `tolerance` from the mesh (vertices lie on the true
// surface; the chord error of a polygon of n sides round radius r is r (1 - cos(pi / n))).
//
//   const TriangleMesh truth = sceneTruthMesh(scene);
//   writeMeshPly("truth.ply", truth);                   // binary PLY: float x y z, faces
//   writeMeshPly("coloured.ply", sceneTruthMesh(scene, 0.001, true));  // with uchar red green blue
//   std::vector<glm::dvec3> points = sampleMeshSurface(truth, 100000, 1);
//
// Faces hidden inside other primitives (a wall's end inside the next wall, the floor under a
// box) are kept: the mesh is each primitive's surface, not the visible union. Metrics that need
// the visible surface keep the samples a camera could see (or those off every other primitive).
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen {

struct TriangleMesh {
  std::vector<glm::dvec3> vertices;
  std::vector<glm::u32vec3> triangles;  // counter-clockwise seen from outside the primitive
  // Per vertex (empty: none): each primitive's surface base colour (scene_colours.hpp; the
  // checker is not drawn: a wall is two triangles), so a viewer shows which surface is which.
  std::vector<std::array<uint8_t, 3>> colours;
  double area() const;
};

// tolerance: metres, > 0 (default 1 mm). Throws Error for a tolerance that is not positive.
// withColours: fill TriangleMesh::colours.
TriangleMesh sceneTruthMesh(const SyntheticScene& scene, double tolerance = 0.001, bool withColours = false);

// Binary little-endian PLY: vertex float x y z (and uchar red green blue when the mesh has
// colours), face list uchar uint vertex_indices. Written
// through a temporary renamed into place (voxen/atomic_file/atomic_file.hpp). Returns the bytes.
uint64_t writeMeshPly(const std::filesystem::path& path, const TriangleMesh& mesh,
                      const std::string& comment = "voxen synthetic scene, ground truth surface");

// `count` points uniformly distributed over the mesh's area (a triangle chosen by area, then
// a uniform point in it), from a seed: the same points on every platform.
std::vector<glm::dvec3> sampleMeshSurface(const TriangleMesh& mesh, size_t count, uint64_t seed);

// Distance from p to the triangle (a, b, c) (Ericson's closest point on a triangle).
double pointTriangleDistance(const glm::dvec3& p, const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c);

}  // namespace voxen
