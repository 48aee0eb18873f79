// Occupancy from the TSDF's surface: observed-by-frames, unobserved-by-rays voxels set
// occupied on and behind the surface, free in front (tsdf_occupancy.hpp).
#include "voxen/tsdf/tsdf_occupancy.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <cmath>
#include <vector>

#include "voxen/gpu/map/tsdf_layer.h"
#include "voxen/host/error.hpp"
#include "voxen/host/parallel_for.hpp"

namespace voxen {

TsdfOccupancyStats occupancyFromTsdf(OccupancyMap& map, double minWeight) {
  if (!map.layers().has(kTsdfLayer)) throw Error("the map has no 'tsdf' layer: no surface to take occupancy from");
  const uint32_t least = uint32_t(std::max(1.0, std::ceil(minWeight * gpu::kTsdfWeightUnit)));
  const float occupied = map.model().clampMax, free = map.model().clampMin;
  std::vector<Region*> regions;
  for (const auto& [key, region] : map.regions()) regions.push_back(map.findRegion(key));
  std::atomic<uint64_t> occupiedCount{0}, freeCount{0};
  std::vector<uint8_t> changed(regions.size(), 0);
  parallelFor(regions.size(), [&](size_t r) {
    const std::span<const gpu::TsdfVoxel> tsdf = std::as_const(*regions[r]).values<gpu::TsdfVoxel>(kTsdfLayer);
    const std::span<float> occupancy = regions[r]->occupancy();
    uint64_t o = 0, f = 0;
    for (size_t i = 0; i < tsdf.size(); ++i) {
      if (tsdf[i].weight < least || isObserved(occupancy[i])) continue;
      const bool inside = tsdf[i].distance <= 0;
      occupancy[i] = inside ? occupied : free;
      ++(inside ? o : f);
    }
    occupiedCount += o;
    freeCount += f;
    changed[r] = (o + f) > 0;
  });
  for (size_t r = 0; r < regions.size(); ++r)
    if (changed[r]) map.markOccupancyChanged(*regions[r]);
  return {occupiedCount, freeCount};
}

}  // namespace voxen

namespace voxen {

namespace {

// The band's half-width in distance units (1/65536 voxel), from the tsdf layer's recorded
// settings ("truncation_voxels=4;..."), or 0 when they are not recorded.
int64_t recordedBand(const OccupancyMap& map) {
  const std::string settings = map.derivedSettings(kTsdfLayer);
  const std::string key = "truncation_voxels=";
  const size_t at = settings.find(key);
  if (at == std::string::npos) return 0;
  const double voxels = std::strtod(settings.c_str() + at + key.size(), nullptr);
  return voxels > 0.0 ? int64_t(std::llround(voxels * double(gpu::kTsdfFine))) : 0;
}

}  // namespace

TsdfClearanceStats refineClearanceFromTsdf(OccupancyMap& map, double rangeMetres, double minWeight) {
  if (!map.layers().has(kTsdfLayer)) throw Error("the map has no 'tsdf' layer: no surface to refine the clearance with");
  if (!map.layers().has(kClearanceLayer)) throw Error("the map has no clearance layer to refine (compute the clearance first)");
  const int64_t band = recordedBand(map);
  if (band == 0) throw Error("the map's tsdf layer does not record its truncation: the clearance cannot tell clipped distances");
  const uint32_t least = uint32_t(std::max(1.0, std::ceil(minWeight * gpu::kTsdfWeightUnit)));
  const int32_t n = map.regionSize();
  const double resolution = map.model().resolution;
  std::vector<Region*> regions;
  for (const auto& [key, region] : map.regions()) regions.push_back(map.findRegion(key));
  const OccupancyMap& shape = map;
  // A voxel's TSDF anywhere in the map, when it counts: weight enough, not clipped.
  auto usable = [&](const Region& home, int32_t x, int32_t y, int32_t z, int64_t& distance, uint32_t& weight) {
    const Region* r = &home;
    if (x < 0 || y < 0 || z < 0 || x >= n || y >= n || z >= n) {
      const RegionKey key{home.key.x + floorDiv(x, n), home.key.y + floorDiv(y, n), home.key.z + floorDiv(z, n)};
      r = shape.findRegion(key);
      if (!r) return false;
      x -= floorDiv(x, n) * n, y -= floorDiv(y, n) * n, z -= floorDiv(z, n) * n;
    }
    const gpu::TsdfVoxel v = r->values<gpu::TsdfVoxel>(kTsdfLayer)[size_t(x + n * (y + n * z))];
    distance = v.distance, weight = v.weight;
    return v.weight >= least && std::abs(distance) < band;
  };
  std::atomic<uint64_t> refined{0};
  parallelFor(regions.size(), [&](size_t k) {
    Region& region = *regions[k];
    const std::span<float> clearance = region.values<float>(kClearanceLayer);
    uint64_t count = 0;
    for (int32_t z = 0; z < n; ++z)
      for (int32_t y = 0; y < n; ++y)
        for (int32_t x = 0; x < n; ++x) {
          int64_t d = 0, lo = 0, hi = 0;
          uint32_t w = 0, wLo = 0, wHi = 0;
          if (!usable(region, x, y, z, d, w) || d <= 0) continue;
          double g2 = 0.0;
          bool whole = true;
          for (int axis = 0; axis < 3 && whole; ++axis) {
            const int32_t dx = axis == 0, dy = axis == 1, dz = axis == 2;
            // Equal weights: the same frames (as many) folded into all 7, so the field is one
            // average of projective distances, linear across them on a plane.
            whole = usable(region, x + dx, y + dy, z + dz, hi, wHi) && usable(region, x - dx, y - dy, z - dz, lo, wLo) &&
                    wHi == w && wLo == w;
            const double g = 0.5 * double(hi - lo);
            g2 += g * g;
          }
          if (!whole) continue;
          const double fine = double(gpu::kTsdfFine);
          const double metres = double(d) / std::max(fine, std::sqrt(g2)) * resolution;
          float& c = clearance[size_t(x + n * (y + n * z))];
          const float s = float(metres);
          if ((c < 0.0f && metres <= rangeMetres) || (c > 0.0f && s < c)) c = s, ++count;
        }
    refined += count;
  });
  return {refined};
}

}  // namespace voxen
