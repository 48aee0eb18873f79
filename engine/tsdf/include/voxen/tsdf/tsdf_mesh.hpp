#pragma once
// Triangle meshes of a TSDF (the map's `tsdf` layer, voxen/tsdf/tsdf.hpp): marching cubes at
// iso level 0 over the voxel centres, with the painter's case table (marching_cubes_table.hpp).
//
//   voxen::TsdfMesh mesh = voxen::meshTsdfCpu(map, voxen::TsdfMeshOptions{.minWeight = 1.0});
//   voxen::writeTsdfMeshPly(mesh, "room.ply");          // MeshLab, CloudCompare
//   voxen::TsdfMeshTracker live;                        // incremental: re-meshes changed blocks only
//   live.update(map);                                   // after each frame; live.mesh() is current
//
// The model, stated once (the GPU mesher must produce the same integers):
// - A cell is 8 neighbouring voxel centres, corner k at the cell's lower voxel + (k & 1,
//   (k >> 1) & 1, (k >> 2) & 1), anywhere in the map (across blocks and regions). It is meshed
//   when every corner's weight is at least the threshold (TsdfMeshOptions::minWeight, never
//   below one weight unit: unobserved voxels never count) and, with a box, every corner's
//   centre lies in the box. Corner k is inside (case bit k) when its distance is negative
//   (behind the surface); triangles face from inside to outside, toward the camera.
// - A vertex belongs to a voxel edge: its lower voxel a and axis; b = a + that axis. One
//   vertex per crossed edge in the whole mesh (welded across cells, blocks and regions).
// - Its crossing, exact in fixed point from the integer distances: with da < 0 <= db or
//   db < 0 <= da, t = round(|da| * 65536 / |da - db|) (halves up), 0..65536, in 1/65536 of a
//   voxel from a toward b. Integers, so every device gets the same t; a float division would
//   not (GLSL's division is not correctly rounded).
// - Its position: centre(a) + t / 65536 voxel along the axis, computed in double, stored as
//   float metres.
// - Its normal: the TSDF's gradient, central differences at each end, g_i(v) = d(v + e_i) -
//   d(v - e_i), or 2 (d(v + e_i) - d(v)) / 2 (d(v) - d(v - e_i)) when only one neighbour
//   counts (weight threshold as above), 0 when neither; interpolated in integers,
//   G = g(a) (65536 - t) + g(b) t, normalised in double and stored as float. It points from
//   behind the surface to the front (outward). G = 0: the edge's axis, toward its outside end.
// - Its colour, when the map has the tsdf_colour layer (shaders/map/tsdf_colour_layer.h): the
//   colours of a and b interpolated at t in integers, as the gradient is: per channel
//   round((c(a) (65536 - t) + c(b) t) / 65536), halves up (gpu::tsdfMeshVertexColour); a voxel
//   no coloured frame reached (colour weight 0) gives way to the other, and neither gives black.
// - Order (deterministic, any thread count): vertices sorted by edge (z, y, x, axis of the
//   lower voxel); faces block by block (the blocks of 8^3 cells holding their lower voxels,
//   in TsdfBlock's order: x, then y, then z), cells x fastest within a block, triangles in
//   the table's order.
//
// Threads: meshTsdfCpu reads the map from `threads` workers (0: the hardware's count) and
// changes nothing; a TsdfMeshTracker is used from one thread at a time, while no one changes
// the map.
#include <compare>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/map/map.hpp"

namespace voxen {

// An axis-aligned box in metres.
struct TsdfMeshBox {
  glm::dvec3 min{0.0}, max{0.0};
  bool operator==(const TsdfMeshBox&) const = default;
};

struct TsdfMeshOptions {
  double minWeight = 0.0;           // measurements a corner needs (0: observed at all)
  std::optional<TsdfMeshBox> box;   // only cells whose corners' centres lie inside
  uint32_t threads = 0;             // meshTsdfCpu's workers (0: hardware concurrency)
  // Throws SettingError naming TsdfMeshOptions::minWeight or TsdfMeshOptions::box.
  void validate() const;
  bool operator==(const TsdfMeshOptions&) const = default;
};

// The edge a vertex lies on: its lower voxel and its axis (0 x, 1 y, 2 z).
struct TsdfEdge {
  int32_t z = 0, y = 0, x = 0;  // compared in this order: the canonical vertex order
  uint32_t axis = 0;
  auto operator<=>(const TsdfEdge&) const = default;
};

struct TsdfMesh {
  std::vector<TsdfEdge> edges;          // per vertex, sorted, each once
  std::vector<glm::vec3> positions;     // metres
  std::vector<glm::vec3> normals;       // unit, outward
  std::vector<glm::u8vec3> colours;     // red, green, blue per vertex when the map has the tsdf_colour layer, else empty
  std::vector<glm::uvec3> faces;        // vertex indices, counter-clockwise seen from outside
  double resolution = 0.0;
};

// The CPU reference (the model above). Throws SettingError (TsdfMeshOptions::validate) and
// Error when the map has no tsdf layer.
TsdfMesh meshTsdfCpu(const OccupancyMap& map, const TsdfMeshOptions& options = {});

// Binary little-endian PLY: float x y z nx ny nz (uchar red green blue when coloured), faces
// as `list uchar uint vertex_indices`; written atomically (a failed write leaves no file).
void writeTsdfMeshPly(const TsdfMesh& mesh, const std::filesystem::path& path);

struct TsdfMeshUpdate {
  uint64_t blocksMeshed = 0;   // blocks whose cells were meshed again
  uint64_t blocksKept = 0;     // blocks whose triangles were kept
  bool whole = false;          // the first update, new options, another map, or the map gained or lost tsdf_colour: everything
};

class Scheduler;

// Keeps a TSDF's mesh current as its map changes: update() re-meshes only the blocks of the
// regions changed since the last update (the map's region stamps, regions made or gone) and
// the blocks next to them (whose cells or normals reach into them), keeps the rest, and welds
// the whole again. The mesh equals meshTsdfCpu's of the map as it is now, byte for byte.
// The blocks are meshed by the CPU reference, or on the GPU (voxen/tsdf/gpu_tsdf_mesh.hpp)
// with a scheduler: the same mesh.
class TsdfMeshTracker {
 public:
  explicit TsdfMeshTracker(TsdfMeshOptions options = {});
  // On the GPU: `cacheBytes` of device memory hold the changed blocks' regions and neighbours.
  explicit TsdfMeshTracker(Scheduler& scheduler, TsdfMeshOptions options = {}, uint64_t cacheBytes = 256ull << 20);
  ~TsdfMeshTracker();
  TsdfMeshTracker(TsdfMeshTracker&&) noexcept;
  TsdfMeshTracker& operator=(TsdfMeshTracker&&) noexcept;

  TsdfMeshUpdate update(const OccupancyMap& map);
  const TsdfMesh& mesh() const;
  const TsdfMeshOptions& options() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace voxen
