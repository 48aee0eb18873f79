#pragma once
// OctoMap interoperability: read and write OctoMap's binary OcTree files (.bt), the format of
// OcTree::writeBinary / readBinary, which octovis, octomap_server and the ROS tools load.
//
// A .bt file holds a text header and a depth-first dump of a 16-level octree in which every
// node spends two bits per child: unknown, free leaf, occupied leaf or inner node. It carries
// voxel classes only (OctoMap converts to "maximum likelihood" before writing), so log-odds,
// layers and touch times do not survive the trip. Voxel (x, y, z) of a Voxen map is OctoMap
// key (x + 32768, y + 32768, z + 32768) at the same resolution: both put voxel v's centre at
// (v + 0.5) * resolution, so positions line up exactly.
#include <cstdint>
#include <filesystem>
#include <string>

#include "voxen/export/map_export.hpp"
#include "voxen/map/map.hpp"
#include "voxen/map/memory_budget.hpp"

namespace voxen {

// Writes the map's observed voxels as a pruned OctoMap binary tree: occupied and free leaves
// at the finest level, eight equal sibling leaves merged into one leaf at their parent (as
// OctoMap's prune() does; the root is never a leaf). Unobserved voxels are left unknown.
// Throws Error when an observed voxel lies outside OctoMap's key range (voxel indices
// -32768..32767 on each axis) or the file cannot be written. Returns the leaves written before
// pruning (observed voxels) and the voxels left out for a NaN or -inf value.
ExportCounts exportOctomap(const OccupancyMap& map, const std::filesystem::path& path);

// Reads an OctoMap binary OcTree file. The map takes its resolution from the file and every
// other setting (region size, probabilities, clamps) from `base`. Occupied leaves become
// base.clampMax and free leaves base.clampMin; a leaf above the finest level sets every voxel
// it covers. Throws Error for an unreadable file, a bad header, a tree type other than OcTree
// (ColorOcTree, OcTreeStamped, ...), a resolution <= 0, truncated or inconsistent data, or a
// tree that would expand to more than kMaxOctomapImportVoxels voxels or past limits.memoryBudgetBytes.
// How much an import may expand: the tree's leaves, then the map's regions, are counted and
// checked against the budget before they are allocated. `hint` ends the error message.
struct OctomapImportLimits {
  uint64_t memoryBudgetBytes = defaultMemoryBudgetBytes();
  std::string hint = "a larger memory budget is needed";
};
OccupancyMap importOctomap(const std::filesystem::path& path, const OccupancyModel& base = OccupancyModel::octomap(),
                           const OctomapImportLimits& limits = {});

// Upper bound on the voxels an import may expand to (pruned leaves high in the tree cover
// huge volumes; Voxen stores every voxel densely).
inline constexpr uint64_t kMaxOctomapImportVoxels = uint64_t(1) << 31;

}  // namespace voxen
