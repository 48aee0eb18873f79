// Map files (.vxm): bit-exact round trips for every layer combination, and a clear Error
// for every kind of damage: truncation anywhere, flipped payload bytes, bad magic, a future
// version, invalid model fields, inconsistent sizes.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "support/gpu_fixture.hpp"  // vt::Rng
#include "support/binary_file.hpp"
#include "support/temp_dir.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/map/layer_domain.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/host/error.hpp"

using namespace voxen;

namespace {

using vt::loadError;

using vt::crc32Of;
using vt::patch32;
using vt::read32;
using vt::readBytes;
using vt::writeBytes;

template <typename T>
void fillRandom(std::span<T> values, vt::Rng& rng) {
  for (T& v : values) {
    uint64_t bits = rng.next();
    // Through void*: the layer types (HitMiss has default member values) are plain bytes here.
    std::memcpy(static_cast<void*>(&v), &bits, std::min(sizeof(T), sizeof bits));
  }
}

// Regions whose arrays hold arbitrary bit patterns where a layer allows any (traversal,
// hit/miss counts), and arbitrary possible values elsewhere (occupancy: negative zeros,
// denormals, any float within the clamp range; finite touch times from 0; mean sums within their
// counts), mixed with runs of plausible values, so that bit-exactness and compression are
// both exercised. (Impossible values are refused on save and load: see the test below.)
OccupancyMap randomMap(vt::Rng& rng, LayerSet layers, const std::vector<RegionKey>& keys, OccupancyModel model = {}) {
  OccupancyMap map(model, layers);
  map.setTimeOrigin(1.7e9 + double(rng.u32()) / 7.0);
  for (const RegionKey& key : keys) {
    Region& r = map.region(key);
    for (float& v : r.occupancy()) {
      const uint64_t pick = rng.range(0, 9);
      if (pick < 4) continue;  // unobserved
      if (pick < 6) v = model.clampMin;
      else if (pick < 8) v = float(int(rng.range(0, 40)) - 20) * 0.1f;
      else if (pick < 9) v = rng.chance(50) ? -0.0f : std::numeric_limits<float>::denorm_min() * float(rng.range(1, 1000));
      else v = model.clampMin + (model.clampMax - model.clampMin) * float(rng.u32() >> 8) / float(1u << 24);
    }
    for (VoxelMean& m : r.mean()) {
      m.count = uint32_t(rng.range(0, 1u << 20));
      for (uint32_t& sum : m.sum) sum = uint32_t(rng.range(0, uint64_t(m.count) * 1023u));
    }
    fillRandom(r.traversal(), rng);
    fillRandom(r.hitMiss(), rng);
    for (double& t : r.touchTime()) {
      const uint64_t bits = rng.next() & 0x3FFFFFFFFFFFFFFFull;  // no sign, exponent below all-ones: finite, at least 0
      std::memcpy(&t, &bits, 8);
    }
  }
  return map;
}

// Plausible, compressible regions (a few hundred bytes each once compressed), for the tests
// that rewrite a file once per byte: this file system takes milliseconds per small write.
OccupancyMap structuredMap(vt::Rng& rng, LayerSet layers, const std::vector<RegionKey>& keys, OccupancyModel model) {
  OccupancyMap map(model, layers);
  map.setTimeOrigin(1234.5);
  for (const RegionKey& key : keys) {
    Region& r = map.region(key);
    for (uint32_t i = 0; i < r.occupancy().size(); ++i) {
      const VoxelCoord v = map.voxelOf(key, i);
      if (v.z % model.regionSize < model.regionSize / 2) r.occupancy()[i] = rng.chance(90) ? model.clampMin : model.clampMax;
      if (!r.mean().empty()) r.mean()[i].count = uint32_t(rng.range(0, 2));
      if (!r.touchTime().empty()) r.touchTime()[i] = float(rng.range(0, 3));
      if (!r.hitMiss().empty()) r.hitMiss()[i].hits = uint32_t(rng.range(0, 1));
    }
  }
  return map;
}

template <typename T>
bool sameBits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

void requireSameMap(const OccupancyMap& a, const OccupancyMap& b) {
  const OccupancyModel &ma = a.model(), &mb = b.model();
  CHECK(sameBits(ma.resolution, mb.resolution));
  CHECK(ma.regionSize == mb.regionSize);
  CHECK(sameBits(ma.hitProbability, mb.hitProbability));
  CHECK(sameBits(ma.missProbability, mb.missProbability));
  CHECK(sameBits(ma.occupancyThreshold, mb.occupancyThreshold));
  CHECK(sameBits(ma.clampMin, mb.clampMin));
  CHECK(sameBits(ma.clampMax, mb.clampMax));
  CHECK(a.layers() == b.layers());
  CHECK(sameBits(a.timeOrigin(), b.timeOrigin()));
  REQUIRE(a.regions().size() == b.regions().size());
  for (const auto& [key, ra] : a.regions()) {
    INFO("region (" << key.x << "," << key.y << "," << key.z << ")");
    const Region* rb = b.findRegion(key);
    REQUIRE(rb != nullptr);
    CHECK(rb->key == key);
    // Every layer's bytes (occupancy, voxel mean, traversal, hit/miss, touch time, and any
    // other registered layer), absent layers included.
    for (uint32_t i = 0; i < kMaxLayers; ++i) {
      const LayerId id(i);
      INFO("layer " << i);
      CHECK(ra.layers[id] == rb->layers[id]);
    }
  }
}

std::string infoError(const std::filesystem::path& path) {
  try {
    readMapInfo(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Bytes before the first region block of a version 2 file: the fixed header, the layer
// table and its checksum.
uint64_t headerBytes(const OccupancyMap& map) {
  return kMapFileHeaderBytes + map.layout().ids().size() * kMapFileLayerEntryBytes + 4;
}

constexpr LayerSet kAllLayers = kAllBuiltinLayers;

OccupancyModel smallModel(int32_t regionSize) {
  OccupancyModel m = OccupancyModel::octomap();
  m.resolution = 0.05;
  m.regionSize = regionSize;
  m.occupancyThreshold = 0.6f;
  return m;
}

void patchFloat(std::vector<uint8_t>& bytes, size_t at, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  patch32(bytes, at, bits);
}
void fixHeaderCrc(std::vector<uint8_t>& bytes) { patch32(bytes, 64, crc32Of(bytes.data(), 64)); }

}  // namespace

TEST_CASE("Map files round-trip bit-exactly for every layer combination", "[mapfile]") {
  vt::TempDir dir("mapfile");
  vt::Rng rng(7);
  const std::vector<RegionKey> keys = {{0, 0, 0}, {-1, -1, -1}, {3, -7, 2}, {-100000, 5, -3}, {12, 0, -1}};
  for (uint32_t bits = 0; bits <= kAllLayers.builtinFlags(); ++bits) {
    const LayerSet layers = LayerSet::fromBuiltinFlags(bits);
    INFO("layers " << layerNames(layers));
    const OccupancyMap map = randomMap(rng, layers, keys, smallModel(8));
    const auto path = dir / ("map" + std::to_string(bits) + ".vxm");
    saveMap(map, path);
    const OccupancyMap loaded = loadMap(path);
    requireSameMap(map, loaded);
    // Saving the loaded map again gives the same bytes: nothing was dropped or reordered.
    const auto again = dir / "again.vxm";
    saveMap(loaded, again);
    CHECK(readBytes(path) == readBytes(again));
    // The file is exactly header + block headers + zlib streams.
    const MapFileInfo info = readMapInfo(path);
    CHECK(info.layers == layers);
    CHECK(info.layout == map.layout());
    CHECK(info.regions.size() == keys.size());
    CHECK(info.headerBytes == headerBytes(map));
    CHECK(info.fileBytes == info.headerBytes + keys.size() * kMapFileBlockHeaderBytes + info.compressedBytes());
    CHECK(info.uncompressedBytes() == keys.size() * 512 * bytesPerVoxel(layers));
  }
}

TEST_CASE("Map files keep the default model, empty maps and extreme keys", "[mapfile]") {
  vt::TempDir dir("mapfile");
  vt::Rng rng(11);
  SECTION("empty map, default model") {
    OccupancyMap map;
    map.setTimeOrigin(-12.25);
    saveMap(map, dir / "empty.vxm");
    const OccupancyMap loaded = loadMap(dir / "empty.vxm");
    requireSameMap(map, loaded);
    CHECK(readMapInfo(dir / "empty.vxm").fileBytes == headerBytes(map));
    RegionKey lo, hi;
    CHECK_FALSE(readMapInfo(dir / "empty.vxm").regionBounds(lo, hi));
  }
  SECTION("32^3 regions with extreme keys, all layers") {
    // The extremes whose voxels still have int32 coordinates (keys beyond are refused).
    const int32_t kMin = INT32_MIN / 32, kMax = INT32_MAX / 32;
    const std::vector<RegionKey> keys = {{kMin, kMax, 0}, {-1, 0, 1}, {kMax, kMin, kMin}};
    const OccupancyMap map = randomMap(rng, kAllLayers, keys);
    saveMap(map, dir / "big.vxm");
    requireSameMap(map, loadMap(dir / "big.vxm", {.threads = 3}));
    const MapFileInfo info = readMapInfo(dir / "big.vxm");
    RegionKey lo, hi;
    REQUIRE(info.regionBounds(lo, hi));
    CHECK(lo == RegionKey{kMin, kMin, kMin});
    CHECK(hi == RegionKey{kMax, kMax, 1});
    // Blocks come in ascending key order, each right after the previous one.
    uint64_t offset = info.headerBytes;
    for (size_t i = 0; i < info.regions.size(); ++i) {
      CHECK(info.regions[i].offset == offset);
      offset += kMapFileBlockHeaderBytes + info.regions[i].compressedBytes;
      if (i) CHECK(info.regions[i - 1].key < info.regions[i].key);
    }
  }
  SECTION("thread count and compression level change speed and size, not content") {
    const OccupancyMap map = randomMap(rng, LayerSet{kHitMissLayer}, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {5, 5, 5}}, smallModel(16));
    saveMap(map, dir / "one.vxm", {.compressionLevel = 1, .threads = 1});
    saveMap(map, dir / "many.vxm", {.compressionLevel = 1, .threads = 4});
    saveMap(map, dir / "best.vxm", {.compressionLevel = 9, .threads = 2});
    CHECK(readBytes(dir / "one.vxm") == readBytes(dir / "many.vxm"));
    requireSameMap(map, loadMap(dir / "best.vxm", {.threads = 1}));
    CHECK_THROWS_WITH(saveMap(map, dir / "bad.vxm", {.compressionLevel = 10}), Catch::Contains("compression level 10"));
  }
}

TEST_CASE("Map files compress structured regions", "[mapfile]") {
  vt::TempDir dir("mapfile");
  OccupancyMap map;  // 32^3, occupancy only
  Region& r = map.region({0, 0, 0});
  for (uint32_t i = 0; i < r.occupancy().size(); ++i) {
    const VoxelCoord v = map.voxelOf(r.key, i);
    if (v.z < 10) r.occupancy()[i] = map.model().clampMin;      // free below a floor
    else if (v.z == 10) r.occupancy()[i] = map.model().clampMax;  // the floor
  }
  saveMap(map, dir / "floor.vxm");
  const MapFileInfo info = readMapInfo(dir / "floor.vxm");
  CHECK(info.uncompressedBytes() == 32 * 32 * 32 * 4);
  CHECK(info.compressedBytes() * 50 < info.uncompressedBytes());
  requireSameMap(map, loadMap(dir / "floor.vxm"));
}

TEST_CASE("A truncated map file is reported as truncated at every length", "[mapfile]") {
  vt::TempDir dir("mapfile");
  vt::Rng rng(3);
  const OccupancyMap map = structuredMap(rng, kAllLayers, {{0, 0, 0}, {-1, 2, -3}, {4, 4, 4}}, smallModel(4));
  saveMap(map, dir / "full.vxm");
  const std::vector<uint8_t> full = readBytes(dir / "full.vxm");
  const MapFileInfo info = readMapInfo(dir / "full.vxm");
  REQUIRE(full.size() > 250);
  const auto cut = dir / "cut.vxm";
  for (size_t length = 0; length < full.size(); ++length) {
    writeBytes(cut, std::vector<uint8_t>(full.begin(), full.begin() + ptrdiff_t(length)));
    const std::string error = loadError(cut);
    INFO("length " << length << ": " << error);
    REQUIRE(contains(error, "truncated"));
    REQUIRE(contains(error, cut.string()));
    REQUIRE(contains(infoError(cut), "truncated"));
    // A cut inside the blocks names the region it cut into and where that region starts.
    if (length >= info.headerBytes) {
      size_t index = 0;
      while (index + 1 < info.regions.size() && info.regions[index + 1].offset <= length) ++index;
      REQUIRE(contains(error, "region " + std::to_string(index) + " of 3"));
      REQUIRE(contains(error, "byte offset " + std::to_string(info.regions[index].offset)));
    } else {
      REQUIRE(contains(error, "header"));
    }
  }
  // And bytes after the last region are not silently ignored either.
  std::vector<uint8_t> longer = full;
  longer.push_back(0);
  writeBytes(cut, longer);
  CHECK(contains(loadError(cut), "1 unexpected bytes after the last of 3 regions"));
}

TEST_CASE("A damaged region payload is caught and names the region", "[mapfile]") {
  vt::TempDir dir("mapfile");
  vt::Rng rng(5);
  const std::vector<RegionKey> keys = {{-2, 7, 1}, {0, 0, 0}, {9, -9, 9}};
  const OccupancyMap map = structuredMap(rng, kTouchTimeLayer | kVoxelMeanLayer, keys, smallModel(8));
  saveMap(map, dir / "good.vxm");
  const std::vector<uint8_t> good = readBytes(dir / "good.vxm");
  const MapFileInfo info = readMapInfo(dir / "good.vxm");
  const auto bad = dir / "bad.vxm";

  SECTION("any flipped byte of the zlib stream") {
    size_t harmless = 0, flips = 0;
    for (size_t r = 0; r < info.regions.size(); ++r) {
      const auto& e = info.regions[r];
      std::ostringstream keyText;  // (GCC 12 warns falsely on "(" + std::string)
      keyText << "(" << e.key.x << "," << e.key.y << "," << e.key.z << ")";
      const std::string key = keyText.str();
      // Every byte of the first region's stream, then a sample of the others'.
      const size_t step = r == 0 ? 1 : 7;
      for (size_t at = 0; at < e.compressedBytes; at += step) {
        std::vector<uint8_t> bytes = good;
        bytes[e.offset + kMapFileBlockHeaderBytes + at] ^= 0x5A;
        ++flips;
        writeBytes(bad, bytes);
        const std::string error = loadError(bad);
        INFO("region " << r << " stream byte " << at << ": " << error);
        if (error == "<no error>") {
          // Deflate is not canonical: a flip in a Huffman table entry no symbol uses can
          // decode to the very same bytes. Then the checksums pass because nothing was lost.
          requireSameMap(map, loadMap(bad));
          ++harmless;
          continue;
        }
        REQUIRE((contains(error, "checksum mismatch in region " + key) || contains(error, "decompression failed in region " + key)));
        REQUIRE(contains(error, "byte offset " + std::to_string(e.offset)));
        // readMapInfo reads block headers only: the damage is invisible to it.
        REQUIRE(infoError(bad) == "<no error>");
      }
    }
    CHECK(harmless * 100 < flips);  // nearly every flip changes the payload
  }
  SECTION("a damaged key, stored checksum or size in a block header") {
    const auto& e = info.regions[1];
    std::vector<uint8_t> bytes = good;
    bytes[e.offset + 4] ^= 0x01;  // key y 0 -> 1: the region would move; the checksum covers the key
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "checksum mismatch in region (0,1,0)"));
    bytes = good;
    bytes[e.offset + 20] ^= 0x80;  // stored CRC
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "checksum mismatch in region (0,0,0) (region 1 of 3"));
    bytes = good;
    patch32(bytes, e.offset + 12, read32(bytes, e.offset + 12) + 4);  // payload size
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "inconsistent sizes in region (0,0,0)"));
    CHECK(contains(infoError(bad), "inconsistent sizes in region (0,0,0)"));
    bytes = good;
    patch32(bytes, e.offset + 16, 0);  // compressed size
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "inconsistent sizes in region (0,0,0)"));
    bytes = good;
    patch32(bytes, e.offset + 16, read32(bytes, e.offset + 16) - 1);  // stream one byte shorter than stated
    bytes.erase(bytes.begin() + ptrdiff_t(e.offset + kMapFileBlockHeaderBytes));
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "decompression failed in region (0,0,0)"));
  }
  SECTION("two blocks with the same key") {
    std::vector<uint8_t> bytes = good;
    for (int i = 0; i < 12; ++i) bytes[info.regions[2].offset + i] = bytes[info.regions[0].offset + i];
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "region (-2,7,1) is stored twice (regions 0 and 2)"));
  }
}

TEST_CASE("Map file headers are checked: magic, version, model fields, checksum", "[mapfile]") {
  vt::TempDir dir("mapfile");
  vt::Rng rng(9);
  const OccupancyMap map = randomMap(rng, LayerSet{kTraversalLayer}, {{1, 2, 3}}, smallModel(8));
  saveMap(map, dir / "good.vxm");
  const std::vector<uint8_t> good = readBytes(dir / "good.vxm");
  const auto bad = dir / "bad.vxm";
  std::vector<uint8_t> bytes;

  SECTION("bad magic") {
    bytes = good;
    bytes[3] = 'X';
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "bad magic"));
    CHECK(contains(loadError(bad), bad.string()));
    writeBytes(bad, {'p', 'l', 'y', '\n'});  // short and foreign: not "truncated"
    CHECK(contains(loadError(bad), "bad magic"));
    CHECK(contains(loadError(dir / "missing.vxm"), "cannot open map file"));
    CHECK(contains(loadError(dir.path()), "is a directory"));
  }
  SECTION("a future format version") {
    bytes = good;
    patch32(bytes, 8, kMapFileVersion + 1);
    writeBytes(bad, bytes);
    const std::string future = "unsupported format version " + std::to_string(kMapFileVersion + 1);
    CHECK(contains(loadError(bad), future + " (this build reads versions 1 to " + std::to_string(kMapFileVersion) + ")"));
    bytes.resize(20);  // a newer, shorter header is still judged by its version
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), future));
  }
  SECTION("invalid model fields name the field, checksum fixed or not") {
    struct Case {
      size_t offset;
      float value;
      const char* field;
    };
    for (const Case c : {Case{24, 0.3f, "hit probability"}, Case{28, 0.7f, "miss probability"},
                         Case{32, 1.5f, "occupancy threshold"}, Case{40, -5.0f, "clamp"}}) {
      for (bool fixCrc : {false, true}) {
        bytes = good;
        patchFloat(bytes, c.offset, c.value);
        if (fixCrc) fixHeaderCrc(bytes);
        writeBytes(bad, bytes);
        const std::string error = loadError(bad);
        INFO(error);
        CHECK(contains(error, "invalid header field"));
        CHECK(contains(error, c.field));
      }
    }
    bytes = good;
    patch32(bytes, 20, 0);  // region size
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "region size"));
    bytes = good;
    std::memset(&bytes[12], 0xFF, 8);  // resolution NaN
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "resolution"));
    bytes = good;
    patch32(bytes, 44, 0);  // layer count (version 1's unknown layer bits: the version 1 fixture test)
    fixHeaderCrc(bytes);
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "invalid header field: layer count 0"));
  }
  SECTION("a valid but changed field is caught by the header checksum") {
    bytes = good;
    patchFloat(bytes, 24, 0.8f);  // hit probability 0.7 -> 0.8: valid, but not what was saved
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "header checksum mismatch"));
    fixHeaderCrc(bytes);  // the test's CRC32 agrees with the file's
    writeBytes(bad, bytes);
    CHECK(loadMap(bad).model().hitProbability == 0.8f);
  }
  SECTION("a region count that promises more regions than the file has") {
    bytes = good;
    bytes[56] = 2;
    fixHeaderCrc(bytes);
    writeBytes(bad, bytes);
    CHECK(contains(loadError(bad), "truncated: the file ends at byte offset " + std::to_string(good.size()) + " before region 1 of 2"));
  }
}

TEST_CASE("Saving is atomic and refuses regions that would lose data", "[mapfile]") {
  vt::TempDir dir("mapfile");
  vt::Rng rng(13);
  OccupancyMap map = randomMap(rng, LayerSet{kHitMissLayer}, {{0, 0, 0}, {1, 1, 1}}, smallModel(8));
  const auto path = dir / "map.vxm";
  saveMap(map, path);
  const std::vector<uint8_t> before = readBytes(path);

  auto& hitMiss = map.findRegion({1, 1, 1})->layers[kHitMissLayer];
  hitMiss.resize(hitMiss.size() - sizeof(HitMiss));  // inconsistent with the map's region size
  CHECK_THROWS_WITH(saveMap(map, path), Catch::Contains("region (1,1,1): layer 'hit_miss' holds 511 values"));
  hitMiss.resize(hitMiss.size() + sizeof(HitMiss));
  map.findRegion({0, 0, 0})->layers[kTouchTimeLayer].assign(512 * sizeof(double), std::byte{0});  // data in a layer the map has off
  CHECK_THROWS_WITH(saveMap(map, path), Catch::Contains("layer 'touch_time' holds 512 values but the map has that layer off"));
  // The old file is untouched and no temporary file is left behind.
  CHECK(readBytes(path) == before);
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) files += entry.is_regular_file();
  CHECK(files == 1);

  map.findRegion({0, 0, 0})->layers[kTouchTimeLayer].clear();
  map.region({2, 2, 2}).hitMiss()[5].hits = 99;
  saveMap(map, path);  // replaces the old file
  CHECK(loadMap(path).findRegion({2, 2, 2})->hitMiss()[5].hits == 99);
  CHECK_THROWS_WITH(saveMap(map, dir / "no-such-folder" / "map.vxm"), Catch::Contains("cannot save map to"));
}

// Not run by default: `voxen_tests "[.mapfile-bench]"`. ~2000 regions of 32^3 voxels,
// occupancy only and with every layer, shaped like an indoor scan: free air, occupied
// surfaces, unobserved space behind them.
TEST_CASE("Map file size and speed for 2000 regions", "[.mapfile-bench]") {
  vt::TempDir dir("mapfile-bench");
  for (const LayerSet layers : {LayerSet{}, kAllLayers}) {
    OccupancyMap map({}, layers);
    const OccupancyModel& m = map.model();
    vt::Rng rng(1);
    for (int32_t rx = 0; rx < 20; ++rx)
      for (int32_t ry = 0; ry < 20; ++ry)
        for (int32_t rz = 0; rz < 5; ++rz) {
          Region& r = map.region({rx, ry, rz});
          for (uint32_t i = 0; i < r.occupancy().size(); ++i) {
            const VoxelCoord v = map.voxelOf(r.key, i);
            const int wall = (v.x % 97 == 0) || (v.y % 83 == 0) || v.z == 1 || v.z == 120;
            const int inside = v.z > 1 && v.z < 120;
            // Within the clamps, as a map can hold (saving refuses anything else).
            if (wall) r.occupancy()[i] = rng.chance(80) ? m.clampMax : std::min(m.clampMax, float(rng.range(1, 5)) * m.hitValue() + m.missValue());
            else if (inside && rng.chance(90)) r.occupancy()[i] = rng.chance(85) ? m.clampMin : std::max(m.clampMin, float(rng.range(1, 6)) * m.missValue());
            if (!isObserved(r.occupancy()[i])) continue;
            if (layers.has(kHitMissLayer)) r.hitMiss()[i].hits = wall ? uint32_t(rng.range(1, 40)) : 0, r.hitMiss()[i].misses = uint32_t(rng.range(0, 30));
            if (layers.has(kTraversalLayer)) r.traversal()[i] = rng.range(0, 65536 * 40);
            if (layers.has(kTouchTimeLayer)) r.touchTime()[i] = float(rng.range(0, 6000)) * 0.01f;
            if (layers.has(kVoxelMeanLayer) && wall) {
              const uint32_t count = uint32_t(rng.range(1, 40));
              r.mean()[i] = {count, {uint32_t(rng.range(0, count * 1023)), uint32_t(rng.range(0, count * 1023)), uint32_t(rng.range(0, count * 1023))}};
            }
          }
        }
    for (int level : {1, 6}) {
      const auto path = dir / "bench.vxm";
      auto t0 = std::chrono::steady_clock::now();
      saveMap(map, path, {.compressionLevel = level});
      const double saveMs = vt::msSince(t0);
      t0 = std::chrono::steady_clock::now();
      const OccupancyMap loaded = loadMap(path);
      const double loadMs = vt::msSince(t0);
      const MapFileInfo info = readMapInfo(path);
      const double mib = double(info.uncompressedBytes()) / (1 << 20);
      std::cout << layerNames(layers) << ", zlib level " << level << ": " << info.regions.size() << " regions, " << mib
                << " MiB of voxel arrays -> " << double(info.fileBytes) / (1 << 20) << " MiB file (ratio "
                << double(info.uncompressedBytes()) / double(info.fileBytes) << "); save " << saveMs << " ms ("
                << mib / saveMs * 1000 << " MiB/s), load " << loadMs << " ms (" << mib / loadMs * 1000 << " MiB/s), "
                << std::thread::hardware_concurrency() << " hardware threads" << std::endl;
      CHECK(loaded.regions().size() == map.regions().size());
    }
  }
}

namespace {

// Replaces the first region block of a saved file by one whose key and payload `edit`
// changed, with valid sizes and checksums: contents the checksums cannot catch.
std::vector<uint8_t> rewriteFirstBlock(const std::vector<uint8_t>& file, const MapFileInfo& info,
                                       const std::function<void(int32_t* key, std::vector<uint8_t>& payload)>& edit) {
  const MapFileInfo::RegionEntry& e = info.regions.front();
  std::vector<uint8_t> payload(e.uncompressedBytes);
  uLongf size = uLongf(payload.size());
  REQUIRE(uncompress(payload.data(), &size, file.data() + e.offset + kMapFileBlockHeaderBytes, e.compressedBytes) == Z_OK);
  int32_t key[3];
  std::memcpy(key, file.data() + e.offset, sizeof key);
  edit(key, payload);
  std::vector<uint8_t> packed(compressBound(uLong(payload.size())));
  uLongf packedSize = uLongf(packed.size());
  REQUIRE(compress(packed.data(), &packedSize, payload.data(), uLong(payload.size())) == Z_OK);
  packed.resize(packedSize);
  std::vector<uint8_t> header(kMapFileBlockHeaderBytes);
  std::memcpy(header.data(), key, sizeof key);
  patch32(header, 12, uint32_t(payload.size()));
  patch32(header, 16, uint32_t(packed.size()));
  std::vector<uint8_t> checked(header.begin(), header.begin() + 20);
  checked.insert(checked.end(), payload.begin(), payload.end());
  patch32(header, 20, crc32Of(checked.data(), checked.size()));
  std::vector<uint8_t> out(file.begin(), file.begin() + ptrdiff_t(e.offset));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), packed.begin(), packed.end());
  out.insert(out.end(), file.begin() + ptrdiff_t(e.offset + kMapFileBlockHeaderBytes + e.compressedBytes), file.end());
  return out;
}

void putFloat(std::vector<uint8_t>& bytes, size_t at, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  patch32(bytes, at, bits);
}

}  // namespace

TEST_CASE("Map files with valid checksums but impossible contents are refused on load and save", "[mapfile]") {
  vt::TempDir dir("mapfile");
  OccupancyModel model = smallModel(4);  // 64 voxels per region
  OccupancyMap map(model, kTouchTimeLayer | kVoxelMeanLayer);
  map.region({0, 0, 0}).occupancy()[3] = model.clampMax;
  saveMap(map, dir / "good.vxm");
  const std::vector<uint8_t> good = readBytes(dir / "good.vxm");
  const MapFileInfo info = readMapInfo(dir / "good.vxm");
  const auto bad = dir / "bad.vxm";
  // Payload: occupancy f32[64], voxel mean {u32 count, sum[3]}[64], touch time f64[64].
  const size_t meanAt = 64 * 4, touchAt = meanAt + 64 * 16;

  struct Case {
    const char* what;
    std::function<void(int32_t*, std::vector<uint8_t>&)> edit;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"NaN occupancy", [](int32_t*, std::vector<uint8_t>& p) { putFloat(p, 5 * 4, std::nanf("")); }, "layer 'occupancy', voxel 5 (1,1,0): log_odds nan is not finite"},
      {"-inf occupancy", [](int32_t*, std::vector<uint8_t>& p) { putFloat(p, 7 * 4, -INFINITY); }, "layer 'occupancy', voxel 7 (3,1,0): log_odds -inf is not finite"},
      {"occupancy beyond the clamps",
       [&](int32_t*, std::vector<uint8_t>& p) { putFloat(p, 0, model.clampMax * 2); }, "is neither unobserved (+inf) nor within the clamp range [-2, 3.5]"},
      {"infinite touch time", [&](int32_t*, std::vector<uint8_t>& p) {
         const double inf = INFINITY;
         std::memcpy(p.data() + touchAt + 8 * 9, &inf, 8);
       }, "layer 'touch_time', voxel 9 (1,2,0): time inf is not finite"},
      {"mean sum beyond its count",
       [&](int32_t*, std::vector<uint8_t>& p) { patch32(p, meanAt + 16 * 2 + 4, 5000); }, "layer 'voxel_mean', voxel 2 (2,0,0): sum_x 5000 is more than its count 0 of samples allows"},
      {"a key outside the int32 voxel range", [](int32_t* key, std::vector<uint8_t>&) { key[1] = INT32_MAX; },
       "its key is outside the int32 voxel range for region size 4"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    writeBytes(bad, rewriteFirstBlock(good, info, c.edit));
    const std::string error = loadError(bad);
    CHECK(contains(error, c.message));
    CHECK(contains(error, bad.string()));
  }
  REQUIRE(loadError(dir / "good.vxm") == "<no error>");  // the rewrite itself keeps a valid file valid
  writeBytes(bad, rewriteFirstBlock(good, info, [](int32_t*, std::vector<uint8_t>&) {}));
  CHECK(loadError(bad) == "<no error>");

  // Saving refuses what loading would refuse, and leaves the old file as it was.
  map.region({0, 0, 0}).occupancy()[1] = std::nanf("");
  CHECK_THROWS_WITH(saveMap(map, dir / "good.vxm"), Catch::Contains("region (0,0,0): layer 'occupancy', voxel 1 (1,0,0): log_odds nan is not finite"));
  CHECK(readBytes(dir / "good.vxm") == good);
  // And a region key whose voxels overflow int32 cannot even be created.
  CHECK_THROWS_WITH(map.region({INT32_MAX / 4 + 1, 0, 0}), Catch::Contains("outside the int32 voxel range for region size 4"));
}

TEST_CASE("Every layer's values are checked against its fields' domains on load, save and verification", "[mapfile]") {
  vt::TempDir dir("mapfile");
  OccupancyModel model = smallModel(4);  // 64 voxels per region
  MapLayout layout = ndtLayout(NdtMode::Tm, MapLayout::of(kAllLayers)).add(clearanceLayer());
  OccupancyMap map(model, layout);
  map.region({0, 0, 0}).occupancy()[3] = model.clampMax;
  map.region({1, 0, 0});
  saveMap(map, dir / "good.vxm");
  const std::vector<uint8_t> good = readBytes(dir / "good.vxm");
  const MapFileInfo info = readMapInfo(dir / "good.vxm");
  REQUIRE(info.layout == layout);
  // Where each layer's array starts in a region's payload.
  std::map<std::string, size_t> arrayAt;
  size_t at = 0;
  for (LayerId id : layout.ids()) {
    arrayAt[layerType(id).name] = at;
    at += 64 * layerType(id).bytesPerVoxel;
  }
  const auto bad = dir / "bad.vxm";

  struct Case {
    const char* layer;
    size_t field;
    double value;  // written as the field's type
    const char* why;
  };
  const double nan = std::nan(""), inf = INFINITY;
  const std::vector<Case> cases = {
      {"occupancy", 0, nan, "log_odds nan is not finite"},
      {"occupancy", 0, -inf, "log_odds -inf is not finite"},
      {"occupancy", 0, 100.0, "log_odds 100 is neither unobserved (+inf) nor within the clamp range"},
      {"voxel_mean", 1, 5000.0, "sum_x 5000 is more than its count 0 of samples allows"},
      {"touch_time", 0, nan, "time nan is not finite"},
      {"touch_time", 0, inf, "time inf is not finite"},
      {"touch_time", 0, -1.0, "time -1 is below 0"},
      {"ndt_covariance", 0, inf, "s00 inf is not finite"},
      {"ndt_covariance", 2, -0.5, "s11 -0.5 is below 0"},
      {"ndt_covariance", 3, nan, "s20 nan is not finite"},
      {"ndt_intensity", 0, nan, "mean nan is not finite"},
      {"ndt_intensity", 1, -2.0, "variance -2 is below 0"},
      {"ndt_intensity", 1, inf, "variance inf is not finite"},
      {"clearance", 0, -3.0, "distance -3 is below 0"},
      {"clearance", 0, -0.5, "distance -0.5 is below 0"},
      {"clearance", 0, nan, "distance nan is not finite"},
      {"clearance", 0, inf, "distance inf is not finite"},
  };
  for (const Case& c : cases) {
    INFO(c.layer << " field " << c.field << " = " << c.value);
    const LayerType& type = layerType(*findLayer(c.layer));
    const FieldType fieldType = type.fields.at(c.field).type;
    // The same value in voxels 5, 9 and 12 of the first region.
    writeBytes(bad, rewriteFirstBlock(good, info, [&](int32_t*, std::vector<uint8_t>& payload) {
                 for (size_t voxel : {5, 9, 12}) {
                   uint8_t* p = payload.data() + arrayAt[c.layer] + voxel * type.bytesPerVoxel + c.field * type.elementBytes;
                   if (fieldType == FieldType::F32) {
                     const float v = float(c.value);
                     std::memcpy(p, &v, 4);
                   } else if (fieldType == FieldType::F64) {
                     std::memcpy(p, &c.value, 8);
                   } else {
                     REQUIRE(fieldType == FieldType::U32);
                     patch32(payload, size_t(p - payload.data()), uint32_t(c.value));
                   }
                 }
               }));
    const std::string error = loadError(bad);
    CHECK(contains(error, bad.string()));
    CHECK(contains(error, std::string("layer '") + c.layer + "', voxel 5 (1,1,0): " + c.why));
    CHECK(contains(error, "(3 voxels of this layer in the region are impossible)"));
    // Loaded as it is, every bad value is counted per layer.
    MapLoadOptions keep;
    keep.refuseImpossibleValues = false;
    const OccupancyMap loaded = loadMap(bad, keep);
    const std::vector<LayerValueFaults> faults = findImpossibleValues(loaded);
    REQUIRE(faults.size() == 1);
    CHECK(layerType(faults[0].layer).name == c.layer);
    CHECK(faults[0].voxels == 3);
    CHECK(faults[0].regions == 1);
    CHECK(faults[0].firstVoxel == 5);
    CHECK(contains(describeFaults(loaded, faults), std::string("layer '") + c.layer + "': 3 voxels in 1 region, the first region (0,0,0) voxel 5 (1,1,0): " + c.why));
  }
  // Counts and traversal lengths may hold any value: arbitrary bits load.
  writeBytes(bad, rewriteFirstBlock(good, info, [&](int32_t*, std::vector<uint8_t>& payload) {
               for (const char* layer : {"traversal", "hit_miss"})
                 for (size_t i = 0; i < 64 * layerType(*findLayer(layer)).bytesPerVoxel; ++i)
                   payload[arrayAt[layer] + i] = uint8_t(0xff - i * 7);
             }));
  CHECK(loadError(bad) == "<no error>");

  // Saving refuses what loading would, naming the layer, and leaves the old file.
  map.region({1, 0, 0}).values<float>(clearanceLayer())[2] = -7.0f;
  CHECK_THROWS_WITH(saveMap(map, dir / "good.vxm"),
                    Catch::Contains("region (1,0,0): layer 'clearance', voxel 2 (6,0,0): distance -7 is below 0"));
  CHECK(readBytes(dir / "good.vxm") == good);
}
