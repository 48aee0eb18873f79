// Map layers: the registry, a layer registered at run time that the GPU writes through the
// region cache and that is evicted, saved and loaded with no change to the cache or the file
// code, version 1 files (committed fixtures) that load bit-exactly and re-save as version 2,
// and version 2 layer tables that name what is wrong with them.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <map>

#include "voxen/gpu/map/layer_probe.h"
#include "support/binary_file.hpp"
#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/map/region_cache.hpp"

using namespace voxen;

namespace {

using vt::loadError;

// The digest the version 1 build computed (tests/data/map_v1/README.md): FNV-1a over the
// regions in key order, each its key, occupancy, mean, traversal, hits, misses, touch time.
struct Digest {
  uint64_t h = 1469598103934665603ull;
  void add(const void* data, size_t bytes) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  template <class T>
  void add(std::span<const T> values) {
    add(values.data(), values.size_bytes());
  }
};

uint64_t version1Digest(const OccupancyMap& map) {
  std::map<RegionKey, const Region*> sorted;
  for (const auto& [key, region] : map.regions()) sorted[key] = &region;
  Digest d;
  for (const auto& [key, r] : sorted) {
    const int32_t k[3] = {key.x, key.y, key.z};
    d.add(k, sizeof k);
    d.add(r->occupancy());
    d.add(r->mean());
    d.add(r->traversal());
    std::vector<uint32_t> hits, misses;
    for (const HitMiss& hm : r->hitMiss()) hits.push_back(hm.hits), misses.push_back(hm.misses);
    d.add(std::span<const uint32_t>(hits));
    d.add(std::span<const uint32_t>(misses));
    // Version 1 stored touch times as floats after the time origin; this build converts them
    // to absolute doubles (0 stays 0), which the fixture's origin (0) makes exactly reversible.
    std::vector<float> touch;
    for (double t : r->touchTime()) touch.push_back(t == 0.0 ? 0.0f : float(t - map.timeOrigin()));
    d.add(std::span<const float>(touch));
  }
  return d.h;
}

void requireSameLayers(const OccupancyMap& a, const OccupancyMap& b) {
  REQUIRE(a.layout() == b.layout());
  REQUIRE(a.regions().size() == b.regions().size());
  for (const auto& [key, ra] : a.regions()) {
    const Region* rb = b.findRegion(key);
    REQUIRE(rb != nullptr);
    for (uint32_t i = 0; i < kMaxLayers; ++i) {
      const LayerId id(i);
      INFO("region (" << key.x << "," << key.y << "," << key.z << ") layer " << i);
      REQUIRE(ra.layers[id] == rb->layers[id]);
    }
  }
}

LayerType testVisitsLayer() {
  LayerType type;
  type.name = "test_visits";
  type.bytesPerVoxel = 4;
  type.elementBytes = 4;
  type.version = 3;
  uint32_t seven = 7;  // not zero, so that fresh slots and fresh host regions must both be initialised
  type.initialValue.resize(4);
  std::memcpy(type.initialValue.data(), &seven, 4);
  type.description = "test-only: how often the probe pass visited the voxel";
  LayerField visits;
  visits.name = "visits";
  visits.type = FieldType::U32;
  type.fields = {visits};
  return type;
}

// A layer whose initial value is not a repeated 4-byte pattern, so that the cache must
// upload fresh slots instead of filling them.
LayerType testStampLayer() {
  LayerType type;
  type.name = "test_stamp";
  type.bytesPerVoxel = 8;
  type.elementBytes = 8;
  for (uint8_t b = 1; b <= 8; ++b) type.initialValue.push_back(std::byte{b});
  LayerField stamp;
  stamp.name = "stamp";
  stamp.type = FieldType::U64;
  type.fields = {stamp};
  return type;
}

}  // namespace

TEST_CASE("The layer registry keeps built-in ids, refuses conflicting definitions", "[maplayers]") {
  CHECK(layerType(kOccupancyLayer).name == "occupancy");
  CHECK(layerType(kHitMissLayer).bytesPerVoxel == sizeof(HitMiss));
  CHECK(findLayer("voxel_mean") == kVoxelMeanLayer);
  CHECK_FALSE(findLayer("no_such_layer").has_value());
  const LayerId id = registerLayer(testVisitsLayer());
  CHECK(id.index() >= kEngineLayerCount);  // after the engine's own types
  CHECK(registerLayer(testVisitsLayer()) == id);  // the same definition again: the same id
  LayerType other = testVisitsLayer();
  other.bytesPerVoxel = 8;
  other.initialValue.clear();
  other.fields.push_back(other.fields[0]);
  other.fields[1].name = "more";
  CHECK_THROWS_WITH(registerLayer(other), Catch::Contains("layer 'test_visits' is already registered with another definition"));
  other = testVisitsLayer();
  other.name = "Bad Name";
  CHECK_THROWS_WITH(registerLayer(other), Catch::Contains("a name uses only a-z, 0-9 and _"));
  other = testVisitsLayer();
  other.name = "odd_size";
  other.bytesPerVoxel = 6;
  CHECK_THROWS_WITH(registerLayer(other), Catch::Contains("bytes per voxel must be a positive multiple of the element size"));

  // Every layer declares its fields: what verification and exports work from.
  other = testVisitsLayer();
  other.name = "no_fields";
  other.fields.clear();
  CHECK_THROWS_WITH(registerLayer(other), Catch::Contains("layer 'no_fields': declare its fields"));
  other = testVisitsLayer();
  other.name = "wide_field";
  other.fields[0].type = FieldType::U64;
  CHECK_THROWS_WITH(registerLayer(other), Catch::Contains("field 0 'visits': a u64 is not the element size of 4 bytes"));
  other = testVisitsLayer();
  other.name = "short_fields";
  other.bytesPerVoxel = 8;
  other.initialValue.resize(8);
  CHECK_THROWS_WITH(registerLayer(other), Catch::Contains("1 fields of 4 bytes do not make the 8 bytes per voxel"));
  other = testVisitsLayer();
  other.name = "bad_start";
  other.fields[0].max = 5;  // the initial value is 7
  CHECK_THROWS_WITH(registerLayer(other), Catch::Contains("its initial value is impossible: visits 7 is above 5"));
  other = testVisitsLayer();
  other.fields[0].name = "renamed";
  CHECK_THROWS_WITH(registerLayer(other), Catch::Contains("layer 'test_visits' is already registered with another definition"));
  // The built-in layers declare theirs.
  CHECK(layerType(kHitMissLayer).fields.size() == 2);
  CHECK(layerType(kTouchTimeLayer).fields.at(0).min == 0.0);
  CHECK(layerType(kOccupancyLayer).fields.at(0).special == std::numeric_limits<double>::infinity());

  const MapLayout layout = MapLayout::of(kHitMissLayer | kVoxelMeanLayer);
  CHECK(layout.ids() == std::vector<LayerId>{kOccupancyLayer, kVoxelMeanLayer, kHitMissLayer});
  CHECK(layout.optionalLayers() == (kHitMissLayer | kVoxelMeanLayer));
  CHECK(layout.optionalLayers().builtinFlags() == (gpu::kLayerHitMiss | gpu::kLayerVoxelMean));
  CHECK(layout.bytesPerVoxel() == 4 + 16 + 8);
  CHECK(MapLayout().add(id).names() == "occupancy, test_visits");
}

TEST_CASE("A layer registered at run time is written on the GPU, evicted, saved and loaded", "[maplayers]") {
  vt::TempDir dir("maplayers");
  auto& shared = vt::gpu();
  const LayerId visits = registerLayer(testVisitsLayer());
  const LayerId stamp = registerLayer(testStampLayer());
  OccupancyModel model;
  model.regionSize = 8;
  const uint32_t voxels = 512;
  OccupancyMap map(model, MapLayout().add(kHitMissLayer).add(visits).add(stamp));

  // The CPU reference: every voxel of every region starts at 7; region A exists on the
  // host before the cache sees it, with values of its own.
  const RegionKey A{0, 0, 0}, B{1, 0, 0}, C{-1, 2, 3};
  std::map<RegionKey, std::vector<uint32_t>> expected;
  for (const RegionKey& key : {A, B, C}) expected[key].assign(voxels, 7);
  for (uint32_t v = 0; v < voxels; v += 3) {
    map.region(A).values<uint32_t>(visits)[v] = 100 + v;
    expected[A][v] = 100 + v;
  }

  {
    // Two slots, so the third region evicts the least recently used one.
    RegionCache cache(shared.scheduler, map, 2 * RegionCache::bytesPerRegion(map));
    REQUIRE(cache.slotCount() == 2);
    vt::Rng rng(21);
    auto probe = [&](const std::vector<RegionKey>& keys, uint64_t batch) {
      cache.makeResident(keys, batch);
      std::vector<gpu::uvec4> updates;
      for (int i = 0; i < 3000; ++i) {
        const RegionKey& key = keys[rng.range(0, keys.size() - 1)];
        const uint32_t voxel = uint32_t(rng.range(0, voxels - 1)), amount = uint32_t(rng.range(1, 5));
        updates.push_back({cache.slotOf(key), voxel, amount, 0});
        expected[key][voxel] += amount;
      }
      BufferRange list = shared.scheduler.transient(updates.size() * sizeof(gpu::uvec4), 16);
      shared.scheduler.upload(list, updates.data(), updates.size() * sizeof(gpu::uvec4));
      gpu::LayerProbePush push{cache.layerTableAddress(), list.address, visits.index(), uint32_t(updates.size()), voxels, 0};
      std::vector<BufferUse> uses{reads(list), reads(cache.layerTableRange())};
      for (const BufferRange& pool : cache.poolRanges()) uses.push_back(readsWrites(pool));
      shared.scheduler.dispatchThreads({"layer probe", vt::kernel("map/layer_probe.comp"), {}, push, uses}, updates.size());
      shared.scheduler.submit();
    };
    probe({A, B}, 1);
    probe({C, A}, 2);  // evicts B to the host map
    probe({B, A}, 3);  // B comes back from the host map, C goes
    probe({C, B}, 4);  // and C again, A goes
    cache.syncToMap();
    CHECK(cache.stats().evictions == 3);
    CHECK(cache.poolAddress(visits) != 0);
  }

  for (const auto& [key, values] : expected) {
    INFO("region (" << key.x << "," << key.y << "," << key.z << ")");
    const Region* region = map.findRegion(key);
    REQUIRE(region != nullptr);
    const auto got = region->values<uint32_t>(visits);
    REQUIRE(std::vector<uint32_t>(got.begin(), got.end()) == values);
    // The other layers went through the cache untouched.
    for (float v : region->occupancy()) REQUIRE(!isObserved(v));
    for (const HitMiss& hm : region->hitMiss()) REQUIRE(hm == HitMiss{});
    for (uint64_t value : region->values<uint64_t>(stamp)) REQUIRE(value == 0x0807060504030201ull);
  }

  saveMap(map, dir / "visits.vxm");
  const MapFileInfo info = readMapInfo(dir / "visits.vxm");
  CHECK(info.layout.names() == "occupancy, hit_miss, test_visits, test_stamp");
  const OccupancyMap loaded = loadMap(dir / "visits.vxm");
  requireSameLayers(map, loaded);
}

TEST_CASE("Version 1 map files load bit-exactly and re-save as version 2", "[maplayers][mapfile]") {
  vt::TempDir dir("maplayers");
  struct Fixture {
    const char* file;
    LayerSet layers;
    uint64_t occupied, free, digest;
  };
  const std::filesystem::path data = std::filesystem::path(VOXEN_TEST_SOURCE_DIR) / "tests/data/map_v1";
  for (const Fixture& f : {Fixture{"v1-occupancy.vxm", {}, 365, 3242, 0xc504f0973d2ae572ull},
                           Fixture{"v1-all-layers.vxm", kAllBuiltinLayers, 336, 3271, 0xbfa11e3260dbf13full}}) {
    INFO(f.file);
    const MapFileInfo info = readMapInfo(data / f.file);
    CHECK(info.version == 1);
    CHECK(info.layers == f.layers);
    CHECK(info.headerBytes == kMapFileHeaderBytes);
    const OccupancyMap v1 = loadMap(data / f.file);
    CHECK(v1.regions().size() == 21);
    CHECK(v1.counts().occupied == f.occupied);
    CHECK(v1.counts().free == f.free);
    CHECK(version1Digest(v1) == f.digest);

    saveMap(v1, dir / "v2.vxm");
    CHECK(readMapInfo(dir / "v2.vxm").version == 2);
    const OccupancyMap v2 = loadMap(dir / "v2.vxm");
    requireSameLayers(v1, v2);
    CHECK(version1Digest(v2) == f.digest);
    CHECK(v2.model().hitProbability == v1.model().hitProbability);
    CHECK(v2.timeOrigin() == v1.timeOrigin());
  }

  // Version 1's layer bitmask is checked as it always was.
  std::vector<uint8_t> bytes = vt::readBytes(data / "v1-all-layers.vxm");
  vt::patch32(bytes, 44, 0x10 | gpu::kLayerTraversal);
  vt::patch32(bytes, 64, vt::crc32Of(bytes.data(), 64));
  vt::writeBytes(dir / "bits.vxm", bytes);
  CHECK_THAT(loadError(dir / "bits.vxm"), Catch::Contains("unknown layer bits 0x00000010"));
}

TEST_CASE("A version 2 layer table names the layer it cannot use", "[maplayers][mapfile]") {
  vt::TempDir dir("maplayers");
  OccupancyModel model;
  model.regionSize = 4;
  OccupancyMap map(model, kTraversalLayer | kTouchTimeLayer);
  map.region({1, 2, 3}).occupancy()[5] = 1.5f;
  saveMap(map, dir / "good.vxm");
  const std::vector<uint8_t> good = vt::readBytes(dir / "good.vxm");
  const size_t table = kMapFileHeaderBytes, entries = 3 * kMapFileLayerEntryBytes;
  auto withTableCrc = [&](std::vector<uint8_t> bytes) {
    vt::patch32(bytes, table + entries, vt::crc32Of(bytes.data() + table, entries));
    return bytes;
  };
  const auto bad = dir / "bad.vxm";

  std::vector<uint8_t> bytes = good;
  bytes[table + kMapFileLayerEntryBytes + 36] = 3;  // element size 3 cannot be byte-swapped
  vt::writeBytes(bad, withTableCrc(bytes));
  CHECK_THAT(loadError(bad), Catch::Contains("layer 1 'traversal' (version 1, 8 bytes per voxel) does not match this build's version 1"));
  CHECK_THAT(loadError(bad), Catch::Contains(bad.string()));
  bytes[table + kMapFileLayerEntryBytes + 8] = 'x';  // "traversal" -> "traversax": a layer this build does not know
  vt::writeBytes(bad, withTableCrc(bytes));
  CHECK_THAT(loadError(bad), Catch::Contains("layer 1 'traversax' (version 1, 8 bytes per voxel): layer 'traversax': element size must be 1, 2, 4 or 8 bytes"));
  vt::writeBytes(bad, bytes);  // the same damage without a matching checksum
  CHECK_THAT(loadError(bad), Catch::Contains("layer table checksum mismatch"));

  bytes = good;
  vt::patch32(bytes, table + 2 * kMapFileLayerEntryBytes + 40, 7);  // touch_time version 7
  vt::writeBytes(bad, withTableCrc(bytes));
  CHECK_THAT(loadError(bad), Catch::Contains("layer 2 'touch_time' (version 7, 8 bytes per voxel) does not match this build's version 2"));

  bytes = good;
  std::memcpy(bytes.data() + table + kMapFileLayerEntryBytes, "touch_time\0", 11);  // listed twice
  vt::patch32(bytes, table + kMapFileLayerEntryBytes + 32, 8);
  vt::patch32(bytes, table + kMapFileLayerEntryBytes + 36, 8);
  vt::patch32(bytes, table + kMapFileLayerEntryBytes + 40, 2);
  vt::writeBytes(bad, withTableCrc(bytes));
  CHECK_THAT(loadError(bad), Catch::Contains("'touch_time' (version 2, 8 bytes per voxel) is listed twice"));

  bytes = good;
  bytes.resize(table + 20);
  vt::writeBytes(bad, bytes);
  CHECK_THAT(loadError(bad), Catch::Contains("truncated header's layer table at byte offset 68"));

  REQUIRE(loadError(dir / "good.vxm") == "<no error>");
}

TEST_CASE("A layer this build does not know loads as opaque bytes and is saved back unchanged", "[maplayers][mapfile]") {
  vt::TempDir dir("maplayers");
  OccupancyModel model;
  model.regionSize = 4;
  OccupancyMap map(model, kTraversalLayer | kTouchTimeLayer);
  vt::Rng rng(5);
  for (const RegionKey key : {RegionKey{1, 2, 3}, RegionKey{-1, 0, 0}}) {
    Region& r = map.region(key);
    for (uint64_t& t : r.traversal()) t = rng.range(0, 1 << 30);
    r.occupancy()[5] = 1.5f;
  }
  saveMap(map, dir / "known.vxm");
  // Renaming "traversal" makes it a layer type no process knows, with the same bytes.
  std::vector<uint8_t> bytes = vt::readBytes(dir / "known.vxm");
  const size_t table = kMapFileHeaderBytes, entries = 3 * kMapFileLayerEntryBytes;
  std::memcpy(bytes.data() + table + kMapFileLayerEntryBytes, "made_up_sum\0", 12);
  vt::patch32(bytes, table + entries, vt::crc32Of(bytes.data() + table, entries));
  vt::writeBytes(dir / "unknown.vxm", bytes);

  const OccupancyMap loaded = loadMap(dir / "unknown.vxm");
  CHECK(loaded.layout().names() == "occupancy, made_up_sum, touch_time");
  const LayerId opaque = loaded.layout().ids()[1];
  CHECK(layerType(opaque).opaque);
  CHECK(layerType(opaque).bytesPerVoxel == 8);
  CHECK(layerType(opaque).elementBytes == 8);
  for (const auto& [key, region] : map.regions()) CHECK(loaded.findRegion(key)->layers[opaque] == region.layers[kTraversalLayer]);
  saveMap(loaded, dir / "again.vxm");
  CHECK(vt::readBytes(dir / "again.vxm") == bytes);
  // A program that registers the type after meeting it as opaque is told why it cannot.
  LayerType late;
  late.name = "made_up_sum";
  late.bytesPerVoxel = 8;
  late.elementBytes = 8;
  late.fields = {LayerField{.name = "sum", .type = FieldType::U64}};
  CHECK_THROWS_WITH(registerLayer(late), Catch::Contains("layer 'made_up_sum' was loaded from a map file as opaque bytes"));
}
