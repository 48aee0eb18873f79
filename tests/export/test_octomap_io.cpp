// OctoMap binary (.bt) import and export: round trips, pruning, a hand-built tree decoded
// from the format's definition, negative coordinates and the errors a bad file must give.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/map/map.hpp"
#include "voxen/export/octomap_io.hpp"
#include "voxen/host/error.hpp"

namespace {

using voxen::OccupancyMap;
using voxen::OccupancyModel;
using voxen::VoxelClass;
using voxen::VoxelCoord;

void setVoxel(OccupancyMap& map, VoxelCoord v, float value) {
  map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = value;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  REQUIRE(out.good());
}

// The binary tree of a .bt file: everything after the header's "data" line.
std::string treeBytes(const std::string& file) {
  const size_t at = file.find("\ndata\n");
  REQUIRE(at != std::string::npos);
  return file.substr(at + 6);
}

// The number after "size " in the header.
uint64_t headerSize(const std::string& file) {
  const size_t at = file.find("\nsize ");
  REQUIRE(at != std::string::npos);
  return std::stoull(file.substr(at + 6));
}

// Every observed voxel of `a` has the same class in `b`, and the other way round.
void requireSameClasses(const OccupancyMap& a, const OccupancyMap& b) {
  auto check = [](const OccupancyMap& from, const OccupancyMap& to) {
    size_t mismatches = 0;
    for (const auto& [key, region] : from.regions())
      for (uint32_t i = 0; i < region.occupancy().size(); ++i) {
        const VoxelCoord v = from.voxelOf(key, i);
        if (from.classify(region.occupancy()[i]) != to.classify(v)) {
          if (mismatches++ < 5)
            UNSCOPED_INFO("voxel (" << v.x << ", " << v.y << ", " << v.z << ") class "
                                    << int(from.classify(region.occupancy()[i])) << " became " << int(to.classify(v)));
        }
      }
    CHECK(mismatches == 0);
  };
  check(a, b);
  check(b, a);
}

std::string errorOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const voxen::Error& e) {
    return e.what();
  }
  return "<no voxen::Error thrown>";
}

// The .bt text header of an OcTree with `nodes` nodes at resolution `res`.
std::string btHeader(const std::string& id, uint64_t nodes, const std::string& res) {
  return "# Octomap OcTree binary file\n# hand-made for a test\n#\nid " + id + "\nsize " + std::to_string(nodes) +
         "\nres " + res + "\ndata\n";
}

// A tiny tree written out from the format's definition (two bytes per node, children 0-3 in
// the first and 4-7 in the second, 2 bits per child from the least significant bit up:
// 0 unknown, 1 free leaf, 2 occupied leaf, 3 inner; inner children follow depth first):
//   voxel (0, 0, 0) occupied: keys 32768 = 0b1000..0 on every axis, so root child 7, then
//     child 0 down to depth 16;
//   voxel (-1, 0, 0) free: x key 32767 = 0b0111..1, y and z keys 32768: root child 6, then
//     child 1 (x bit set) down to depth 16;
//   voxels (2..3, 2..3, 2..3) free as one pruned leaf: child 7 of the depth-14 node on the
//     path to (0, 0, 0), whose 4^3 voxels are 0..3 on each axis.
std::string handBuiltTree(uint64_t& nodes) {
  std::string bytes;
  auto node = [&](uint8_t low, uint8_t high) {
    bytes.push_back(char(low));
    bytes.push_back(char(high));
  };
  node(0x00, 0xF0);  // root: child 6 inner (3 << 4), child 7 inner (3 << 6)
  // child 6's subtree: depths 1..14 have child 1 inner, depth 15 has child 1 a free leaf
  for (int depth = 1; depth <= 14; ++depth) node(0x0C, 0x00);
  node(0x04, 0x00);
  // child 7's subtree: depths 1..13 have child 0 inner; depth 14 has child 0 inner and
  // child 7 a free leaf (1 << 6 in the second byte); depth 15 has child 0 an occupied leaf
  for (int depth = 1; depth <= 13; ++depth) node(0x03, 0x00);
  node(0x03, 0x40);
  node(0x02, 0x00);
  nodes = 1 + (14 + 1 + 1) + (13 + 1 + 1 + 2);  // root, child 6's chain and leaf, child 7's chain and leaves
  return bytes;
}

}  // namespace

TEST_CASE("OctoMap export then import keeps every voxel's class", "[octomap]") {
  vt::TempDir dir("octomap");
  OccupancyModel model = OccupancyModel::ohm();
  model.resolution = 0.05;
  OccupancyMap map(model);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> coord(-70, 70);
  std::uniform_real_distribution<float> logOdds(-2.0f, 3.5f);
  for (int i = 0; i < 20000; ++i) setVoxel(map, {coord(rng), coord(rng), coord(rng)}, logOdds(rng));
  // Solid blocks (pruned on export), one straddling the origin and regions' edges.
  for (int z = -16; z < 16; ++z)
    for (int y = -16; y < 16; ++y)
      for (int x = -16; x < 16; ++x) setVoxel(map, {x + 200, y, z}, -1.0f);
  for (int z = -8; z < 8; ++z)
    for (int y = -8; y < 8; ++y)
      for (int x = -8; x < 8; ++x) setVoxel(map, {x, y - 100, z}, 2.0f);
  const auto counts = map.counts();
  REQUIRE(counts.occupied > 1000);
  REQUIRE(counts.free > 1000);

  const auto path = dir / "map.bt";
  voxen::exportOctomap(map, path);
  const OccupancyMap back = voxen::importOctomap(path);

  CHECK(back.model().resolution == Approx(0.05).epsilon(1e-12));
  CHECK(back.regionSize() == OccupancyModel::octomap().regionSize);
  const auto backCounts = back.counts();
  CHECK(backCounts.occupied == counts.occupied);
  CHECK(backCounts.free == counts.free);
  requireSameClasses(map, back);
  // Values are the model's clamps: the file carries classes only.
  CHECK(back.value({0, -100, 0}) == OccupancyModel::octomap().clampMax);
  CHECK(back.value({200, 0, 0}) == OccupancyModel::octomap().clampMin);

  // The base model supplies the region size and clamps.
  OccupancyModel base = OccupancyModel::ohm();
  base.regionSize = 16;
  const OccupancyMap back16 = voxen::importOctomap(path, base);
  CHECK(back16.regionSize() == 16);
  CHECK(back16.model().resolution == Approx(0.05).epsilon(1e-12));
  CHECK(back16.value({0, -100, 0}) == base.clampMax);
  requireSameClasses(map, back16);
}

TEST_CASE("OctoMap export prunes uniform octets", "[octomap]") {
  vt::TempDir dir("octomap");
  OccupancyMap solid(OccupancyModel::octomap()), checker(OccupancyModel::octomap());
  // Voxels 0..7 are keys 32768..32775: one aligned 8^3 cube, a depth-13 node.
  for (int z = 0; z < 8; ++z)
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x) {
        setVoxel(solid, {x, y, z}, 3.5f);
        setVoxel(checker, {x, y, z}, (x + y + z) % 2 ? 3.5f : -2.0f);
      }
  voxen::exportOctomap(solid, dir / "solid.bt");
  voxen::exportOctomap(checker, dir / "checker.bt");
  const std::string solidFile = readFile(dir / "solid.bt"), checkerFile = readFile(dir / "checker.bt");
  CHECK(solidFile.size() < checkerFile.size());
  // Solid: inner nodes at depths 0..12 and one occupied leaf at depth 13.
  CHECK(headerSize(solidFile) == 14);
  CHECK(treeBytes(solidFile).size() == 2 * 13);
  // Checkerboard: nothing merges: inner nodes at depths 0..15 (13 + 1 + 8 + 64) and 512 leaves.
  CHECK(headerSize(checkerFile) == 13 + 1 + 8 + 64 + 512);
  CHECK(treeBytes(checkerFile).size() == 2 * (13 + 1 + 8 + 64));

  // The pruned leaf expands back to all 512 voxels, and nothing more.
  const OccupancyMap back = voxen::importOctomap(dir / "solid.bt");
  CHECK(back.counts().occupied == 512);
  CHECK(back.counts().free == 0);
  requireSameClasses(solid, back);
  requireSameClasses(checker, voxen::importOctomap(dir / "checker.bt"));
}

TEST_CASE("A hand-built OctoMap tree decodes to the voxels the format defines", "[octomap]") {
  vt::TempDir dir("octomap");
  uint64_t nodes = 0;
  const std::string tree = handBuiltTree(nodes);
  writeFile(dir / "tiny.bt", btHeader("OcTree", nodes, "0.25") + tree);

  const OccupancyMap map = voxen::importOctomap(dir / "tiny.bt");
  CHECK(map.model().resolution == 0.25);
  CHECK(map.classify(VoxelCoord{0, 0, 0}) == VoxelClass::Occupied);
  CHECK(map.classify(VoxelCoord{-1, 0, 0}) == VoxelClass::Free);
  for (int z = 2; z <= 3; ++z)
    for (int y = 2; y <= 3; ++y)
      for (int x = 2; x <= 3; ++x) CHECK(map.classify(VoxelCoord{x, y, z}) == VoxelClass::Free);
  CHECK(map.counts().occupied == 1);
  CHECK(map.counts().free == 1 + 8);
  // Neighbours stay unknown.
  CHECK(map.classify(VoxelCoord{1, 0, 0}) == VoxelClass::Unobserved);
  CHECK(map.classify(VoxelCoord{0, -1, 0}) == VoxelClass::Unobserved);
  CHECK(map.classify(VoxelCoord{4, 3, 3}) == VoxelClass::Unobserved);
  // OctoMap puts key k's centre at (k - 32768 + 0.5) * res: voxel 0's centre is 0.125 m.
  CHECK(map.voxelCentre({0, 0, 0}).x == 0.125);

  // The writer, given the same voxels, produces exactly these bytes (the tree is already
  // pruned as far as OctoMap would prune it).
  OccupancyMap same(OccupancyModel::octomap());
  setVoxel(same, {0, 0, 0}, 1.0f);
  setVoxel(same, {-1, 0, 0}, -1.0f);
  for (int z = 2; z <= 3; ++z)
    for (int y = 2; y <= 3; ++y)
      for (int x = 2; x <= 3; ++x) setVoxel(same, {x, y, z}, -0.5f);
  voxen::exportOctomap(same, dir / "same.bt");
  const std::string written = readFile(dir / "same.bt");
  CHECK(treeBytes(written) == tree);
  CHECK(headerSize(written) == nodes);
  CHECK(written.rfind("# Octomap OcTree binary file\n", 0) == 0);
  CHECK(written.find("\nid OcTree\n") != std::string::npos);
}

TEST_CASE("OctoMap import and export handle negative coordinates and the key range's edges", "[octomap]") {
  vt::TempDir dir("octomap");
  OccupancyMap map(OccupancyModel::octomap());
  const std::vector<VoxelCoord> occupied = {{-1, -1, -1}, {-32768, 5, -7}, {32767, -32768, 32767}, {-33, -32, -31}};
  const std::vector<VoxelCoord> freeVoxels = {{-2, -1, -1}, {-32768, -32768, -32768}, {32767, 32767, 32767}, {0, -1, 0}};
  for (const auto& v : occupied) setVoxel(map, v, 3.5f);
  for (const auto& v : freeVoxels) setVoxel(map, v, -2.0f);
  voxen::exportOctomap(map, dir / "edges.bt");
  const OccupancyMap back = voxen::importOctomap(dir / "edges.bt");
  for (const auto& v : occupied) CHECK(back.classify(v) == VoxelClass::Occupied);
  for (const auto& v : freeVoxels) CHECK(back.classify(v) == VoxelClass::Free);
  CHECK(back.counts().occupied == occupied.size());
  CHECK(back.counts().free == freeVoxels.size());
  requireSameClasses(map, back);

  // One voxel past either end of the key range cannot be written, and the error names it.
  for (const VoxelCoord outside : {VoxelCoord{32768, 0, 0}, VoxelCoord{0, -32769, 0}}) {
    OccupancyMap far(OccupancyModel::octomap());
    setVoxel(far, {1, 2, 3}, 3.5f);
    setVoxel(far, outside, -2.0f);
    const std::string message = errorOf([&] { voxen::exportOctomap(far, dir / "far.bt"); });
    std::string name = "(";
    name += std::to_string(outside.x) + ", " + std::to_string(outside.y) + ", " + std::to_string(outside.z) + ")";
    CHECK_THAT(message, Catch::Contains(name) && Catch::Contains("key range"));
  }
  // An unobserved voxel out there is no obstacle: its region is just skipped.
  OccupancyMap farUnobserved(OccupancyModel::octomap());
  farUnobserved.region(farUnobserved.regionOf({40000, 0, 0}));
  setVoxel(farUnobserved, {1, 2, 3}, 3.5f);
  CHECK_NOTHROW(voxen::exportOctomap(farUnobserved, dir / "ok.bt"));
}

TEST_CASE("OctoMap import rejects bad files with errors that say what is wrong", "[octomap]") {
  vt::TempDir dir("octomap");
  uint64_t nodes = 0;
  const std::string tree = handBuiltTree(nodes);
  const auto path = dir / "bad.bt";
  auto importError = [&](const std::string& bytes) {
    writeFile(path, bytes);
    return errorOf([&] { voxen::importOctomap(path); });
  };

  // The good file imports (so the failures below come from what each one changes).
  CHECK(importError(btHeader("OcTree", nodes, "0.1") + tree) == "<no voxen::Error thrown>");
  CHECK(importError(btHeader("1", nodes, "0.1") + tree) == "<no voxen::Error thrown>");  // OctoMap's old id

  SECTION("truncated data") {
    for (size_t keep : {size_t(0), size_t(1), tree.size() / 2, tree.size() - 1})
      CHECK_THAT(importError(btHeader("OcTree", nodes, "0.1") + tree.substr(0, keep)), Catch::Contains("truncated"));
  }
  SECTION("node count that disagrees with the data") {
    CHECK_THAT(importError(btHeader("OcTree", nodes + 1, "0.1") + tree), Catch::Contains("nodes"));
    CHECK_THAT(importError(btHeader("OcTree", nodes - 1, "0.1") + tree), Catch::Contains("nodes"));
  }
  SECTION("bad header") {
    CHECK_THAT(importError("# Not an octomap\nid OcTree\nsize 1\nres 0.1\ndata\n\0\0"), Catch::Contains("bad header"));
    CHECK_THAT(importError(""), Catch::Contains("bad.bt: the file is empty (0 bytes)"));
    CHECK_THAT(importError("# Octomap OcTree binary file\nid OcTree\nsize 34\nres 0.1\n"),
               Catch::Contains("bad header") && Catch::Contains("data"));
    CHECK_THAT(importError("# Octomap OcTree binary file\nsize 34\nres 0.1\ndata\n" + tree),
               Catch::Contains("bad header") && Catch::Contains("id"));
    CHECK_THAT(importError("# Octomap OcTree binary file\nid OcTree\nsize many\nres 0.1\ndata\n" + tree),
               Catch::Contains("bad header") && Catch::Contains("size"));
    CHECK_THAT(importError("# Octomap OcTree file\nid OcTree\nsize 1\nres 0.1\ndata\n"), Catch::Contains(".ot"));
  }
  SECTION("unsupported tree type") {
    const std::string message = importError(btHeader("ColorOcTree", nodes, "0.1") + tree);
    CHECK_THAT(message, Catch::Contains("ColorOcTree") && Catch::Contains("not supported"));
    CHECK_THAT(importError(btHeader("OcTreeStamped", nodes, "0.1") + tree), Catch::Contains("OcTreeStamped"));
  }
  SECTION("resolution must be positive") {
    CHECK_THAT(importError(btHeader("OcTree", nodes, "0") + tree), Catch::Contains("resolution"));
    CHECK_THAT(importError(btHeader("OcTree", nodes, "-0.1") + tree), Catch::Contains("resolution"));
    CHECK_THAT(importError(btHeader("OcTree", nodes, "nan") + tree), Catch::Contains("resolution"));
  }
  SECTION("inner node below the finest level") {
    std::string deep;
    deep += std::string(1, char(0x03)) + std::string(1, char(0x00));  // root: child 0 inner
    for (int depth = 1; depth <= 15; ++depth) deep += std::string(1, char(0x03)) + std::string(1, char(0x00));
    CHECK_THAT(importError(btHeader("OcTree", 17, "0.1") + deep), Catch::Contains("finest level"));
  }
  SECTION("a pruned leaf too large to expand") {
    // Root child 0 a free leaf at depth 1: 32768^3 voxels.
    CHECK_THAT(importError(btHeader("OcTree", 2, "0.1") + std::string(1, char(0x01)) + std::string(1, char(0x00))),
               Catch::Contains("expand"));
  }
  SECTION("missing file, a directory, a device") {
    CHECK_THAT(errorOf([&] { voxen::importOctomap(dir / "missing.bt"); }),
               Catch::Contains("missing.bt") && Catch::Contains("no such file"));
    std::filesystem::create_directory(dir / "folder.bt");
    CHECK_THAT(errorOf([&] { voxen::importOctomap(dir / "folder.bt"); }),
               Catch::Contains("folder.bt") && Catch::Contains("is a directory"));
    CHECK_THAT(errorOf([&] { voxen::importOctomap("/dev/null"); }),
               Catch::Contains("/dev/null") && Catch::Contains("character device"));
  }
}

TEST_CASE("An empty map exports as an empty OctoMap tree and imports back empty", "[octomap]") {
  vt::TempDir dir("octomap");
  OccupancyMap empty(OccupancyModel::octomap());
  voxen::exportOctomap(empty, dir / "empty.bt");
  const std::string file = readFile(dir / "empty.bt");
  CHECK(headerSize(file) == 0);
  CHECK(treeBytes(file).empty());
  const OccupancyMap back = voxen::importOctomap(dir / "empty.bt");
  CHECK(back.regions().empty());
}
