// PCD input: ascii, binary and binary_compressed bodies, a folder of files in name order,
// VIEWPOINT as the origin or a trajectory with a per-point time, and bad files named.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "support/test_helpers.hpp"
#include "voxen/input/pcd.hpp"
#include "voxen/input/ply.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/input/recording_info.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

using Catch::Matchers::Contains;
using voxen::PcdColumn;
using voxen::PcdData;
using voxen::Ray;

namespace {

const std::vector<PcdColumn> kColumns = {{"x", 'F', 4}, {"y", 'F', 4}, {"z", 'F', 8}, {"intensity", 'U', 2}, {"t", 'F', 8}};
// Values a float holds exactly, so every body gives the same rays.
const std::vector<double> kRows = {1.5, 2.25, -3.125, 100, 0.5,   //
                                   -4.0, 0.75, 8.5, 7, 0.25,      //
                                   0.125, -1.5, 2.0, 65535, 0.75};

bool sameRays(const std::vector<Ray>& a, const std::vector<Ray>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].origin != b[i].origin || a[i].sample != b[i].sample || a[i].time != b[i].time ||
        a[i].intensity != b[i].intensity)
      return false;
  return true;
}

}  // namespace

TEST_CASE("PCD ascii, binary and binary_compressed bodies give the same rays, VIEWPOINT as the origin", "[pcd][input]") {
  vt::TempDir dir("pcd-bodies");
  const std::array<double, 7> viewpoint = {10.0, -2.0, 1.5, 1, 0, 0, 0};
  for (const PcdData data : {PcdData::Ascii, PcdData::Binary, PcdData::BinaryCompressed}) {
    INFO(voxen::pcdDataName(data));
    const auto path = dir / (std::string(voxen::pcdDataName(data)) + ".pcd");
    voxen::writePcd(path, kColumns, kRows, data, viewpoint);
    CHECK(voxen::readPcdHeader(path).data == data);
    voxen::RayLoadStats stats;
    const std::vector<Ray> rays = voxen::readRays(path, std::nullopt, &stats);
    REQUIRE(rays.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
      CHECK(rays[i].sample == glm::dvec3(kRows[i * 5], kRows[i * 5 + 1], kRows[i * 5 + 2]));
      CHECK(rays[i].origin == glm::dvec3(10.0, -2.0, 1.5));
      CHECK(rays[i].intensity == float(kRows[i * 5 + 3]));
      CHECK(rays[i].time == kRows[i * 5 + 4]);
    }
    voxen::RayReader reader(path);
    CHECK(reader.format() == "PCD");
    CHECK(reader.timeField() == "t");
    CHECK(reader.intensityField() == "intensity");
    CHECK(reader.originFields() == "VIEWPOINT");
  }
}

TEST_CASE("A folder of PCD files is read in name order, each with its own VIEWPOINT; NaN points are skipped and counted",
          "[pcd][input]") {
  vt::TempDir dir("pcd-folder");
  std::filesystem::create_directories(dir / "scans");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Written out of order: the reader sorts by name.
  voxen::writePcd(dir / "scans/b.pcd", {{{"x", 'F', 4}, {"y", 'F', 4}, {"z", 'F', 4}}}, std::vector<double>{2, 0, 0, nan, 1, 1},
                  PcdData::Binary, std::array<double, 7>{0, 2, 0, 1, 0, 0, 0});
  voxen::writePcd(dir / "scans/a.pcd", {{{"x", 'F', 4}, {"y", 'F', 4}, {"z", 'F', 4}}}, std::vector<double>{1, 0, 0, 0, nan, 0},
                  PcdData::Ascii, std::array<double, 7>{0, 1, 0, 1, 0, 0, 0});
  voxen::writePcd(dir / "scans/c.pcd", {{{"x", 'F', 4}, {"y", 'F', 4}, {"z", 'F', 4}}}, std::vector<double>{3, 0, 0},
                  PcdData::BinaryCompressed, std::array<double, 7>{0, 3, 0, 1, 0, 0, 0});
  dir.write("scans/notes.txt", "not a cloud");
  voxen::RayLoadStats stats;
  const std::vector<Ray> rays = voxen::readRays(dir / "scans", std::nullopt, &stats);
  REQUIRE(rays.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(rays[i].sample.x == double(i + 1));
    CHECK(rays[i].origin == glm::dvec3(0, double(i + 1), 0));
  }
  CHECK(stats.points == 5);
  CHECK(stats.skippedNonFinite == 2);  // "nan" in the ascii file, NaN in the binary one
}

TEST_CASE("PCD files with a per-point time and a trajectory give the PLY cloud's rays bit for bit, for any threads",
          "[pcd][input][threads]") {
  vt::TempDir dir("pcd-trajectory");
  const voxen::SyntheticScene scene = voxen::SyntheticScene::generate(5);
  voxen::LidarConfig lidar;
  lidar.rings = 8;
  lidar.columns = 256;
  lidar.scans = 3;
  lidar.speed = 2.0;
  voxen::writeLidarRun(scene, lidar, dir / "run.ply", dir / "run.txt");
  voxen::PlyReader ply(dir / "run.ply");
  std::vector<PcdColumn> columns;
  for (const auto& p : ply.element().properties) columns.push_back({p.name, 'F', 8});
  std::vector<double> rows;
  while (ply.read(rows, 1 << 20) > 0) {
  }
  // Three files, cut anywhere: the order of the points is what counts.
  std::filesystem::create_directories(dir / "pcd");
  const size_t n = columns.size(), points = rows.size() / n;
  const size_t cuts[] = {0, points / 3, points / 2 + 7, points};
  const PcdData bodies[] = {PcdData::Binary, PcdData::BinaryCompressed, PcdData::Ascii};
  for (int f = 0; f < 3; ++f)
    voxen::writePcd(dir / ("pcd/scan" + std::to_string(f) + ".pcd"), columns,
                    std::span<const double>(rows).subspan(cuts[f] * n, (cuts[f + 1] - cuts[f]) * n), bodies[f]);

  const std::vector<Ray> reference = voxen::readRays(dir / "run.ply", dir / "run.txt");
  REQUIRE(reference.size() > 1000);
  for (const unsigned threads : {1u, 2u, 8u}) {
    voxen::RayReader reader(dir / "pcd", dir / "run.txt", {.threads = threads, .chunkPoints = 500});
    std::vector<Ray> rays;
    while (reader.read(rays, 4096) > 0) {
    }
    CHECK(sameRays(rays, reference));
  }
}

TEST_CASE("Bad PCD files are errors naming the file and the line, field or bytes", "[pcd][input]") {
  vt::TempDir dir("pcd-bad");
  const std::string head = "# .PCD v0.7\nVERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 2\nHEIGHT 1\n"
                           "VIEWPOINT 0 0 0 1 0 0 0\nPOINTS 2\n";
  auto error = [&](const std::string& name, const std::string& text) {
    dir.write(name, text);
    return vt::errorOf([&] { voxen::readRays(dir / name); });
  };
  CHECK_THAT(error("short.pcd", head + "DATA ascii\n1 2 3\n"),
             Contains("short.pcd:12: the body ends after 1 of POINTS 2 points"));
  CHECK_THAT(error("long.pcd", head + "DATA ascii\n1 2 3\n4 5 6\n7 8 9\n"), Contains("long.pcd:14: more points than POINTS 2"));
  CHECK_THAT(error("count.pcd", head + "DATA ascii\n1 2 3\n4 5\n"), Contains("count.pcd:13: 2 values, a point has 3"));
  CHECK_THAT(error("word.pcd", head + "DATA ascii\n1 2 3\n4 five 6\n"), Contains("word.pcd:13: field y: not a number: 'five'"));
  CHECK_THAT(error("key.pcd", "VERSION 0.7\nFIELDS x y z\nSIZES 4 4 4\n"), Contains("key.pcd:3: not a PCD header line"));
  CHECK_THAT(error("sizes.pcd", "VERSION 0.7\nFIELDS x y z\nSIZE 4 4\nTYPE F F F\nWIDTH 1\nPOINTS 1\nDATA ascii\n1 2 3\n"),
             Contains("sizes.pcd:2: FIELDS names 3 fields but SIZE has 2"));
  CHECK_THAT(error("type.pcd", "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 2\nTYPE F F F\nWIDTH 1\nPOINTS 1\nDATA ascii\n1 2 3\n"),
             Contains("type.pcd:2: field z has TYPE F and SIZE 2"));
  CHECK_THAT(error("points.pcd", "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 3\nPOINTS 2\nDATA ascii\n"),
             Contains("points.pcd:6: POINTS 2 is not WIDTH x HEIGHT (3 x 1)"));
  CHECK_THAT(error("nodata.pcd", "VERSION 0.7\nFIELDS x y z\n"), Contains("nodata.pcd: truncated PCD header: no DATA line"));
  CHECK_THAT(error("binary.pcd", head + "DATA binary\n" + std::string(20, '\0')),
             Contains("binary.pcd: the binary body holds 20 bytes, but POINTS 2 of 12 bytes need 24 (the file is truncated)"));
  CHECK_THAT(error("noxyz.pcd", "VERSION 0.7\nFIELDS x y\nSIZE 4 4\nTYPE F F\nWIDTH 0\nVIEWPOINT 0 0 0 1 0 0 0\nDATA ascii\n"),
             Contains("noxyz.pcd: the PCD has no field z (it has: x (F4), y (F4))"));

  // A compressed body whose bytes were damaged does not decompress to its size.
  voxen::writePcd(dir / "packed.pcd", kColumns, kRows, PcdData::BinaryCompressed, std::array<double, 7>{0, 0, 0, 1, 0, 0, 0});
  std::string packed;
  {
    std::ifstream in(dir / "packed.pcd", std::ios::binary);
    packed.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t body = packed.find("DATA binary_compressed\n") + 23;
  std::string damaged = packed;
  damaged[body + 8] = char(0xff);  // the first LZF control byte: a back reference before the start
  CHECK_THAT(error("damaged.pcd", damaged), Contains("damaged.pcd: the binary_compressed body does not decompress"));
  CHECK_THAT(error("cut.pcd", packed.substr(0, packed.size() - 5)), Contains("cut.pcd: truncated binary_compressed body"));
  // A header that promises far more points than the compressed bytes can hold is refused
  // before anything is allocated for them.
  const std::string huge = "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 100000000\nPOINTS 100000000\n"
                           "VIEWPOINT 0 0 0 1 0 0 0\nDATA binary_compressed\n";
  std::string sizes(8, '\0');
  const uint32_t declared[2] = {4, 1200000000u};
  std::memcpy(sizes.data(), declared, 8);
  CHECK_THAT(error("huge.pcd", huge + sizes + "abcd"), Contains("huge.pcd: the binary_compressed body cannot expand from 4 to 1200000000 bytes"));

  // Without a trajectory the origin is the VIEWPOINT, which a file must then have.
  CHECK_THAT(error("noview.pcd", "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 1\nPOINTS 1\nDATA ascii\n1 2 3\n"),
             Contains("noview.pcd: the PCD has no VIEWPOINT line"));
  // With one, a per-point time.
  dir.write("traj.txt", "0 0 0 0\n1 1 0 0\n");
  CHECK_THAT(vt::errorOf([&] { voxen::RayReader reader(dir / "noview.pcd", dir / "traj.txt"); }),
             Contains("noview.pcd: the PCD has no per-point time field, which the trajectory") && Contains("traj.txt"));
  // Every file of a folder has the first one's fields.
  std::filesystem::create_directories(dir / "mixed");
  voxen::writePcd(dir / "mixed/1.pcd", kColumns, kRows, PcdData::Binary, std::array<double, 7>{0, 0, 0, 1, 0, 0, 0});
  voxen::writePcd(dir / "mixed/2.pcd", {{{"x", 'F', 4}, {"y", 'F', 4}, {"z", 'F', 4}}}, std::vector<double>{1, 2, 3},
                  PcdData::Binary, std::array<double, 7>{0, 0, 0, 1, 0, 0, 0});
  CHECK_THAT(vt::errorOf([&] { voxen::RayReader reader(dir / "mixed"); }),
             Contains("2.pcd: the PCD has no field t, which") && Contains("1.pcd has"));
}

TEST_CASE("Crafted PCD headers are refused by name before anything is allocated for them, sizes read in full",
          "[pcd][input]") {
  vt::TempDir dir("pcd-crafted");
  auto header = [](const std::string& fields, const std::string& size, const std::string& type, const std::string& count,
                   const std::string& width, const std::string& height, const std::string& points, const std::string& data) {
    return "VERSION 0.7\nFIELDS " + fields + "\nSIZE " + size + "\nTYPE " + type + "\nCOUNT " + count + "\nWIDTH " + width +
           "\nHEIGHT " + height + "\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS " + points + "\nDATA " + data + "\n";
  };
  auto error = [&](const std::string& name, const std::string& text) {
    dir.write(name, text);
    // Every reader of the file: the header alone, the points, and what inspect reads.
    const std::string fromHeader = vt::errorOf([&] { voxen::readPcdHeader(dir / name); });
    CHECK(vt::errorOf([&] { voxen::readRays(dir / name); }) == fromHeader);
    return fromHeader;
  };
  // 2^34 rows of 2^30 bytes: 2^64 bytes, which wrapped to 0 and matched an empty body; the
  // reader then ran off the file.
  CHECK_THAT(error("wrap.pcd", header("x y z pad", "4 4 4 4", "F F F U", "1 1 1 268435456", "17179869184", "1",
                                      "17179869184", "binary")),
             Contains("wrap.pcd:5: COUNT of field pad 268435456 is more than 1048576 (a point's fields may take at most "
                      "1048576 bytes)"));
  // Rows within the limit, a count within the limit, but no body for them.
  CHECK_THAT(error("nobody.pcd", header("x y z", "4 4 4", "F F F", "1 1 1", "17179869184", "1", "17179869184", "binary")),
             Contains("nobody.pcd: the binary body holds 0 bytes, but POINTS 17179869184 of 12 bytes need 206158430208 "
                      "(the file is truncated)"));
  // Sizes past a 32-bit int were cut to fit: SIZE 4294967300 read as 4, COUNT 4294967297 as 1.
  CHECK_THAT(error("size.pcd", header("x y z", "4294967300 4 4", "F F F", "1 1 1", "1", "1", "1", "ascii") + "1 2 3\n"),
             Contains("size.pcd:3: SIZE of field x 4294967300 is more than 8 (a value takes 1, 2, 4 or 8 bytes)"));
  CHECK_THAT(error("count.pcd", header("x y z", "4 4 4", "F F F", "4294967297 1 1", "1", "1", "1", "ascii") + "1 2 3\n"),
             Contains("count.pcd:5: COUNT of field x 4294967297 is more than 1048576"));
  CHECK_THAT(error("count0.pcd", header("x y z", "4 4 4", "F F F", "1 0 1", "1", "1", "1", "ascii") + "1 2 3\n"),
             Contains("count0.pcd:5: field y has COUNT 0 (at least 1)"));
  // Many fields whose sizes add up past the limit.
  CHECK_THAT(error("row.pcd", header("x y z a b", "4 4 4 8 8", "F F F F F", "1 1 1 100000 100000", "1", "1", "1", "binary")),
             Contains("row.pcd:5: the fields up to b take 1600012 bytes a point (SIZE x COUNT summed), more than the "
                      "1048576 bytes a PCD point may have"));
  // Counts past 64 bits, past the stated limit, and products that wrap.
  CHECK_THAT(error("points64.pcd", header("x y z", "4 4 4", "F F F", "1 1 1", "1", "1", "18446744073709551617", "ascii")),
             Contains("points64.pcd:9: POINTS 18446744073709551617 is more than 1099511627776 (the most points a PCD "
                      "header may state, 2^40)"));
  CHECK_THAT(error("points41.pcd", header("x y z", "4 4 4", "F F F", "1 1 1", "2199023255552", "1", "2199023255552", "ascii")),
             Contains("points41.pcd:6: WIDTH 2199023255552 is more than 1099511627776"));
  CHECK_THAT(error("area.pcd", header("x y z", "4 4 4", "F F F", "1 1 1", "4294967296", "4294967296", "0", "ascii")),
             Contains("area.pcd:6: WIDTH x HEIGHT (4294967296 x 4294967296) is more than 1099511627776 points"));
  CHECK_THAT(error("negative.pcd", header("x y z", "4 4 4", "F F F", "1 1 1", "-1", "1", "1", "ascii")),
             Contains("negative.pcd:6: WIDTH must be a whole number, not '-1'"));
  CHECK_THAT(error("mismatch.pcd", header("x y z", "4 4 4", "F F F", "1 1 1", "2", "1", "3", "ascii")),
             Contains("mismatch.pcd:9: POINTS 3 is not WIDTH x HEIGHT (2 x 1)"));
  // A compressed body that cannot expand to the header's points, refused by the header.
  CHECK_THAT(error("packed.pcd", header("x y z", "8 8 8", "F F F", "1 1 1", "1000000", "1", "1000000", "binary_compressed") +
                                     std::string(16, '\0')),
             Contains("packed.pcd: the binary_compressed body cannot expand from 8 to 24000000 bytes"));

  // An ascii body is checked line by line: a trillion points promised over one line end as
  // a short body, named by its line, with nothing allocated for the trillion.
  dir.write("trillion.pcd", header("x y z", "4 4 4", "F F F", "1 1 1", "1000000000000", "1", "1000000000000", "ascii") +
                                "1 2 3\n");
  CHECK(voxen::readPcdHeader(dir / "trillion.pcd").points == 1000000000000ull);
  CHECK_THAT(vt::errorOf([&] { voxen::readRays(dir / "trillion.pcd"); }),
             Contains("trillion.pcd:11: the body ends after 1 of POINTS 1000000000000 points (the file is truncated)"));
  CHECK_THAT(vt::errorOf([&] { voxen::inspectRecording(dir / "trillion.pcd"); }),
             Contains("trillion.pcd:11: the body ends after 1 of POINTS 1000000000000 points"));
}

namespace {

// x y z as float64 (exact), one ascii PCD with the VIEWPOINT given.
std::filesystem::path viewpointCloud(const vt::TempDir& dir, const std::string& name, const std::array<double, 7>& viewpoint) {
  const auto path = dir / name;
  voxen::writePcd(path, {{{"x", 'F', 8}, {"y", 'F', 8}, {"z", 'F', 8}}}, std::vector<double>{1, 0, 0, 0, 2, 5},
                  PcdData::Ascii, viewpoint);
  return path;
}

std::vector<Ray> raysRead(const std::filesystem::path& path, std::optional<voxen::PcdViewpoint> reading,
                          std::vector<voxen::SettingWarning>* warnings = nullptr) {
  voxen::RayReader reader(path, std::nullopt, {.pcdViewpoint = reading});
  if (warnings) *warnings = reader.settingWarnings();
  std::vector<Ray> rays;
  while (reader.read(rays, 1024) > 0) {
  }
  return rays;
}

}  // namespace

TEST_CASE("PCD VIEWPOINT is read as the points' origin or as the sensor's pose, as chosen, with a warning when not",
          "[pcd][input]") {
  vt::TempDir dir("pcd-viewpoint");
  // Half a turn about z (qw qx qy qz = 0 0 0 1) at (1, 2, 3): the rotation is exact.
  const auto turned = viewpointCloud(dir, "turned.pcd", {1, 2, 3, 0, 0, 0, 1});
  const glm::dvec3 origin(1, 2, 3);

  SECTION("origin: the points as stored, from VIEWPOINT's position") {
    const std::vector<Ray> rays = raysRead(turned, voxen::PcdViewpoint::Origin);
    REQUIRE(rays.size() == 2);
    CHECK(rays[0].sample == glm::dvec3(1, 0, 0));
    CHECK(rays[1].sample == glm::dvec3(0, 2, 5));
    CHECK(rays[0].origin == origin);
    CHECK(rays[1].origin == origin);
  }
  SECTION("pose: the points turned and moved by VIEWPOINT, from its position") {
    voxen::RayReader reader(turned, std::nullopt, {.pcdViewpoint = voxen::PcdViewpoint::Pose});
    CHECK(reader.settingWarnings().empty());
    CHECK_THAT(reader.originFields(), Contains("the sensor's pose"));
    const std::vector<Ray> rays = raysRead(turned, voxen::PcdViewpoint::Pose);
    REQUIRE(rays.size() == 2);
    // (x, y, z) -> (-x, -y, z) + (1, 2, 3)
    CHECK(rays[0].sample == glm::dvec3(0, 2, 3));
    CHECK(rays[1].sample == glm::dvec3(1, 0, 8));
    CHECK(rays[0].origin == origin);
    CHECK(rays[1].origin == origin);
  }
  SECTION("pose: returns from the robot are judged as the sensor measured them, the box turning with it") {
    // A box around the sensor's +x axis in its own frame holds the stored (1, 0, 0); posed, that
    // point lies along the map's -x from the sensor, where a box on the map's axes misses it.
    voxen::SensorExclusion box{.box = std::array<glm::dvec3, 2>{glm::dvec3(0.5, -0.5, -0.5), glm::dvec3(1.5, 0.5, 0.5)}};
    voxen::RayReader reader(turned, std::nullopt, {.pcdViewpoint = voxen::PcdViewpoint::Pose, .exclusion = box});
    std::vector<Ray> rays;
    while (reader.read(rays, 1024) > 0) {
    }
    REQUIRE(rays.size() == 1);
    CHECK(rays[0].sample == glm::dvec3(1, 0, 8));
    CHECK(reader.stats().skippedInBox == 1);
    CHECK(reader.stats().points == 2);
  }
  SECTION("pose with a quarter turn about x, normalised from the digits a writer prints") {
    // qw = qx = 0.7071068 (sqrt(1/2) to 7 digits): y goes to z, z to -y.
    const auto quarter = viewpointCloud(dir, "quarter.pcd", {0, 0, 1, 0.7071068, 0.7071068, 0, 0});
    const std::vector<Ray> rays = raysRead(quarter, voxen::PcdViewpoint::Pose);
    REQUIRE(rays.size() == 2);
    const glm::dvec3 expected[2] = {{1, 0, 1}, {0, -5, 3}};
    for (int i = 0; i < 2; ++i)
      for (int a = 0; a < 3; ++a) CHECK(rays[i].sample[a] == Approx(expected[i][a]).margin(1e-12));
    CHECK(rays[0].origin == glm::dvec3(0, 0, 1));
  }
  SECTION("not chosen: read as origin, with one warning naming both readings and the setting") {
    std::vector<voxen::SettingWarning> warnings;
    const std::vector<Ray> rays = raysRead(turned, std::nullopt, &warnings);
    REQUIRE(rays.size() == 2);
    CHECK(rays[1].sample == glm::dvec3(0, 2, 5));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].field == "RayReaderOptions::pcdViewpoint");
    const std::string text = warnings[0].naming("--pcd-viewpoint");
    CHECK_THAT(text, Contains("turned.pcd:") && Contains("VIEWPOINT 1 2 3 0 0 0 1 is not the identity") &&
                         Contains("read as origin (taken now") && Contains("or as pose") &&
                         Contains("set --pcd-viewpoint to origin or pose"));
    // Chosen either way, or an identity VIEWPOINT: nothing to warn of.
    raysRead(turned, voxen::PcdViewpoint::Origin, &warnings);
    CHECK(warnings.empty());
    raysRead(viewpointCloud(dir, "identity.pcd", {0, 0, 0, 1, 0, 0, 0}), std::nullopt, &warnings);
    CHECK(warnings.empty());
  }
  SECTION("a folder: one warning, counting the files") {
    std::filesystem::create_directories(dir / "scans");
    viewpointCloud(dir, "scans/a.pcd", {0, 0, 0, 1, 0, 0, 0});
    viewpointCloud(dir, "scans/b.pcd", {0, 0, 2, 1, 0, 0, 0});
    viewpointCloud(dir, "scans/c.pcd", {0, 0, 3, 1, 0, 0, 0});
    std::vector<voxen::SettingWarning> warnings;
    raysRead(dir / "scans", std::nullopt, &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0].message(), Contains("b.pcd:") && Contains("(2 of 3 files have such a VIEWPOINT)"));
  }
  SECTION("a VIEWPOINT whose quaternion is no rotation cannot be read as a pose") {
    const auto stretched = viewpointCloud(dir, "stretched.pcd", {0, 0, 0, 2, 0, 0, 0});
    CHECK_THAT(vt::errorOf([&] { raysRead(stretched, voxen::PcdViewpoint::Pose); }),
               Contains("stretched.pcd:9: VIEWPOINT 0 0 0 2 0 0 0: its rotation (qw qx qy qz) has length 2, not 1"));
    CHECK(raysRead(stretched, voxen::PcdViewpoint::Origin).size() == 2);
  }
  SECTION("other formats refuse a reading, naming the setting") {
    voxen::writeRayCloud(dir / "rays.ply", std::vector<Ray>(1));
    try {
      voxen::RayReader reader(dir / "rays.ply", std::nullopt, {.pcdViewpoint = voxen::PcdViewpoint::Pose});
      FAIL("a PLY took a PCD viewpoint reading");
    } catch (const voxen::SettingError& e) {
      CHECK(e.field() == "RayReaderOptions::pcdViewpoint");
      CHECK_THAT(e.naming("--pcd-viewpoint"), Contains("rays.ply: is a PLY") && Contains("--pcd-viewpoint applies to PCD files only"));
    }
  }
}
