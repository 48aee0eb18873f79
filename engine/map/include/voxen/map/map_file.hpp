#pragma once
// Map files (.vxm): a versioned little-endian binary format that saves an OccupancyMap and
// loads it back bit for bit: every region, every enabled layer, the model and the time
// origin.
//
// Layout, format version 2 (all integers and floats little-endian):
//   header, 68 bytes
//     0  char[8]  magic "VOXENMAP"
//     8  u32      format version (2)
//    12  f64      resolution (metres per voxel edge)
//    20  i32      region size (voxels per region edge)
//    24  f32 x5   hit probability, miss probability, occupancy threshold, clamp min, clamp max
//    44  u32      layer count L (1-16)
//    48  f64      time origin (seconds; the first integrated ray's time, for information)
//    56  u64      region count
//    64  u32      CRC32 of bytes [0, 64)
//   layer table, L entries of 44 bytes, in payload order (occupancy first):
//     0  char[32] layer name, NUL-padded (a layer type: voxen/map/layer.hpp)
//    32  u32      bytes per voxel
//    36  u32      element bytes (the unit each value is stored little-endian in)
//    40  u32      layer version
//   then u32      CRC32 of the layer table's entries
//   version 3 only: the derived settings, per layer in table order
//     0  u16      byte count B (at most kMapFileMaxSettingsBytes; 0: none)
//     2  char[B]  the settings the layer was computed with (OccupancyMap::derivedSettings:
//                 the clearance layer's range, technique, ...), UTF-8, no terminator
//   then u32      CRC32 of the derived settings' bytes
//   then `region count` blocks, in ascending key order (x, then y, then z):
//     0  i32 x3   region key
//    12  u32      uncompressed payload size in bytes
//    16  u32      compressed size in bytes
//    20  u32      CRC32 of bytes [0, 20) of this block header followed by the uncompressed payload
//    24  ...      zlib stream of the payload
//   payload: each layer's array in table order, n values of its bytes per voxel;
//   n = region size cubed, voxels x fastest, then y, then z.
//   The file ends right after the last block.
//
// Version 3 is written when a layer records derived settings, version 2 otherwise (so that a
// map without them stays readable by builds that read versions 1 and 2).
//
// Version 1 (still read, never written): the same fixed header with a layer bitmask at 44
// (LayerSet::builtinFlags bits), no layer table, and the payload occupancy f32[n], then for each set
// bit in order: voxel mean {u32 count, u32 sum[3]}[n], traversal u64[n], hits u32[n] then
// misses u32[n], touch time f32[n] in seconds after the header's time origin (0: never
// touched, or touched exactly at the origin). Every layer loads bit-exactly except touch
// time, which is converted to this build's absolute seconds (origin + value; 0 stays 0).
//
// A layer this build knows by name must match its version and size, or the file is refused
// with an error naming the layer. A layer whose name this build does not know loads as an
// opaque type (voxen/map/layer.hpp): its bytes are kept and saved back unchanged; the table
// entry's sizes are all that needs.
//
// saveMap writes a temporary file beside the target and renames it over the target, so a
// reader sees the old file or the new one, never half of one. Every error is a voxen::Error
// whose message names the file and what is wrong (bad magic, unsupported version, a
// truncated header or region with its byte offset, a checksum or decompression failure with
// the region's key, inconsistent sizes, an invalid model field).
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "voxen/map/map.hpp"

namespace voxen {

inline constexpr char kMapFileMagic[8] = {'V', 'O', 'X', 'E', 'N', 'M', 'A', 'P'};
inline constexpr uint32_t kMapFileVersion = 3;    // the newest, written with derived settings; versions 1 to 3 are read
inline constexpr uint64_t kMapFileMaxSettingsBytes = 1024;
inline constexpr uint64_t kMapFileHeaderBytes = 68;  // the fixed header (version 2: the layer table follows)
inline constexpr uint64_t kMapFileLayerEntryBytes = 44;
inline constexpr uint64_t kMapFileBlockHeaderBytes = 24;

struct MapSaveOptions {
  int compressionLevel = 1;  // zlib level 0-9 (1: fastest; see map_file.cpp for measurements)
  unsigned threads = 0;      // regions compressed in parallel; 0: one per hardware thread
};

struct MapLoadOptions {
  unsigned threads = 0;  // regions decompressed in parallel; 0: one per hardware thread
  // Host bytes the loaded map may take (regions x bytes per region, known from the file's
  // block headers): a larger map is refused before any region is allocated. `budgetHint`
  // ends that error message.
  uint64_t memoryBudgetBytes = UINT64_MAX;
  std::string budgetHint;
  // Refuse a region holding a value its layer cannot hold (voxen/map/layer_domain.hpp) with
  // an Error naming the layer, region and voxel. Off: load it as it is (checksums are still
  // verified), for a caller that reports every such value itself (voxen info --verify).
  bool refuseImpossibleValues = true;
};

void saveMap(const OccupancyMap& map, const std::filesystem::path& path, const MapSaveOptions& options = {});
OccupancyMap loadMap(const std::filesystem::path& path, const MapLoadOptions& options = {});

// Bytes one voxel takes in a region payload (and in memory) with occupancy and these layers.
uint64_t bytesPerVoxel(LayerSet layers);

// What a map file holds, read from its header and block headers without decompressing.
struct MapFileInfo {
  struct RegionEntry {
    RegionKey key;
    uint64_t offset = 0;  // byte offset of the block header in the file
    uint32_t uncompressedBytes = 0;
    uint32_t compressedBytes = 0;
    uint32_t crc32 = 0;
  };
  uint32_t version = 0;
  OccupancyModel model;
  MapLayout layout;
  LayerSet layers;           // the layout's layers besides occupancy
  uint64_t headerBytes = 0;  // bytes before the first region block (header and layer table)
  // The file's touch_time version: 1 (format version 1: float seconds after the time origin)
  // is converted on load to version 2 (absolute seconds, a double); 0: no touch-time layer.
  uint32_t touchTimeVersion = 0;
  double timeOrigin = 0.0;
  // Per layer id: the settings a derived layer was computed with (version 3; else empty).
  PerLayer<std::string> derivedSettings;
  uint64_t fileBytes = 0;
  std::vector<RegionEntry> regions;  // in file order

  uint64_t compressedBytes() const;    // sum over the regions' zlib streams
  uint64_t uncompressedBytes() const;  // sum over the regions' payloads
  // Bytes the loaded map's voxel arrays take in memory.
  uint64_t memoryBytes() const { return uncompressedBytes(); }
  // Inclusive region-key bounds; false when the map has no region.
  bool regionBounds(RegionKey& min, RegionKey& max) const;
};

// Checks the header and every block header (sizes, truncation, duplicate keys); does not
// decompress or verify the payload checksums (loadMap does).
MapFileInfo readMapInfo(const std::filesystem::path& path);

// A map file read region by region, so that a caller that streams (voxen merge) holds one
// region at a time rather than the whole map: the header and block headers are checked on
// open (as readMapInfo does), each region is decompressed and checked (checksum, impossible
// values) when it is read, with loadMap's errors.
class MapFileRegionReader {
 public:
  explicit MapFileRegionReader(const std::filesystem::path& path);
  MapFileRegionReader(MapFileRegionReader&&) noexcept;
  MapFileRegionReader& operator=(MapFileRegionReader&&) noexcept;
  ~MapFileRegionReader();

  const MapFileInfo& info() const;
  // An empty map with the file's model, layout, time origin and derived settings.
  const OccupancyMap& shape() const;
  // The region at `key`, or nullopt when the file holds none there.
  std::optional<Region> read(const RegionKey& key);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen
