#pragma once
// The marching cubes case table, generated at startup from first principles (not copied):
// for each of the 256 inside/outside patterns of a cell's corners, which cell edges carry
// vertices and how they form triangles. The CPU mesher (cpu_mesher.hpp) and the GPU phases
// (shaders/painter/mesh.glsl) both read it, so both emit the same triangles in the same order.
//
// Conventions (mesh.glsl computes corners and edges with the same arithmetic):
// - Corner c (0..7) of a cell sits at offset (c & 1, (c >> 1) & 1, (c >> 2) & 1) samples.
// - Case index: bit c set when corner c is inside (density >= kIsoLevel).
// - Edge e (0..11): axis a = e / 4 and j = e % 4; its low corner has bit a clear, bit
//   (a + 1) % 3 = j & 1 and bit (a + 2) % 3 = j >> 1; its high corner adds bit a.
// - Triangles face outward: (v1 - v0) x (v2 - v0) points from inside towards outside.
//
// How a case is built: on each of the cube's 6 faces the crossed edges are joined into
// segments; a face with two diagonal inside corners always cuts each inside corner off on
// its own, a rule that depends only on that face's corners, so the two cells sharing a face
// agree and meshes are watertight. Each segment is oriented so that, seen from outside the
// cube, the inside lies to its right; segments chain into closed loops, and each loop is
// fan-triangulated. The fan's apex is chosen so that no diagonal lies in a cube face (the
// neighbouring cell could draw the same diagonal, making an edge of four triangles), and
// among those apexes the one whose smallest triangle is largest (vertices at edge midpoints).
#include <array>
#include <cstdint>

#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/host/buffer.hpp"

namespace voxen {

class Scheduler;

struct McCase {
  uint32_t triangleCount = 0;
  std::array<std::array<uint8_t, 3>, gpu::kMaxCaseTriangles> triangles{};  // edge indices
};

// The 256 cases (generated on first use; thread-safe).
const std::array<McCase, 256>& marchingCubesCases();

// Edge e's low and high corner (see the conventions above).
constexpr uint32_t edgeLowCorner(uint32_t e) {
  const uint32_t a = e / 4, j = e % 4;
  return ((j & 1u) << ((a + 1) % 3)) | ((j >> 1) << ((a + 2) % 3));
}
constexpr uint32_t edgeHighCorner(uint32_t e) { return edgeLowCorner(e) | (1u << (e / 4)); }

// The table as the GPU reads it (gpu::kCaseTableStride uints per case, frame_layout.h).
std::array<uint32_t, 256 * gpu::kCaseTableStride> flatCaseTable();

// Uploads flatCaseTable() to a new device buffer (FrameConstants::caseTable is its address).
Buffer uploadCaseTable(Scheduler& scheduler);

}  // namespace voxen
