// A heightmap's 2D outputs on a hand-made heightmap: the ground level's classes (an occupied
// column with no level is lethal, an empty one unknown), the Nav2 trinary PGM's bytes and
// YAML fields, the costmap's inflation against a brute-force distance, the exact distance
// transform against brute force on random grids, and the pictures.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include "support/png_reader.hpp"
#include "support/temp_dir.hpp"
#include "voxen/export/heightmap_export.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace {

using namespace voxen;

std::vector<uint8_t> fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// 5 x 4 columns at 0.1 m from voxel (-2, 3), two levels. Level 0 everywhere but:
// (4, 3) no level, occupied (a wall to the ceiling: lethal); (0, 3) nothing seen (unknown);
// (2, 1) lethal (too steep); (1, 0) cost 50. Level 1 only at (3, 2) (a table top).
Heightmap handMade() {
  HeightmapGrid grid;
  grid.gridX = -2, grid.gridY = 3, grid.width = 5, grid.height = 4, grid.zLow = 0, grid.zHigh = 40, grid.resolution = 0.1;
  grid.levels = 2;
  Heightmap hm(grid, HeightmapOptions{});
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 5; ++x) {
      hm.columnFlags()[y * 5 + x] = gpu::kColumnOccupied | gpu::kColumnFree;
      if ((x == 4 && y == 3) || (x == 0 && y == 3)) continue;
      gpu::HeightmapCell& c = hm.cell(0, x, y);
      c.flags = gpu::kLevelPresent;
      c.height = int(x) * gpu::kHeightUnits + 512;  // rises by a voxel per column
      c.room = 20;
      c.cost = 0;
    }
  hm.columnFlags()[3 * 5 + 0] = 0;  // nothing seen
  hm.cell(0, 2, 1).cost = gpu::kCostLethal;
  hm.cell(0, 1, 0).cost = 50;
  gpu::HeightmapCell& table = hm.cell(1, 3, 2);
  table.flags = gpu::kLevelPresent, table.height = 8 * gpu::kHeightUnits + 512, table.cost = 10;
  return hm;
}

TEST_CASE("Heightmap levels: an occupied column without a level is lethal, an empty one unknown", "[heightmapexport]") {
  const Heightmap hm = handMade();
  const std::vector<uint8_t> ground = levelCosts(hm, 0);
  CHECK(ground[3 * 5 + 4] == gpu::kCostLethal);
  CHECK(ground[3 * 5 + 0] == gpu::kCostUnknown);
  CHECK(ground[1 * 5 + 2] == gpu::kCostLethal);
  CHECK(ground[0 * 5 + 1] == 50);
  CHECK(ground[2 * 5 + 2] == 0);
  const std::vector<uint8_t> upper = levelCosts(hm, 1);
  CHECK(upper[2 * 5 + 3] == 10);
  CHECK(upper[3 * 5 + 4] == gpu::kCostLethal);   // no level at all there: still an obstacle
  CHECK(upper[0] == gpu::kCostUnknown);          // the ground has no second level here
  CHECK_THROWS_AS(levelCosts(hm, 2), SettingError);
}

TEST_CASE("Nav2 trinary map: PGM bytes top row first, and the map_server YAML", "[heightmapexport]") {
  const Heightmap hm = handMade();
  vt::TempDir dir("hm-nav2");
  const Nav2MapCounts counts = exportNav2Map(hm, dir / "site.yaml", {});
  CHECK(counts.free == 17);
  CHECK(counts.occupied == 2);
  CHECK(counts.unknown == 1);
  const std::vector<uint8_t> pgm = fileBytes(dir / "site.pgm");
  const std::string header = "P5\n# written by voxen\n5 4\n255\n";
  REQUIRE(pgm.size() == header.size() + 20);
  CHECK(std::string(pgm.begin(), pgm.begin() + std::ptrdiff_t(header.size())) == header);
  const uint8_t* px = pgm.data() + header.size();
  // Row 0 of the image is y = 3 (the top): unknown at x 0, lethal at x 4.
  CHECK(px[0] == 205);
  CHECK(px[4] == 0);
  CHECK(px[1] == 254);
  // Image row 2 is y = 1: lethal at x 2.
  CHECK(px[2 * 5 + 2] == 0);
  // The bottom row (y = 0): all free, cost 50 included.
  for (int x = 0; x < 5; ++x) CHECK(px[3 * 5 + x] == 254);
  const std::string yaml = readFile(dir / "site.yaml");
  CHECK(yaml.find("\nimage: site.pgm\n") != std::string::npos);
  CHECK(yaml.find("\nmode: trinary\n") != std::string::npos);
  CHECK(yaml.find("\nresolution: 0.1\n") != std::string::npos);
  CHECK(yaml.find("\norigin: [-0.2, 0.30000000000000004, 0.0]\n") != std::string::npos);
  CHECK(yaml.find("\nnegate: 0\n") != std::string::npos);
  CHECK(yaml.find("\noccupied_thresh: 0.65\n") != std::string::npos);
  CHECK(yaml.find("\nfree_thresh: 0.196\n") != std::string::npos);
  // map_server's reading (occ = (255 - p) / 255; occupied > 0.65, free < 0.196, else unknown)
  // gives back the three classes.
  auto classOf = [](uint8_t p) {
    const double occ = (255.0 - p) / 255.0;
    return occ > 0.65 ? 100 : occ < 0.196 ? 0 : -1;
  };
  CHECK(classOf(254) == 0);
  CHECK(classOf(0) == 100);
  CHECK(classOf(205) == -1);

  SECTION("--nav2-max-cost: costs above it are occupied") {
    Nav2MapCounts capped;
    const std::vector<uint8_t> pixels = nav2TrinaryPixels(hm, {.level = 0, .maxCost = 40}, &capped);
    CHECK(capped.occupied == 3);
    CHECK(pixels[3 * 5 + 1] == 0);
  }
  SECTION("a failed export leaves the existing pair as it was") {
    std::filesystem::create_directory(dir / "blocked.pgm");
    std::ofstream(dir / "blocked.yaml") << "old";
    CHECK_THROWS_AS(exportNav2Map(hm, dir / "blocked.yaml", {}), Error);
    CHECK(readFile(dir / "blocked.yaml") == "old");
  }
}

TEST_CASE("Squared distance transform equals brute force", "[heightmapexport]") {
  std::mt19937 random(7);
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t w = 1 + random() % 23, h = 1 + random() % 19;
    std::vector<uint8_t> obstacle(size_t(w) * h);
    const uint32_t density = random() % 4;  // 0: none at all
    for (auto& o : obstacle) o = density && random() % (10 * density) == 0;
    const std::vector<uint64_t> d2 = squaredDistanceTransform2D(obstacle, w, h);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        uint64_t best = kNoObstacle;
        for (uint32_t oy = 0; oy < h; ++oy)
          for (uint32_t ox = 0; ox < w; ++ox)
            if (obstacle[oy * w + ox]) {
              const int64_t dx = int64_t(x) - ox, dy = int64_t(y) - oy;
              best = std::min(best, uint64_t(dx * dx + dy * dy));
            }
        REQUIRE(d2[y * w + x] == best);
      }
  }
}

TEST_CASE("Costmap: lethal 100, unknown 255, inflation by the distance to the nearest lethal cell", "[heightmapexport]") {
  const Heightmap hm = handMade();
  const CostmapOptions options{.level = 0, .inflationRadius = 0.25, .inscribedRadius = 0.1, .costScaling = 3.0};
  const std::vector<uint8_t> values = costmapValues(hm, options);
  const std::vector<uint8_t> ground = levelCosts(hm, 0);
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 5; ++x) {
      const size_t i = y * 5 + x;
      if (ground[i] == gpu::kCostLethal) {
        CHECK(values[i] == 100);
        continue;
      }
      if (ground[i] == gpu::kCostUnknown) {
        CHECK(values[i] == 255);
        continue;
      }
      double nearest = INFINITY;
      for (uint32_t oy = 0; oy < 4; ++oy)
        for (uint32_t ox = 0; ox < 5; ++ox)
          if (ground[oy * 5 + ox] == gpu::kCostLethal) nearest = std::min(nearest, std::hypot(double(x) - ox, double(y) - oy) * 0.1);
      uint32_t expected = ground[i] * 98u / 100u;
      if (nearest <= 0.1) expected = 99;
      else if (nearest <= 0.25) expected = std::max<uint32_t>(expected, uint32_t(std::lround(98 * std::exp(-3.0 * (nearest - 0.1)))));
      INFO("cell " << x << ", " << y << " at " << nearest << " m");
      CHECK(values[i] == expected);
    }
  // Cell (1, 1) is 0.1 m from the lethal (2, 1): inscribed; (0, 0) is sqrt(5) cells away: 0.2236 m.
  CHECK(values[1 * 5 + 1] == 99);
  CHECK(values[0] == uint8_t(std::lround(98 * std::exp(-3.0 * (std::sqrt(5.0) * 0.1 - 0.1)))));
  CHECK(values[0] > 0);

  vt::TempDir dir("hm-costmap");
  const CostmapCounts counts = exportCostmap(hm, dir / "cost.yaml", options);
  CHECK(counts.lethal == 2);
  CHECK(counts.unknown == 1);
  CHECK(counts.inflated > 0);
  const std::vector<uint8_t> pgm = fileBytes(dir / "cost.pgm");
  REQUIRE(pgm.size() >= 20);
  const uint8_t* px = pgm.data() + pgm.size() - 20;
  for (uint32_t row = 0; row < 4; ++row)
    for (uint32_t x = 0; x < 5; ++x) CHECK(px[row * 5 + x] == values[(3 - row) * 5 + x]);
  const std::string yaml = readFile(dir / "cost.yaml");
  CHECK(yaml.find("\nimage: cost.pgm\n") != std::string::npos);
  CHECK(yaml.find("\nmode: raw\n") != std::string::npos);
  CHECK_THROWS_AS(costmapValues(hm, {.level = 0, .inflationRadius = -1.0}), SettingError);
}

TEST_CASE("Height and cost pictures: the level's cells framed with a legend and their YAML", "[heightmapexport][png]") {
  const Heightmap hm = handMade();
  vt::TempDir dir("hm-png");
  const HeightmapPicture height = exportHeightPng(hm, dir / "height.png", {.level = 0, .name = "hm.vxh", .scale = 10});
  CHECK(height.drawn == 18);
  CHECK(height.lethal == 1);
  CHECK(height.unknown == 1);
  CHECK(height.lo == Approx(0.05));
  CHECK(height.hi == Approx(0.45));
  CHECK(height.yaml == dir / "height.yaml");
  const vt::Png png = vt::decodePng(fileBytes(dir / "height.png"));
  CHECK(png.width > 50);   // 50 plot pixels plus the axes and the legend
  CHECK(png.height > 40);
  CHECK(readFile(dir / "height.yaml").find("image: height.png") != std::string::npos);

  const HeightmapPicture cost = exportCostPng(hm, dir / "cost.png", {.level = 0, .name = "hm.vxh", .scale = 10});
  CHECK(cost.drawn == 17);
  CHECK(cost.lethal == 2);
  CHECK(cost.unknown == 1);
  CHECK(std::filesystem::file_size(dir / "cost.png") > 0);

  // Level 1 has one cell: the table.
  const HeightmapPicture table = exportHeightPng(hm, dir / "table.png", {.level = 1, .scale = 4});
  CHECK(table.drawn == 1);
  CHECK_THROWS_AS(exportHeightPng(hm, dir / "none.png", {.level = 5}), SettingError);
}

}  // namespace
