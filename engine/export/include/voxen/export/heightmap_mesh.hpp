#pragma once
// A heightmap (voxen/heightmap/heightmap.hpp) as a coloured triangle mesh: to look at in
// MeshLab or CloudCompare (`voxen export HM.vxh --mesh-ply`), and what `voxen render HM.vxh`
// draws.
//
//   voxen::HeightmapMesh mesh = voxen::heightmapMesh(hm, {});   // every level, coloured by cost
//   voxen::writeHeightmapMeshPly(mesh, "ground.ply");
//
// The mesh, per drawn cell (every present cell of the levels drawn):
// - a flat square at the cell's height (Heightmap::heightMetres: sub-voxel where the map had
//   voxel means) over the column's footprint, two triangles facing up;
// - joins: two cells of neighbouring columns are joined when one is the other's matched
//   level (the neighbour's level nearest in height, the one the cell's step to that side,
//   HeightmapCell::stepEast..stepSouth, was measured to) and the step is at most the
//   heightmap's maxStep, so a ramp, a kerb or stairs read as one surface. A joined pair at
//   different heights gets a vertical riser (a quad, two triangles) that closes the gap
//   between their edges, facing the lower cell; an edge with no join (a larger step: a wall
//   or a drop the robot cannot take; no level there; a level not drawn) stays open.
// Each square's 4 vertices carry its cell's colour; a riser's 2 upper vertices the upper
// cell's and its 2 lower ones the lower cell's. Triangles wind counter-clockwise seen from
// the side they face, and each triangle's first vertex is its own cell's (for a riser the
// upper one), so a renderer with one colour per triangle takes the first vertex's.
//
// Colours: by cost (detail::costColour, as the --cost-png picture: the heat ramp over 0..100,
// lethal black, unknown grey) or by height (the heat ramp over the drawn cells' heights).
// Cells are visited level by level, then row by row (y), then x: the same heightmap gives the
// same mesh, vertex for vertex.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/heightmap/heightmap.hpp"

namespace voxen {

enum class HeightmapColouring { Cost, Height };

struct HeightmapMeshOptions {
  std::optional<uint32_t> level;  // only this level (its joins to other levels left open); unset: every level
  HeightmapColouring colouring = HeightmapColouring::Cost;
};

struct HeightmapMesh {
  std::vector<glm::dvec3> positions;               // metres, the map's frame
  std::vector<std::array<uint8_t, 3>> colours;     // per vertex, RGB
  std::vector<std::array<uint32_t, 3>> triangles;  // vertex indices
  uint64_t cells = 0;    // squares drawn
  uint64_t joins = 0;    // joined neighbour pairs (at any step, 0 included)
  uint64_t risers = 0;   // joined pairs at different heights
  uint64_t lethal = 0;   // drawn cells whose cost is lethal
  uint64_t unknown = 0;  // drawn cells whose cost is unknown
  // The drawn cells' lowest and highest heights (metres; the height colours' ends), 0 when none.
  double heightMin = 0.0, heightMax = 0.0;
};

// Throws SettingError (field "level") for a level the heightmap does not keep.
HeightmapMesh heightmapMesh(const Heightmap& heightmap, const HeightmapMeshOptions& options = {});

// Binary little-endian PLY: vertices (float x y z, uchar red green blue), faces (list uchar
// int vertex_indices, triangles), written atomically: a failure leaves an existing file as it
// was. Throws Error when the mesh has more vertices than a PLY int index holds.
void writeHeightmapMeshPly(const HeightmapMesh& mesh, const std::filesystem::path& path);

}  // namespace voxen
