#pragma once
// An NDT map's Gaussians as a mesh for MeshLab or CloudCompare: one small ellipsoid per
// voxel with a Gaussian (the k-sigma surface of its mean and covariance), coloured by the
// voxel's occupancy probability.
#include <array>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "voxen/export/map_export.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

struct EllipsoidOptions {
  uint32_t minSamples = 3;       // voxels with fewer samples are left out
  double sigma = 2.0;            // the surface drawn: (x - mean)^T P^-1 (x - mean) = sigma^2
  bool doublePrecision = false;  // vertex x y z as double (default float)
};

// The colour of occupancy probability p in [0, 1]: blue (free) through white (0.5) to red
// (occupied), the same for every export of ellipsoids.
void occupancyColour(double p, uint8_t rgb[3]);

// Binary little-endian PLY: per ellipsoid 42 vertices (x y z, uchar red green blue) of an
// icosphere mapped by x = mean + sigma * S u (S the covariance's square root, so no
// eigen-decomposition), and 80 triangles (list uchar int vertex_indices). Regions in key
// order, voxels x fastest. Written atomically. Returns the number of ellipsoids written, and
// of those left out because a vertex would not be finite (a non-finite covariance, or one so
// large that a vertex overflows the coordinates' type). Throws Error when the map has no NDT
// covariance layer (naming what it has).
ExportCounts exportNdtEllipsoidsPly(const OccupancyMap& map, const std::filesystem::path& path,
                                const EllipsoidOptions& options = {});

// The unit icosphere the ellipsoids are made of (12 vertices subdivided once: 42 vertices,
// 80 triangles, outward winding).
struct UnitSphereMesh {
  std::vector<glm::dvec3> vertices;
  std::vector<std::array<uint32_t, 3>> triangles;
};
const UnitSphereMesh& unitIcosphere();

}  // namespace voxen
