// Recordings are told apart by their content: magic bytes, a KITTI scan's size, a folder's
// layout; anything else is an error naming the file.
#include <catch2/catch.hpp>

#include <string>

#include "support/temp_dir.hpp"
#include "support/test_helpers.hpp"
#include "voxen/input/input_format.hpp"
#include "voxen/input/ray_source.hpp"

using Catch::Matchers::Contains;
using voxen::detectInputFormat;
using voxen::InputFormat;

TEST_CASE("Input formats are known by their first bytes, whatever the file is called", "[input][format]") {
  vt::TempDir dir("input-format");
  dir.write("a.data", "ply\nformat ascii 1.0\nend_header\n");
  dir.write("b.data", "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\n");
  dir.write("c.data", "VERSION .7\nFIELDS x y z\n");
  dir.write("d.data", "#ROSBAG V2.0\n");
  dir.write("e.data", std::string("\x89MCAP0\r\n", 8) + "rest");
  dir.write("f.bin", std::string(32, '\0'));
  CHECK(detectInputFormat(dir / "a.data") == InputFormat::Ply);
  CHECK(detectInputFormat(dir / "b.data") == InputFormat::Pcd);
  CHECK(detectInputFormat(dir / "c.data") == InputFormat::Pcd);
  CHECK(detectInputFormat(dir / "d.data") == InputFormat::RosBag);
  CHECK(detectInputFormat(dir / "e.data") == InputFormat::Mcap);
  CHECK(detectInputFormat(dir / "f.bin") == InputFormat::KittiScan);
}

TEST_CASE("An unknown format, a .bin of partial points and an empty folder are errors naming the path",
          "[input][format]") {
  vt::TempDir dir("input-format-bad");
  dir.write("mystery.xyz", "1 2 3\n4 5 6\n");
  dir.write("short.bin", std::string(20, '\0'));
  std::filesystem::create_directories(dir / "empty");
  CHECK_THAT(vt::errorOf([&] { detectInputFormat(dir / "mystery.xyz"); }),
             Contains("mystery.xyz: unknown recording format") && Contains("starts with \"1 2 3\\x0a4"));
  CHECK_THAT(vt::errorOf([&] { detectInputFormat(dir / "short.bin"); }), Contains("short.bin") && Contains("multiple of 16"));
  CHECK_THAT(vt::errorOf([&] { detectInputFormat(dir / "empty"); }), Contains("empty: is a directory holding no recording"));
  CHECK_THAT(vt::errorOf([&] { voxen::RayReader reader(dir / "mystery.xyz"); }), Contains("mystery.xyz: unknown recording format"));
}

TEST_CASE("A file with a recording's magic but no recording after it is refused by that format's reader", "[input][format]") {
  vt::TempDir dir("input-format-magic");
  dir.write("run.bag", "#ROSBAG V2.0\nrest");
  dir.write("run.mcap", std::string("\x89MCAP0\r\nrest", 12));
  CHECK_THAT(vt::errorOf([&] { voxen::RayReader reader(dir / "run.bag"); }), Contains("run.bag: not a readable ROS 1 bag"));
  CHECK_THAT(vt::errorOf([&] { voxen::RayReader reader(dir / "run.mcap"); }), Contains("run.mcap"));
}
