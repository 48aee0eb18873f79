// Trajectory files: 4 and 8 columns, header and comment lines, exact interpolation, the time
// span, and an error naming the line for every malformed or out-of-order line; the hinted
// search equal to the plain one.
#include <catch2/catch.hpp>

#include "support/test_helpers.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/input/trajectory.hpp"
#include "voxen/host/error.hpp"

using Catch::Matchers::Contains;
using voxen::Trajectory;

using vt::errorOf;

namespace {

}  // namespace

TEST_CASE("Trajectory loads 4 columns with a header, comments and blank lines; interpolates exactly", "[trajectory]") {
  vt::TempDir dir("traj");
  dir.write("t.txt",
            "# written by hand\n"
            "time x y z\n"
            "\n"
            "0 0 0 0\n"
            "  # an indented comment\n"
            "1.0\t2 4 -8\r\n"
            "3 20 4 0\n"
            "3 20 4 0\n"  // an equal time repeating the pose (poses that disagree are an error, below)
            "4 20 8 0\n");
  const Trajectory t = Trajectory::load(dir / "t.txt");
  REQUIRE(t.size() == 5);
  CHECK_FALSE(t.hasOrientation());
  CHECK(t.startTime() == 0.0);
  CHECK(t.endTime() == 4.0);
  CHECK(t.poses()[1].time == 1.0);
  CHECK(t.poses()[1].position == glm::dvec3(2, 4, -8));

  CHECK(t.positionAt(0.0) == glm::dvec3(0, 0, 0));
  CHECK(t.positionAt(0.5) == glm::dvec3(1, 2, -4));
  CHECK(t.positionAt(0.25) == glm::dvec3(0.5, 1, -2));
  CHECK(t.positionAt(1.0) == glm::dvec3(2, 4, -8));
  CHECK(t.positionAt(2.0) == glm::dvec3(11, 4, -4));
  CHECK(t.positionAt(2.5) == glm::dvec3(15.5, 4, -2));
  CHECK(t.positionAt(3.0) == glm::dvec3(20, 4, 0));
  CHECK(t.positionAt(3.5) == glm::dvec3(20, 6, 0));
  CHECK(t.positionAt(4.0) == glm::dvec3(20, 8, 0));

  CHECK(t.contains(0.0));
  CHECK(t.contains(4.0));
  CHECK_FALSE(t.contains(-0.001));
  CHECK_FALSE(t.contains(4.001));
  CHECK_FALSE(t.contains(std::nan("")));
  CHECK_FALSE(t.tryPositionAt(4.5).has_value());
  CHECK(t.tryPositionAt(0.5) == glm::dvec3(1, 2, -4));
  CHECK_THAT(errorOf([&] { t.positionAt(-1.0); }), Contains("outside") && Contains("[0.000000, 4.000000]"));
  CHECK_THAT(errorOf([&] { t.positionAt(std::nan("")); }), Contains("outside"));
}

TEST_CASE("Trajectory loads 8 columns (qx qy qz qw) and interpolates orientation", "[trajectory]") {
  vt::TempDir dir("traj");
  const double h = std::sqrt(0.5);
  dir.write("q.txt", "100 1 1 1 0 0 0 1\n"
                     "102 3 1 1 0 0 " + std::to_string(h) + " " + std::to_string(h) + "\n"
                     "104 3 5 1 0 0 0 1.004\n");  // a little off unit length: normalised on load
  const Trajectory t = Trajectory::load(dir / "q.txt");
  REQUIRE(t.size() == 3);
  CHECK(t.hasOrientation());
  CHECK(t.startTime() == 100.0);
  CHECK(t.positionAt(101.0) == glm::dvec3(2, 1, 1));
  CHECK(t.positionAt(103.0) == glm::dvec3(3, 3, 1));
  CHECK(t.poses()[2].orientation.w == 1.0);
  CHECK(t.poses()[2].orientation.z == 0.0);
  // Halfway from identity to a 90 degree turn about z: 45 degrees.
  const glm::dquat mid = t.orientationAt(101.0);
  CHECK(mid.w == Approx(std::cos(M_PI / 8)).margin(1e-6));
  CHECK(mid.z == Approx(std::sin(M_PI / 8)).margin(1e-6));
  CHECK(mid.x == Approx(0.0).margin(1e-12));
  CHECK(t.orientationAt(100.0) == glm::dquat(1, 0, 0, 0));
}

TEST_CASE("Trajectory built from poses checks order; a one-pose trajectory spans an instant", "[trajectory]") {
  const Trajectory one({{5.0, glm::dvec3(1, 2, 3)}});
  CHECK(one.contains(5.0));
  CHECK_FALSE(one.contains(5.0000001));
  CHECK(one.positionAt(5.0) == glm::dvec3(1, 2, 3));
  CHECK_THAT(errorOf([] { Trajectory({{1.0, glm::dvec3(0)}, {0.5, glm::dvec3(0)}}); }),
             Contains("pose 1") && Contains("sorted"));
  CHECK_THAT(errorOf([] { Trajectory({{std::nan(""), glm::dvec3(0)}}); }), Contains("pose 0") && Contains("non-finite"));
  const Trajectory empty;
  CHECK_FALSE(empty.contains(0.0));
  CHECK_THAT(errorOf([&] { empty.positionAt(0.0); }), Contains("empty"));
  CHECK_THAT(errorOf([&] { (void)empty.startTime(); }), Contains("empty"));
}

TEST_CASE("Trajectory errors name the file and the line", "[trajectory][errors]") {
  vt::TempDir dir("traj");
  auto errorFor = [&](const std::string& text) {
    dir.write("bad.txt", text);
    return errorOf([&] { Trajectory::load(dir / "bad.txt"); });
  };
  // Unsorted: the line that goes back in time.
  CHECK_THAT(errorFor("t x y z\n0 0 0 0\n1 0 0 0\n# note\n0.5 0 0 0\n2 0 0 0\n"),
             Contains("bad.txt:5:") && Contains("sorted") && Contains("line 3"));
  CHECK_THAT(errorFor("0 0 0 0\n1 0 0\n"), Contains("bad.txt:2:") && Contains("expected 4 columns") &&
                                               Contains("found 3"));
  CHECK_THAT(errorFor("0 0 0 0 0\n"), Contains("bad.txt:1:") && Contains("4 columns") && Contains("found 5"));
  CHECK_THAT(errorFor("0 0 0 0\n1 2 y 3\n"), Contains("bad.txt:2:") && Contains("column 3 (y)") && Contains("'y'"));
  CHECK_THAT(errorFor("time x y z\nstart 0 0 0\n"), Contains("bad.txt:2:") && Contains("column 1 (time)"));
  CHECK_THAT(errorFor("0 0 0 0\n1 nan 0 0\n"), Contains("bad.txt:2:") && Contains("not finite"));
  CHECK_THAT(errorFor("0 0 0 0 0 0 0 0\n"), Contains("bad.txt:1:") && Contains("quaternion is zero"));
  CHECK_THAT(errorFor("# only comments\ntime x y z\n"), Contains("bad.txt") && Contains("no poses"));
  CHECK_THAT(errorFor(""), Contains("no poses"));
  CHECK_THAT(errorOf([&] { Trajectory::load(dir / "absent.txt"); }), Contains("absent.txt") && Contains("no such"));
}

TEST_CASE("Trajectory: a quaternion far from unit length is no rotation, refused naming the line", "[trajectory][errors]") {
  vt::TempDir dir("traj");
  auto errorFor = [&](const std::string& text) {
    dir.write("scaled.txt", text);
    return errorOf([&] { Trajectory::load(dir / "scaled.txt"); });
  };
  // Length 2 (a pose "scaled by 4"), and 1.01 (squared 1.0201): both past tf2's tolerance.
  CHECK_THAT(errorFor("0 0 0 0 0 0 0 1\n1 1 0 0 0 0 0 2\n"),
             Contains("scaled.txt:2:") && Contains("quaternion") && Contains("length 2,") && Contains("not 1"));
  CHECK_THAT(errorFor("0 0 0 0 0 0 0.6 0.808\n"), Contains("scaled.txt:1:") && Contains("length 1.0"));
  // Printed with few decimals (squared length 0.99998): normalised, not refused.
  dir.write("printed.txt", "0 0 0 0 0 0 0.7071 0.7071\n");
  const Trajectory t = Trajectory::load(dir / "printed.txt");
  CHECK(glm::length(t.poses()[0].orientation) == Approx(1.0).margin(1e-15));
}

TEST_CASE("Trajectory: a UTF-8 byte order mark is skipped, before a header or a first pose", "[trajectory]") {
  vt::TempDir dir("traj");
  dir.write("bom_header.txt", "\xEF\xBB\xBFtime x y z\n0 0 0 0\n1 1 0 0\n");
  CHECK(Trajectory::load(dir / "bom_header.txt").size() == 2);
  // Without the skip, the first pose would pass for a header and be dropped.
  dir.write("bom_pose.txt", "\xEF\xBB\xBF" "0 0 0 0\n1 1 0 0\n");
  const Trajectory t = Trajectory::load(dir / "bom_pose.txt");
  REQUIRE(t.size() == 2);
  CHECK(t.startTime() == 0.0);
}

TEST_CASE("Trajectory: a first line that is neither a pose nor a header is an error naming line 1", "[trajectory][errors]") {
  vt::TempDir dir("traj");
  auto errorFor = [&](const std::string& text) {
    dir.write("typo.txt", text);
    return errorOf([&] { Trajectory::load(dir / "typo.txt"); });
  };
  // The letter O for a zero in the first pose's time.
  CHECK_THAT(errorFor("O.5 0 0 0\n1 1 0 0\n"),
             Contains("typo.txt:1:") && Contains("neither a pose nor a header") && Contains("'O.5'"));
  CHECK_THAT(errorFor("# comment\n\n1,5 0 0 0\n2 1 0 0\n"), Contains("typo.txt:3:") && Contains("'1,5'"));
  // Headers of words only are still headers.
  dir.write("header.txt", "timestamp tx ty tz qx qy qz qw\n0 0 0 0 0 0 0 1\n");
  CHECK(Trajectory::load(dir / "header.txt").size() == 1);
}

TEST_CASE("Trajectory: two poses at the same time must agree; times must not go back", "[trajectory][errors]") {
  vt::TempDir dir("traj");
  auto errorFor = [&](const std::string& text) {
    dir.write("dup.txt", text);
    return errorOf([&] { Trajectory::load(dir / "dup.txt"); });
  };
  // 5 m apart at the same instant: both lines named.
  CHECK_THAT(errorFor("time x y z\n0 0 0 0\n1 0 0 0\n# c\n1 5 0 0\n2 5 0 0\n"),
             Contains("dup.txt:5:") && Contains("line 3") && Contains("same time 1") && Contains("5.0") &&
                 Contains("apart"));
  // The same pose repeated (or within 1 mm) is fine: the later one wins.
  dir.write("repeat.txt", "0 0 0 0\n1 1 0 0\n1 1.0005 0 0\n2 2 0 0\n");
  const Trajectory t = Trajectory::load(dir / "repeat.txt");
  CHECK(t.size() == 4);
  CHECK(t.positionAt(1.0).x == 1.0005);
  // A time that goes back names its line and the previous pose's.
  CHECK_THAT(errorFor("0 0 0 0\n2 0 0 0\n1 0 0 0\n"), Contains("dup.txt:3:") && Contains("line 2") && Contains("sorted"));
  // Poses built in code follow the same rule.
  CHECK_THAT(errorOf([] { Trajectory({{1.0, glm::dvec3(0)}, {1.0, glm::dvec3(0, 5, 0)}}); }),
             Contains("poses 0 and 1") && Contains("same time"));
  CHECK(Trajectory({{1.0, glm::dvec3(0)}, {1.0, glm::dvec3(0)}}).size() == 2);
}

TEST_CASE("Trajectory: the search from a hint gives tryPositionAt's position bit for bit", "[trajectory]") {
  // Uneven steps, a repeated instant (the later pose wins) and a one-pose trajectory.
  std::vector<voxen::TrajectoryPose> poses;
  double t = -3.0;
  for (int i = 0; i < 40; ++i) {
    poses.push_back({t, glm::dvec3(std::sin(t) * 10.0, t * t, 1.0 / (4.0 + t))});
    if (i == 17) poses.push_back({t, poses.back().position + glm::dvec3(1e-4, 0, 0)});
    t += 0.01 + 0.37 * double(i % 5);
  }
  const Trajectory trajectory(poses);
  std::vector<double> times;
  for (const auto& p : poses) times.push_back(p.time);  // every pose's own time, the last included
  for (int i = 0; i < 3000; ++i) times.push_back(-3.5 + 0.013 * i);  // rising slowly, past both ends
  for (int i = 0; i < 500; ++i) times.push_back(-3.5 + std::fmod(i * 7.31, 45.0));  // jumping about
  size_t hint = 0;
  bool same = true;
  for (const double time : times) {
    const auto plain = trajectory.tryPositionAt(time);
    const auto hinted = trajectory.tryPositionAt(time, hint);
    same = same && plain.has_value() == hinted.has_value() &&
           (!plain || (plain->x == hinted->x && plain->y == hinted->y && plain->z == hinted->z &&
                       std::signbit(plain->x) == std::signbit(hinted->x)));
  }
  CHECK(same);
  const Trajectory one({{5.0, glm::dvec3(1, 2, 3)}});
  size_t oneHint = 0;
  CHECK(one.tryPositionAt(5.0, oneHint) == glm::dvec3(1, 2, 3));
  CHECK_FALSE(one.tryPositionAt(5.5, oneHint).has_value());
}
