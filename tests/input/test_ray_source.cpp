// Rays from PLY clouds: per-point time plus a trajectory, or ray clouds with origin fields;
// skip counts for NaN/inf and out-of-span points; streaming in chunks; errors for missing
// fields.
#include <catch2/catch.hpp>

#include "support/test_helpers.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/thread_cpu_clock.hpp"

using Catch::Matchers::Contains;
using voxen::Ray;
using voxen::RayReader;

using vt::Bytes;
using vt::errorOf;

namespace {

std::vector<Ray> readAll(RayReader& reader, size_t chunk = 1000) {
  std::vector<Ray> rays;
  while (reader.read(rays, chunk) > 0) {
  }
  return rays;
}

// The sensor moves from the origin to (16, 32, 48) over 16 seconds: position(t) = (t, 2t, 3t),
// exact in binary for the times used here.
const char* kTrajectory = "time x y z\n0 0 0 0\n16 16 32 48\n";

std::string asciiHeader(size_t n, const std::vector<std::string>& properties) {
  std::string h = "ply\nformat ascii 1.0\nelement vertex " + std::to_string(n) + "\n";
  for (const auto& p : properties) h += "property " + p + "\n";
  return h + "end_header\n";
}

}  // namespace

TEST_CASE("RayReader: each accepted time field name, ASCII and binary, origins from the trajectory", "[rays]") {
  vt::TempDir dir("rays");
  dir.write("traj.txt", kTrajectory);
  const std::string field = GENERATE("time", "timestamp", "gps_time", "offset_time", "internal_time");
  const bool binary = GENERATE(false, true);
  const std::vector<double> times = {2.5, 5.0, 10.0, 0.0};
  if (binary) {
    Bytes b;
    b.data = "ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
             "property float z\nproperty double " + field + "\nend_header\n";
    for (size_t i = 0; i < times.size(); ++i) b.put<float>(float(i)).put<float>(1.5f).put<float>(-2.0f).put<double>(times[i]);
    dir.write("c.ply", b.data);
  } else {
    std::string text = asciiHeader(4, {"double x", "double y", "double z", "double " + field});
    for (size_t i = 0; i < times.size(); ++i) text += std::to_string(i) + " 1.5 -2 " + std::to_string(times[i]) + "\n";
    dir.write("c.ply", text);
  }
  RayReader reader(dir / "c.ply", dir / "traj.txt");
  CHECK(reader.totalPoints() == 4);
  CHECK(reader.timeField() == field);
  CHECK(reader.usesTrajectory());
  REQUIRE(reader.trajectory());
  CHECK(reader.originFields().empty());
  const auto rays = readAll(reader);
  REQUIRE(rays.size() == 4);
  for (size_t i = 0; i < rays.size(); ++i) {
    const double t = times[i];
    CHECK(rays[i].time == t);
    CHECK(rays[i].sample == glm::dvec3(double(i), 1.5, -2.0));
    CHECK(rays[i].origin == glm::dvec3(t, 2 * t, 3 * t));
  }
  const auto& s = reader.stats();
  CHECK(s.points == 4);
  CHECK(s.rays == 4);
  CHECK(s.skippedNonFinite == 0);
  CHECK(s.skippedOutsideTrajectory == 0);
  CHECK(s.timeMin == 0.0);
  CHECK(s.timeMax == 10.0);
  CHECK(reader.done());
}

TEST_CASE("RayReader: time field preference, float and double coordinates, lists and other elements skipped", "[rays]") {
  vt::TempDir dir("rays");
  dir.write("traj.txt", kTrajectory);
  // gps_time comes first in the file, but 'time' is preferred.
  dir.write("pref.ply", asciiHeader(1, {"float x", "float y", "float z", "double gps_time", "double time"}) +
                            "1 2 3 7.5 5\n");
  RayReader pref(dir / "pref.ply", dir / "traj.txt");
  CHECK(pref.timeField() == "time");
  const auto r = readAll(pref);
  REQUIRE(r.size() == 1);
  CHECK(r[0].time == 5.0);
  CHECK(r[0].origin == glm::dvec3(5, 10, 15));

  // Double coordinates keep their precision, float ones are widened exactly; a face element
  // before the vertices and a list property within them are skipped; the time is a float.
  for (const bool useDouble : {false, true}) {
    Bytes b;
    const std::string type = useDouble ? "double" : "float";
    b.data = "ply\nformat binary_little_endian 1.0\nelement face 1\nproperty list uchar int vertex_indices\n"
             "element vertex 2\nproperty " + type + " x\nproperty " + type + " y\nproperty " + type +
             " z\nproperty list uchar float extra\nproperty float timestamp\nproperty uchar intensity\nend_header\n";
    b.put<uint8_t>(3).put<int32_t>(0).put<int32_t>(1).put<int32_t>(2);
    for (int i = 0; i < 2; ++i) {
      if (useDouble) b.put<double>(0.1 * (i + 1)).put<double>(1e6 + 0.001).put<double>(-7.25);
      else b.put<float>(0.1f * float(i + 1)).put<float>(1e6f + 0.001f).put<float>(-7.25f);
      b.put<uint8_t>(uint8_t(i + 1)).put<float>(9.0f).data.append(i == 1 ? 4 : 0, '\0');
      b.put<float>(2.5f).put<uint8_t>(200);
    }
    dir.write("bin.ply", b.data);
    RayReader reader(dir / "bin.ply", dir / "traj.txt");
    const auto rays = readAll(reader);
    REQUIRE(rays.size() == 2);
    for (int i = 0; i < 2; ++i) {
      if (useDouble) CHECK(rays[i].sample == glm::dvec3(0.1 * (i + 1), 1e6 + 0.001, -7.25));
      else CHECK(rays[i].sample == glm::dvec3(double(0.1f * float(i + 1)), double(1e6f + 0.001f), -7.25));
      CHECK(rays[i].time == 2.5);
      CHECK(rays[i].origin == glm::dvec3(2.5, 5, 7.5));
    }
  }
}

TEST_CASE("RayReader: ray clouds carry their origins; without a time field the time is 0", "[rays]") {
  vt::TempDir dir("rays");
  const bool longNames = GENERATE(false, true);
  const std::vector<std::string> o = longNames ? std::vector<std::string>{"origin_x", "origin_y", "origin_z"}
                                               : std::vector<std::string>{"ox", "oy", "oz"};
  // Normals are present too and must not be taken as origins.
  dir.write("rc.ply", asciiHeader(2, {"float nx", "float ny", "float nz", "double x", "double y", "double z",
                                      "double " + o[0], "double " + o[1], "double " + o[2]}) +
                          "9 9 9 1 2 3 0.5 0.25 0.125\n"
                          "9 9 9 -1 -2 -3 100 200 300\n");
  RayReader reader(dir / "rc.ply");
  CHECK_FALSE(reader.usesTrajectory());
  CHECK(reader.trajectory() == nullptr);
  CHECK(reader.timeField().empty());
  CHECK(reader.originFields() == o[0] + ", " + o[1] + ", " + o[2]);
  const auto rays = readAll(reader);
  REQUIRE(rays.size() == 2);
  CHECK(rays[0].sample == glm::dvec3(1, 2, 3));
  CHECK(rays[0].origin == glm::dvec3(0.5, 0.25, 0.125));
  CHECK(rays[0].time == 0.0);
  CHECK(rays[1].origin == glm::dvec3(100, 200, 300));
  CHECK(rays[1].time == 0.0);
  CHECK(reader.stats().rays == 2);
  CHECK(reader.stats().timeMin == 0.0);
  CHECK(reader.stats().timeMax == 0.0);

  // With a time field the time is kept.
  dir.write("rct.ply", asciiHeader(2, {"float x", "float y", "float z", "float ox", "float oy", "float oz", "double time"}) +
                           "1 2 3 0 0 0 17.25\n4 5 6 1 1 1 -3\n");
  RayReader timed(dir / "rct.ply");
  CHECK(timed.timeField() == "time");
  const auto t = readAll(timed);
  REQUIRE(t.size() == 2);
  CHECK(t[0].time == 17.25);
  CHECK(t[1].time == -3.0);
  CHECK(t[1].origin == glm::dvec3(1, 1, 1));
  CHECK(timed.stats().timeMin == -3.0);
  CHECK(timed.stats().timeMax == 17.25);

  // A trajectory given explicitly takes precedence over the origin fields.
  dir.write("traj.txt", "0 0 0 0\n32 32 64 96\n");
  RayReader both(dir / "rct.ply", dir / "traj.txt");
  CHECK(both.usesTrajectory());
  const auto b = readAll(both);
  REQUIRE(b.size() == 1);
  CHECK(b[0].origin == glm::dvec3(17.25, 34.5, 51.75));
  CHECK(both.stats().skippedOutsideTrajectory == 1);
}

TEST_CASE("RayReader: NaN and inf points are skipped and counted", "[rays]") {
  vt::TempDir dir("rays");
  dir.write("traj.txt", kTrajectory);
  dir.write("n.ply", asciiHeader(7, {"float x", "float y", "float z", "double time"}) +
                         "1 1 1 1\n"
                         "nan 1 1 1\n"
                         "1 inf 1 1\n"
                         "1 1 -inf 1\n"
                         "1 1 1 nan\n"
                         "2 2 2 2\n"
                         "1 1 1 -nan\n");
  RayReader reader(dir / "n.ply", dir / "traj.txt");
  const auto rays = readAll(reader);
  REQUIRE(rays.size() == 2);
  CHECK(rays[1].sample == glm::dvec3(2, 2, 2));
  CHECK(reader.stats().points == 7);
  CHECK(reader.stats().rays == 2);
  CHECK(reader.stats().skippedNonFinite == 5);
  CHECK(reader.stats().skippedOutsideTrajectory == 0);
  CHECK_THAT(reader.summary(), Contains("5 skipped for NaN/inf"));

  // Binary, in a ray cloud: a non-finite origin counts too.
  Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
           "property float z\nproperty float ox\nproperty float oy\nproperty float oz\nend_header\n";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float rows[4][6] = {{1, 2, 3, 0, 0, 0}, {1, 2, 3, 0, nan, 0}, {inf, 2, 3, 0, 0, 0}, {4, 5, 6, 1, 1, 1}};
  for (const auto& row : rows)
    for (float v : row) b.put<float>(v);
  dir.write("rc.ply", b.data);
  voxen::RayLoadStats stats;
  const auto rc = voxen::readRays(dir / "rc.ply", std::nullopt, &stats);
  REQUIRE(rc.size() == 2);
  CHECK(rc[1].origin == glm::dvec3(1, 1, 1));
  CHECK(stats.points == 4);
  CHECK(stats.skippedNonFinite == 2);
}

TEST_CASE("RayReader: points outside the trajectory's time span are skipped, counted and reported", "[rays]") {
  vt::TempDir dir("rays");
  dir.write("traj.txt", kTrajectory);
  dir.write("o.ply", asciiHeader(6, {"float x", "float y", "float z", "double timestamp"}) +
                         "0 0 0 -1\n"
                         "0 0 0 0\n"
                         "0 0 0 5\n"
                         "0 0 0 16\n"
                         "0 0 0 16.5\n"
                         "0 0 0 17\n");
  RayReader reader(dir / "o.ply", dir / "traj.txt");
  const auto rays = readAll(reader);
  REQUIRE(rays.size() == 3);
  CHECK(rays[0].time == 0.0);
  CHECK(rays[2].time == 16.0);
  const auto& s = reader.stats();
  CHECK(s.points == 6);
  CHECK(s.rays == 3);
  CHECK(s.skippedOutsideTrajectory == 3);
  CHECK(s.skippedNonFinite == 0);
  CHECK(s.timeMin == 0.0);
  CHECK(s.timeMax == 16.0);
  const std::string summary = reader.summary();
  CHECK_THAT(summary, Contains("o.ply") && Contains("6 of 6 points") && Contains("3 rays") &&
                          Contains("3 skipped with times -1 to 17 outside the trajectory's span [0, 16]"));
}

// The header of a binary little-endian cloud of n vertices: float x, y, z and double time.
static std::string xyzTimeHeader(size_t n) {
  return "ply\nformat binary_little_endian 1.0\nelement vertex " + std::to_string(n) +
         "\nproperty float x\nproperty float y\nproperty float z\nproperty double time\nend_header\n";
}

TEST_CASE("RayReader streams in chunks of at most maxRays, skips included, then returns 0", "[rays]") {
  vt::TempDir dir("rays");
  dir.write("traj.txt", kTrajectory);
  const size_t n = 1000;
  Bytes b;
  b.data = xyzTimeHeader(n);
  size_t expectedRays = 0;
  for (size_t i = 0; i < n; ++i) {
    // Every 10th point has a NaN, every 7th lies after the trajectory's end.
    const float x = i % 10 == 3 ? std::numeric_limits<float>::quiet_NaN() : float(i);
    const double t = i % 7 == 0 ? 20.0 : double(i % 10) * 1.5;
    b.put<float>(x).put<float>(0).put<float>(0).put<double>(t);
    if (i % 10 != 3 && i % 7 != 0) ++expectedRays;
  }
  dir.write("big.ply", b.data);
  RayReader reader(dir / "big.ply", dir / "traj.txt");
  CHECK(reader.totalPoints() == n);
  CHECK(reader.stats().points == 0);
  std::vector<Ray> rays;
  std::vector<size_t> got;
  while (size_t k = reader.read(rays, 64)) got.push_back(k);
  CHECK(reader.read(rays, 64) == 0);
  CHECK(reader.read(rays, 0) == 0);
  REQUIRE(!got.empty());
  for (size_t i = 0; i + 1 < got.size(); ++i) CHECK(got[i] == 64);  // full chunks until the last
  CHECK(got.back() <= 64);
  CHECK(rays.size() == expectedRays);
  const auto& s = reader.stats();
  CHECK(s.points == n);
  CHECK(s.rays == expectedRays);
  CHECK(s.skippedNonFinite == 100);
  CHECK(s.points == s.rays + s.skippedNonFinite + s.skippedOutsideTrajectory);
  bool originsExact = true;
  for (const Ray& r : rays) originsExact = originsExact && r.origin == glm::dvec3(r.time, 2 * r.time, 3 * r.time);
  CHECK(originsExact);
}

TEST_CASE("Ray clouds written by writeRayCloud read back exactly", "[rays]") {
  vt::TempDir dir("rays");
  const auto format = GENERATE(voxen::PlyFormat::Ascii, voxen::PlyFormat::BinaryLittleEndian);
  std::vector<Ray> rays;
  for (int i = 0; i < 50; ++i) {
    Ray r;
    r.origin = {i * 0.1, -i / 3.0, 1e5 + i};
    r.sample = {r.origin.x + 1.0 / 7.0, r.origin.y * 2, -0.3 * i};
    r.time = 1.7e9 + i * 0.001;
    r.intensity = float(i) * 1.25f;
    rays.push_back(r);
  }
  voxen::writeRayCloud(dir / "rc.ply", rays, format);
  voxen::RayLoadStats stats;
  const auto back = voxen::readRays(dir / "rc.ply", std::nullopt, &stats);
  REQUIRE(back.size() == rays.size());
  bool exact = true;
  for (size_t i = 0; i < rays.size(); ++i)
    exact = exact && back[i].origin == rays[i].origin && back[i].sample == rays[i].sample &&
            back[i].time == rays[i].time && back[i].intensity == rays[i].intensity;
  CHECK(exact);
  CHECK(stats.rays == 50);
  CHECK(stats.timeMin == rays.front().time);
  CHECK(stats.timeMax == rays.back().time);
}

TEST_CASE("RayReader errors name the file and the missing or bad field", "[rays][errors]") {
  vt::TempDir dir("rays");
  dir.write("traj.txt", kTrajectory);
  const auto traj = dir / "traj.txt";

  dir.write("noz.ply", asciiHeader(1, {"float x", "float y", "float time"}) + "1 2 3\n");
  CHECK_THAT(errorOf([&] { RayReader r(dir / "noz.ply", traj); }),
             Contains("noz.ply") && Contains("lacks the sample position field z") && Contains("x, y, time"));
  dir.write("nox.ply", asciiHeader(1, {"float q", "float time"}) + "1 2\n");
  CHECK_THAT(errorOf([&] { RayReader r(dir / "nox.ply", traj); }), Contains("fields x, y, z"));
  dir.write("listx.ply", asciiHeader(1, {"list uchar float x", "float y", "float z", "float time"}) + "0 2 3 4\n");
  CHECK_THAT(errorOf([&] { RayReader r(dir / "listx.ply", traj); }), Contains("field x") && Contains("x (list)"));

  dir.write("notime.ply", asciiHeader(1, {"float x", "float y", "float z", "float t"}) + "1 2 3 4\n");
  CHECK_THAT(errorOf([&] { RayReader r(dir / "notime.ply", traj); }),
             Contains("notime.ply") && Contains("no per-point time field") && Contains("traj.txt") &&
                 Contains("time, timestamp, gps_time, offset_time, internal_time"));

  // Neither origins nor a trajectory; normals are not origins.
  dir.write("normals.ply", asciiHeader(1, {"float x", "float y", "float z", "float nx", "float ny", "float nz"}) +
                               "1 2 3 0 0 1\n");
  CHECK_THAT(errorOf([&] { RayReader r(dir / "normals.ply"); }),
             Contains("normals.ply") && Contains("ox, oy, oz or origin_x, origin_y, origin_z") &&
                 Contains("no trajectory"));
  CHECK_THAT(errorOf([&] { RayReader r(dir / "notime.ply"); }), Contains("notime.ply") && Contains("no origin fields"));

  dir.write("partial.ply", asciiHeader(1, {"float x", "float y", "float z", "float ox", "float oy"}) + "1 2 3 0 0\n");
  CHECK_THAT(errorOf([&] { RayReader r(dir / "partial.ply"); }), Contains("partial.ply") && Contains("lacks oz"));

  // Errors of the trajectory and of the body come through with their file and place.
  dir.write("bad_traj.txt", "0 0 0 0\n2 0 0 0\n1 0 0 0\n");
  dir.write("ok.ply", asciiHeader(2, {"float x", "float y", "float z", "float time"}) + "1 2 3 1\n1 2 3 oops\n");
  CHECK_THAT(errorOf([&] { RayReader r(dir / "ok.ply", dir / "bad_traj.txt"); }),
             Contains("bad_traj.txt:3:") && Contains("sorted"));
  CHECK_THAT(errorOf([&] {
               RayReader r(dir / "ok.ply", traj);
               readAll(r);
             }),
             Contains("ok.ply:10:") && Contains("'time'") && Contains("'oops'"));
  CHECK_THAT(errorOf([&] { RayReader r(dir / "ok.ply", dir / "none.txt"); }), Contains("none.txt"));

  Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nproperty float y\n"
           "property float z\nproperty float ox\nproperty float oy\nproperty float oz\nend_header\n";
  const size_t head = b.data.size();
  for (int i = 0; i < 9; ++i) b.put<float>(1.0f);
  dir.write("trunc.ply", b.data);
  RayReader trunc(dir / "trunc.ply");
  std::vector<Ray> rays;
  CHECK_THAT(errorOf([&] { readAll(trunc); }),
             Contains("trunc.ply: vertex 1 (byte offset " + std::to_string(head + 24) + ")") && Contains("'ox'"));

  dir.write("be.ply", "ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty float x\nend_header\n");
  CHECK_THAT(errorOf([&] { RayReader r(dir / "be.ply"); }), Contains("be.ply") && Contains("not supported"));
}

TEST_CASE("RayReader: cloud times in another unit than the trajectory's are an error naming both ranges", "[rays][errors]") {
  vt::TempDir dir("rays");
  // The trajectory in seconds (an absolute epoch, as GPS-stamped tools write it).
  dir.write("traj.txt", "time x y z\n1700000000 0 0 0\n1700000016 16 32 48\n");
  auto cloudWithTimes = [&](const std::string& file, const std::vector<std::string>& times) {
    std::string text = asciiHeader(times.size(), {"float x", "float y", "float z", "double time"});
    for (const auto& t : times) text += "1 2 3 " + t + "\n";
    dir.write(file, text);
  };
  // Nanoseconds in the cloud.
  cloudWithTimes("ns.ply", {"1700000001000000000", "1700000002500000000", "1700000015000000000"});
  CHECK_THAT(errorOf([&] { voxen::readRays(dir / "ns.ply", dir / "traj.txt"); }),
             Contains("ns.ply") && Contains("traj.txt") && Contains("1.700000001e+18 to 1.700000015e+18") &&
                 Contains("1700000000 to 1700000016") && Contains("1e-09") && Contains("nanoseconds"));
  // Milliseconds.
  cloudWithTimes("ms.ply", {"1700000001000", "1700000002000"});
  CHECK_THAT(errorOf([&] { voxen::readRays(dir / "ms.ply", dir / "traj.txt"); }), Contains("milliseconds"));
  // Times outside the span that no unit explains: the clocks do not overlap, also an error.
  cloudWithTimes("late.ply", {"1800000000", "1800000001"});
  CHECK_THAT(errorOf([&] { voxen::readRays(dir / "late.ply", dir / "traj.txt"); }),
             Contains("late.ply: none of the 2 point times (field 'time', 1800000000 to 1800000001)") &&
                 Contains("trajectory " + (dir / "traj.txt").string() + " (1700000000 to 1700000016)") &&
                 Contains("do not overlap"));
  // Fewer than 1% inside: as good as none.
  std::vector<std::string> mostlyLate(200, "1800000000");
  mostlyLate[0] = "1700000001";
  cloudWithTimes("mostly_late.ply", mostlyLate);
  CHECK_THAT(errorOf([&] { voxen::readRays(dir / "mostly_late.ply", dir / "traj.txt"); }),
             Contains("only 1 of the 200 point times") && Contains("barely overlap"));
  // Some points inside the span (half): no error, the rest are counted skips.
  cloudWithTimes("some.ply", {"1700000001", "1700000001000"});
  voxen::RayLoadStats stats;
  CHECK(voxen::readRays(dir / "some.ply", dir / "traj.txt", &stats).size() == 1);
  CHECK(stats.skippedOutsideTrajectory == 1);
}

TEST_CASE("RayReader: a cloud in seconds against a trajectory in nanoseconds, both from 0, is an error", "[rays][errors]") {
  vt::TempDir dir("rays");
  // Every point time falls inside the trajectory's span, in its first 16 nanoseconds.
  dir.write("traj_ns.txt", "time x y z\n0 0 0 0\n16000000000 16 32 48\n");
  std::string text = asciiHeader(5, {"float x", "float y", "float z", "double time"});
  for (const char* t : {"0", "4", "8", "12", "15.5"}) text += "1 2 3 " + std::string(t) + "\n";
  dir.write("s.ply", text);
  CHECK_THAT(errorOf([&] { voxen::readRays(dir / "s.ply", dir / "traj_ns.txt"); }),
             Contains("s.ply: the 5 point times (field 'time', 0 to 15.5)") && Contains("traj_ns.txt (0 to 16000000000)") &&
                 Contains("multiplied by 1000000000") && Contains("nanoseconds"));
  // A short cloud early in a long trajectory in the same unit is ordinary: 16 s of a 16,000 s
  // trajectory (a factor of 1000 is not judged inside the span).
  dir.write("traj_long.txt", "time x y z\n0 0 0 0\n16000 16 32 48\n");
  CHECK(voxen::readRays(dir / "s.ply", dir / "traj_long.txt").size() == 5);
}

TEST_CASE("RayReader: a trajectory whose first pose has a typo is refused, not shortened", "[rays][errors]") {
  vt::TempDir dir("rays");
  // Dropping the first line as a header would leave the cloud's early points outside the span.
  dir.write("traj.txt", "0 0 0 0O\n16 16 32 48\n");
  dir.write("c.ply", asciiHeader(1, {"float x", "float y", "float z", "double time"}) + "1 2 3 1\n");
  CHECK_THAT(errorOf([&] { RayReader r(dir / "c.ply", dir / "traj.txt"); }), Contains("traj.txt:1:") && Contains("'0O'"));
  dir.write("traj.txt", "\xEF\xBB\xBF" "0 0 0 0\n16 16 32 48\n");
  RayReader r(dir / "c.ply", dir / "traj.txt");
  CHECK(readAll(r).size() == 1);
}

TEST_CASE("RayReader: the intensity field of any numeric type, ASCII and binary; absent is 0", "[rays]") {
  vt::TempDir dir("rays");
  dir.write("traj.txt", kTrajectory);
  const std::string name = GENERATE("intensity", "scalar_intensity", "reflectance");
  const std::string type = GENERATE("uchar", "ushort", "float", "double");
  const bool binary = GENERATE(false, true);
  const std::vector<double> values = {0, 7, 200, 255};
  if (binary) {
    Bytes b;
    b.data = "ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
             "property float z\nproperty " + type + " " + name + "\nproperty double time\nend_header\n";
    for (size_t i = 0; i < values.size(); ++i) {
      b.put<float>(float(i)).put<float>(1.5f).put<float>(-2.0f);
      if (type == "uchar") b.put<uint8_t>(uint8_t(values[i]));
      if (type == "ushort") b.put<uint16_t>(uint16_t(values[i]));
      if (type == "float") b.put<float>(float(values[i]));
      if (type == "double") b.put<double>(values[i]);
      b.put<double>(1.0 + i);
    }
    dir.write("c.ply", b.data);
  } else {
    std::string text = asciiHeader(4, {"float x", "float y", "float z", type + " " + name, "double time"});
    for (size_t i = 0; i < values.size(); ++i) text += std::to_string(i) + " 1.5 -2 " + std::to_string(int(values[i])) + " " + std::to_string(1.0 + i) + "\n";
    dir.write("c.ply", text);
  }
  RayReader reader(dir / "c.ply", dir / "traj.txt");
  const auto rays = readAll(reader);
  REQUIRE(rays.size() == 4);
  for (size_t i = 0; i < rays.size(); ++i) CHECK(rays[i].intensity == float(values[i]));
  CHECK_THAT(reader.summary(), Contains("intensity field '" + name + "'"));

  // Without the field every ray has intensity 0.
  std::string plain = asciiHeader(2, {"float x", "float y", "float z", "double time"}) + "0 0 0 1\n1 1 1 2\n";
  dir.write("plain.ply", plain);
  RayReader none(dir / "plain.ply", dir / "traj.txt");
  for (const Ray& r : readAll(none)) CHECK(r.intensity == 0.0f);
}

TEST_CASE("RayReader: a NaN, inf or out-of-float intensity is kept as such and counted; a huge float is kept", "[rays]") {
  vt::TempDir dir("rays");
  dir.write("traj.txt", kTrajectory);
  Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement vertex 5\nproperty float x\nproperty float y\n"
           "property float z\nproperty double time\nproperty double intensity\nend_header\n";
  b.put<float>(0).put<float>(0).put<float>(0).put<double>(1.0).put<double>(std::numeric_limits<double>::quiet_NaN());
  b.put<float>(1).put<float>(0).put<float>(0).put<double>(2.0).put<double>(-1e300);  // beyond a float
  b.put<float>(2).put<float>(0).put<float>(0).put<double>(3.0).put<double>(12.5);
  // A float intensity of 3e38 read back as a double is a little above 3e38, still a float.
  b.put<float>(3).put<float>(0).put<float>(0).put<double>(3.5).put<double>(double(3e38f));
  b.put<float>(4).put<float>(0).put<float>(0).put<double>(3.8).put<double>(-double(std::numeric_limits<float>::max()));
  dir.write("c.ply", b.data);
  RayReader reader(dir / "c.ply", dir / "traj.txt");
  const auto rays = readAll(reader);
  REQUIRE(rays.size() == 5);
  CHECK(std::isnan(rays[0].intensity));
  CHECK(rays[1].intensity == -std::numeric_limits<float>::infinity());
  CHECK(rays[2].intensity == 12.5f);
  CHECK(rays[3].intensity == 3e38f);
  CHECK(rays[4].intensity == -std::numeric_limits<float>::max());
  CHECK(reader.stats().nonFiniteIntensity == 2);
  CHECK_THAT(reader.summary(), Contains("2 with a NaN/inf intensity") && Contains("NDT-TM skips these rays"));
}

TEST_CASE("RayReader: thread CPU time of reading and of origin interpolation, per chunk", "[rays]") {
  vt::TempDir dir("rays");
  dir.write("traj.txt", kTrajectory);
  const size_t n = 200000;
  Bytes b;
  b.data = xyzTimeHeader(n);
  for (size_t i = 0; i < n; ++i) b.put<float>(float(i % 100)).put<float>(1).put<float>(2).put<double>(double(i % 160) * 0.1);
  dir.write("timed.ply", b.data);
  RayReader reader(dir / "timed.ply", dir / "traj.txt");
  CHECK(reader.times().readSeconds == 0.0);
  const double start = voxen::threadCpuSeconds();
  const auto rays = readAll(reader, 50000);
  const double measured = voxen::threadCpuSeconds() - start;
  REQUIRE(rays.size() == n);
  const voxen::RayReadTimes& t = reader.times();
  INFO("read " << t.readSeconds << " s, origins " << t.originSeconds << " s of measured " << measured << " s");
  CHECK(t.readSeconds > 0.0);
  CHECK(t.originSeconds > 0.0);
  // Both are parts of the reading thread's time, measured apart: together within it.
  CHECK(t.readSeconds + t.originSeconds <= measured + 1e-6);
  CHECK(t.readSeconds + t.originSeconds >= 0.8 * measured - 1e-3);
}
