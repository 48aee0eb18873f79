#pragma once
// Exports of any map layer, built-in or registered, driven by the fields its type declares
// (voxen/map/layer.hpp): the voxels that hold data in the layer as a PLY cloud with one
// property per field, and one height layer of one field as a heat-map PNG with a labelled
// colour bar. A voxel holds data in a layer when it is observed or its value there differs
// from the layer's initial value. Values are written as quantities: stored value x the
// field's scale (x the resolution for lengths counted in voxels), in the field's unit.
// Voxels whose value is not finite are left out and counted, so the outputs stay finite.
#include <cstdint>
#include <filesystem>
#include <string>

#include "voxen/export/map_export.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

// The layer of the map with this name; throws Error naming the map's layers when it has none,
// and naming the layer when it is opaque (a type this build does not know: no fields).
LayerId requireMapLayer(const OccupancyMap& map, const std::string& name);

// The PLY property type of a field: its own for 8- to 32-bit integers and floats, double for
// 64-bit integers (PLY has none) and for scaled fields.
const char* plyTypeOf(const LayerField& field);

// Binary little-endian PLY: x y z (float or double, metres) of each voxel centre, then one
// property per field (named as the field; "<layer>_<field>" for a field named x, y or z),
// with a comment per field giving its unit. Regions in key order, voxels x fastest. Written
// atomically. Returns the voxels written and those left out for a non-finite value.
ExportCounts exportLayerPly(const OccupancyMap& map, LayerId layer, const std::filesystem::path& path,
                            bool doublePrecision = false);

struct LayerSliceOptions {
  int32_t z = 0;         // voxel layer
  uint32_t scale = 0;    // pixels per voxel edge; 0: autoSliceScale
  std::string field;     // the field drawn; empty: the layer's first
  std::string mapName;   // named in the picture's title; empty: none
};

struct LayerSlice {
  SliceImage slice;       // bounds, scale and size of the map part (the legend lies below it)
  std::string field;      // the field drawn
  double min = 0.0, max = 0.0;  // of the finite quantities drawn (the colour scale's ends)
  uint64_t drawn = 0;     // voxels coloured
  uint64_t nonFinite = 0; // voxels holding a non-finite value: drawn magenta, left out of the scale
};

// The field's quantities of voxel layer z as a heat map (voxels without data grey,
// non-finite ones magenta) over the extent of the layer's data at every height, framed as
// exportSlicePng frames a slice (metre axes, a title naming the map, the layer, the field and
// z, the colour bar with round ticks and the unit, the swatches, the map_server YAML beside
// it). The clearance layer is drawn as exportClearancePng draws it (one palette). Throws
// Error for an unknown field (naming the layer's) or when no voxel of layer z holds data.
LayerSlice exportLayerSlicePng(const OccupancyMap& map, LayerId layer, const std::filesystem::path& path,
                               const LayerSliceOptions& options);

}  // namespace voxen
