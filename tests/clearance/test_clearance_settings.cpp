// Clearance settings: obstacles below or above given heights left out (--ignore-below,
// --ignore-above) on the CPU reference against the brute force, on the GPU's exact technique
// bit for bit and on the propagation techniques within their bounds; and the settings a layer
// was computed with, saved in the map file, loaded back and told in words.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>

#include "support/clearance_reference.hpp"
#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "support/temp_dir.hpp"
#include "voxen/check/clearance_comparison.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/map/map_file.hpp"

namespace {

using namespace voxen;
using namespace vt::clearance;

// A floor (z = -3), a ceiling (z = 12), a pole and a few boxes at 0.25 m.
OccupancyMap roomMap() {
  OccupancyMap map = freeMap(0.25, {-1, -1, -1}, {1, 1, 1});
  for (int x = -32; x < 64; ++x)
    for (int y = -32; y < 64; ++y) {
      setOccupied(map, {x, y, -3});
      setOccupied(map, {x, y, 12});
    }
  for (int z = -32; z < 64; ++z) setOccupied(map, {35, 40, z});
  for (int i = 0; i < 40; ++i) setOccupied(map, {(i * 7) % 32, (i * 13) % 32, (i * 5) % 40 - 4});
  return map;
}

TEST_CASE("Clearance: the obstacle band's voxel layers follow the voxel centres", "[clearance]") {
  OccupancyModel model;
  model.resolution = 0.25;
  ClearanceOptions o;
  o.ignoreBelow = 0.0;   // centres (z + 0.5) * 0.25 below 0: z <= -1
  o.ignoreAbove = 2.0;   // above 2: z >= 8
  ObstacleBand b = o.band(model);
  CHECK((b.hasLow && b.low == 0 && b.hasHigh && b.high == 7));
  o.ignoreBelow = 0.125;  // exactly layer 0's centre: kept
  o.ignoreAbove = 1.875;  // exactly layer 7's centre: kept
  b = o.band(model);
  CHECK((b.low == 0 && b.high == 7));
  o.ignoreBelow = 0.13;
  CHECK(o.band(model).low == 1);
  CHECK(ClearanceOptions{}.band(model).contains(INT64_MIN));
  o.ignoreBelow = 1.0, o.ignoreAbove = 1.1;  // no centre between: nothing could be an obstacle
  CHECK_THROWS_WITH(o.validate(model), Catch::Contains("no voxel centre"));
  o.ignoreBelow = 1e12;
  try {
    o.validate(model);
    FAIL("a height past the voxel range was accepted");
  } catch (const ClearanceSettingsError& e) {
    CHECK(e.setting() == "ignore-below");
  }
}

TEST_CASE("Clearance: obstacles below and above the given heights are left out, CPU, GPU and brute force", "[clearance][gpu]") {
  const OccupancyMap base = roomMap();
  for (int variant = 0; variant < 3; ++variant) {
    ClearanceOptions options;
    options.range = 1.5;
    if (variant != 1) options.ignoreBelow = 0.0;  // the floor and what lies under it
    if (variant != 0) options.ignoreAbove = 2.0;  // the ceiling
    options.unknownFree = variant == 2;
    OccupancyMap cpu = base;
    computeClearanceCpu(cpu, options);
    const ClearanceError e = compareWithBruteForce(cpu, {0, 0, 0}, options);
    INFO("variant " << variant << ": max error " << e.maxError << ", range mismatches " << e.rangeMismatches);
    CHECK(e.maxError < 1e-5);
    CHECK(e.rangeMismatches == 0);
    // Many voxels farther from an obstacle than with the floor and ceiling counted.
    ClearanceOptions all = options;
    all.ignoreBelow.reset(), all.ignoreAbove.reset();
    OccupancyMap counted = base;
    computeClearanceCpu(counted, all);
    const auto with = counted.findRegion({0, 0, 0})->values<float>(clearanceLayer());
    const auto without = cpu.findRegion({0, 0, 0})->values<float>(clearanceLayer());
    size_t farther = 0;
    for (size_t i = 0; i < with.size(); ++i) farther += (without[i] < 0 ? 1e9f : without[i]) > (with[i] < 0 ? 1e9f : with[i]);
    CHECK(farther > 1000);
    OccupancyMap gpu = base;
    options.technique = ClearanceTechnique::Exact;
    GpuClearance(vt::gpu().scheduler, gpu, options).compute();
    const ClearanceComparison c = compareClearance(cpu, gpu);
    CHECK(c.sameBits == c.voxels);
    if (variant != 2) continue;
    // The propagation techniques, on the centre region (against the reference's copy of it).
    OccupancyMap centre(cpu.model(), cpu.layout());
    centre.region({0, 0, 0}) = *cpu.findRegion({0, 0, 0});
    for (ClearanceTechnique t : {ClearanceTechnique::Roi, ClearanceTechnique::Neighbour, ClearanceTechnique::OpenList}) {
      OccupancyMap map = base;
      options.technique = t;
      GpuClearance(vt::gpu().scheduler, map, options).compute(std::vector<RegionKey>{{0, 0, 0}});
      const ClearanceComparison p = compareClearance(centre, map);
      INFO(clearanceTechniqueName(t) << ": max error " << p.maxError << ", none mismatches " << p.noneMismatches);
      CHECK(propagationShortfall(p, 0.25) == "");
    }
  }
}

TEST_CASE("Clearance: the settings are saved with the layer, loaded back and told in words", "[clearance]") {
  OccupancyMap map = freeMap(0.25, {0, 0, 0}, {0, 0, 0});
  setOccupied(map, {4, 4, 4});
  ClearanceOptions options;
  options.range = 1.5;
  options.unknownFree = true;
  options.axisScale = {1.0, 1.0, 0.5};
  options.ignoreBelow = 0.3;
  computeClearanceCpu(map, options);
  const std::string words = clearanceSettingsInWords(map);
  CHECK(words == "range 1.5 m, exact technique, unknown space free, axis scale 1 1 0.5, obstacles below 0.3 m ignored");
  vt::TempDir dir("clearance-settings");
  saveMap(map, dir.path() / "map.vxm");
  const MapFileInfo info = readMapInfo(dir.path() / "map.vxm");
  CHECK(info.version == 3);
  CHECK(clearanceSettingsInWords(info.layout, info.derivedSettings[clearanceLayer()]) == words);
  const OccupancyMap loaded = loadMap(dir.path() / "map.vxm");
  CHECK(clearanceSettingsInWords(loaded) == words);
  const std::optional<ClearanceOptions> parsed = ClearanceOptions::parseSettings(loaded.derivedSettings(clearanceLayer()));
  REQUIRE(parsed);
  CHECK(parsed->fingerprint() == options.fingerprint());
  // Loaded with its settings, the layer is still recomputed (its stamps are not saved), and
  // with other settings too.
  CHECK(clearanceDirtyRegions(loaded, options).size() == 1);
  // A map without derived settings stays version 2, readable by older builds.
  const OccupancyMap plain = freeMap(0.25, {0, 0, 0}, {0, 0, 0});
  saveMap(plain, dir.path() / "plain.vxm");
  CHECK(readMapInfo(dir.path() / "plain.vxm").version == 2);
  CHECK(clearanceSettingsInWords(plain) == "");
  // A damaged settings section is named.
  {
    std::fstream file(dir.path() / "map.vxm", std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(std::streamoff(kMapFileHeaderBytes + 2 * kMapFileLayerEntryBytes + 4 + 2 + 2 + 3));
    file.put('#');
  }
  CHECK_THROWS_WITH(loadMap(dir.path() / "map.vxm"), Catch::Contains("derived settings checksum mismatch"));
}

}  // namespace
