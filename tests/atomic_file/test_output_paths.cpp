// voxen::checkOutputPaths: an output that is an input (directly, through a symbolic link or
// a hard link) or another output is refused with both names; devices named twice and
// distinct files pass; the writer's own rules come with the output's name.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "support/temp_dir.hpp"
#include "support/test_helpers.hpp"
#include "voxen/atomic_file/output_paths.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using vt::errorOf;

TEST_CASE("Output paths: an output that is an input is refused, whatever names it", "[output]") {
  const vt::TempDir dir("output-paths");
  dir.write("in.ply", "ply\n");
  const std::string in = (dir / "in.ply").string();
  fs::create_symlink(in, dir / "link.ply");
  REQUIRE(::link(in.c_str(), (dir / "hard.ply").c_str()) == 0);
  for (const std::string& out : {in, (dir / "link.ply").string(), (dir / "hard.ply").string()}) {
    const std::string message = errorOf([&] { voxen::checkOutputPaths({{"--output", out}}, {{"--cloud", in}}); });
    CHECK_THAT(message, Contains("--output is the same file as --cloud") && Contains("would destroy the input"));
  }
}

TEST_CASE("Output paths: two outputs in one file are refused, devices and distinct files pass", "[output]") {
  const vt::TempDir dir("output-paths");
  const std::string a = (dir / "a.ply").string();
  const std::string sameA = (dir.path() / "." / "a.ply").string();
  CHECK_THAT(errorOf([&] { voxen::checkOutputPaths({{"--cloud", a}, {"--trajectory", sameA}}, {}); }),
             Contains("--trajectory is the same file as --cloud") && Contains("give each output its own file"));
  CHECK_NOTHROW(voxen::checkOutputPaths({{"--cloud", a}, {"--trajectory", (dir / "b.txt").string()}}, {}));
  CHECK_NOTHROW(voxen::checkOutputPaths({{"--cloud", "/dev/null"}, {"--trajectory", "/dev/null"}}, {}));
  CHECK_NOTHROW(voxen::checkOutputPaths({{"--output", ""}}, {{"--cloud", a}}));  // not given: skipped
}

TEST_CASE("Output paths: the writer's rules are applied and name the output", "[output][errors]") {
  const vt::TempDir dir("output-paths");
  CHECK_THAT(errorOf([&] { voxen::checkOutputPaths({{"--output", dir.path().string()}}, {}); }),
             Contains("--output: ") && Contains(dir.path().string()));
  CHECK_THAT(errorOf([&] { voxen::checkOutputPaths({{"--output", (dir / "missing/a.vxm").string()}}, {}); }),
             Contains("--output: "));
}
