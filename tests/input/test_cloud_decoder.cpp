// PointCloud2 points as rows: the fields chosen from a topic's first cloud, the per-point time
// of each common driver layout told and reported, coordinates exactly as stored, organised
// clouds with padded rows, NaN points kept, and clouds that cannot be read refused by name.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support/test_helpers.hpp"
#include "voxen/input/cloud_decoder.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using voxen::ros::CloudLayout;
using voxen::ros::PointCloud2;
using voxen::ros::PointFieldType;
using voxen::ros::PointTimeReference;

namespace {

constexpr int64_t kStampNs = 1700000000500000000;  // 1700000000.5 s, exact in a double
const double kNan = std::numeric_limits<double>::quiet_NaN();

struct Field {
  std::string name;
  uint32_t offset;
  PointFieldType type;
};

// A cloud and the bytes its data points into (not copyable, so the span stays valid).
struct TestCloud {
  std::vector<uint8_t> bytes;
  PointCloud2 cloud;
  TestCloud() = default;
  TestCloud(const TestCloud&) = delete;
  TestCloud(TestCloud&&) = default;
};

void store(uint8_t* p, PointFieldType type, double v) {
  auto put = [&](auto x) { std::memcpy(p, &x, sizeof x); };
  switch (type) {
    case PointFieldType::Int8: put(int8_t(v)); break;
    case PointFieldType::Uint8: put(uint8_t(v)); break;
    case PointFieldType::Int16: put(int16_t(v)); break;
    case PointFieldType::Uint16: put(uint16_t(v)); break;
    case PointFieldType::Int32: put(int32_t(v)); break;
    case PointFieldType::Uint32: put(uint32_t(v)); break;
    case PointFieldType::Float32: put(float(v)); break;
    case PointFieldType::Float64: put(v); break;
  }
}

// points[i] holds one value per field, row-major over height x width; padding bytes are 0xee.
TestCloud makeCloud(const std::vector<Field>& fields, uint32_t pointStep, const std::vector<std::vector<double>>& points,
                    uint32_t height = 1, uint32_t rowPadding = 0, int64_t stampNs = kStampNs) {
  TestCloud t;
  const uint32_t width = uint32_t(points.size() / height);
  t.cloud.stampNs = stampNs;
  t.cloud.frameId = "lidar";
  t.cloud.height = height;
  t.cloud.width = width;
  for (const Field& f : fields) t.cloud.fields.push_back({f.name, f.offset, uint8_t(f.type), 1});
  t.cloud.pointStep = pointStep;
  t.cloud.rowStep = width * pointStep + rowPadding;
  t.bytes.assign(size_t(t.cloud.rowStep) * height, 0xee);
  for (size_t i = 0; i < points.size(); ++i) {
    uint8_t* p = t.bytes.data() + (i / width) * t.cloud.rowStep + (i % width) * pointStep;
    for (size_t k = 0; k < fields.size(); ++k) store(p + fields[k].offset, fields[k].type, points[i][k]);
  }
  t.cloud.data = t.bytes;
  return t;
}

const std::vector<Field> kXyz = {{"x", 0, PointFieldType::Float32}, {"y", 4, PointFieldType::Float32},
                                 {"z", 8, PointFieldType::Float32}};

std::vector<Field> xyzAnd(std::vector<Field> more) {
  std::vector<Field> f = kXyz;
  f.insert(f.end(), more.begin(), more.end());
  return f;
}

std::vector<double> decode(const TestCloud& t, const CloudLayout& l) {
  std::vector<double> out;
  CHECK(voxen::ros::decodeCloudRows(t.cloud, l, "c", out) == size_t(t.cloud.width) * t.cloud.height);
  return out;
}

}  // namespace

TEST_CASE("The stamp in seconds: whole seconds plus the nanoseconds", "[rosmsg]") {
  CHECK(voxen::ros::stampSeconds(kStampNs) == 1700000000.5);
  CHECK(voxen::ros::stampSeconds(-1500000000) == -1.5);
  CHECK(voxen::ros::stampSeconds(0) == 0.0);
  // Within one unit in the last place of the exact value (1700000000.123456789).
  const double s = voxen::ros::stampSeconds(1700000000123456789);
  CHECK(std::abs(s - 1700000000.123456789) <= std::nextafter(1.7e9, 2e9) - 1.7e9);
}

TEST_CASE("Per-point time of each driver's layout is told, reported and composed with the stamp", "[rosmsg]") {
  const double stamp = voxen::ros::stampSeconds(kStampNs);
  SECTION("Velodyne: float32 'time', seconds relative to the stamp (negative)") {
    const auto t = makeCloud(xyzAnd({{"intensity", 12, PointFieldType::Float32}, {"ring", 16, PointFieldType::Uint16},
                                     {"time", 20, PointFieldType::Float32}}),
                             24, {{1, 2, 3, 7, 0, -0.0999}, {4, 5, 6, 8, 1, -0.05}, {7, 8, 9, 9, 2, 0}});
    const CloudLayout l = voxen::ros::chooseCloudLayout(t.cloud, "c");
    CHECK(l.timeReference == PointTimeReference::RelativeToStamp);
    CHECK(l.timeScale == 1.0);
    CHECK(l.timeReport == "'time' float32, seconds after header.stamp (-99.9 to 0 ms in the first cloud)");
    const auto rows = decode(t, l);
    REQUIRE(rows.size() == 15);
    CHECK(rows[3] == stamp + double(float(-0.0999)));
    CHECK(rows[8] == stamp + double(float(-0.05)));
    CHECK(rows[13] == stamp);
    CHECK(rows[4] == 7.0);
    CHECK(rows[10] == 7.0);
  }
  SECTION("Ouster: uint32 't', nanoseconds relative; 'intensity' before 'reflectivity'") {
    const auto t = makeCloud(xyzAnd({{"intensity", 16, PointFieldType::Float32}, {"t", 20, PointFieldType::Uint32},
                                     {"reflectivity", 24, PointFieldType::Uint16}}),
                             48, {{1, 0, 0, 100, 0, 5}, {0, 1, 0, 200, 50000000, 6}, {0, 0, 1, 300, 99900000, 7}});
    const CloudLayout l = voxen::ros::chooseCloudLayout(t.cloud, "c");
    CHECK(l.timeReference == PointTimeReference::RelativeToStamp);
    CHECK(l.timeScale == 1e-9);
    CHECK(l.time.name == "t");
    CHECK(l.intensity.name == "intensity");
    CHECK(l.timeReport == "'t' uint32, nanoseconds after header.stamp (0 to 99.9 ms in the first cloud)");
    const auto rows = decode(t, l);
    CHECK(rows[3] == stamp);
    CHECK(rows[8] == stamp + 50000000.0 * 1e-9);
    CHECK(rows[13] == stamp + 99900000.0 * 1e-9);
    CHECK(rows[14] == 300.0);
  }
  SECTION("Livox: uint32 'offset_time', nanoseconds relative; intensity from 'reflectivity'") {
    const auto t = makeCloud(xyzAnd({{"reflectivity", 12, PointFieldType::Uint8}, {"tag", 13, PointFieldType::Uint8},
                                     {"line", 14, PointFieldType::Uint8}, {"offset_time", 15, PointFieldType::Uint32}}),
                             19, {{1, 1, 1, 250, 0, 0, 1000}, {2, 2, 2, 3, 0, 1, 100000000}});
    const CloudLayout l = voxen::ros::chooseCloudLayout(t.cloud, "c");
    CHECK(l.timeReport == "'offset_time' uint32, nanoseconds after header.stamp (0.001 to 100 ms in the first cloud)");
    CHECK(l.intensity.name == "reflectivity");
    const auto rows = decode(t, l);
    CHECK(rows[3] == stamp + 1000.0 * 1e-9);
    CHECK(rows[8] == stamp + 100000000.0 * 1e-9);
    CHECK(rows[4] == 250.0);
  }
  SECTION("Hesai: float64 'timestamp', absolute seconds") {
    const auto t = makeCloud(xyzAnd({{"intensity", 16, PointFieldType::Float32}, {"timestamp", 24, PointFieldType::Float64}}),
                             32, {{1, 2, 3, 4, stamp - 0.025}, {1, 2, 3, 4, stamp + 0.075}});
    const CloudLayout l = voxen::ros::chooseCloudLayout(t.cloud, "c");
    CHECK(l.timeReference == PointTimeReference::Absolute);
    CHECK(l.timeReport == "'timestamp' float64, absolute seconds (-25 to 75 ms after header.stamp in the first cloud)");
    const auto rows = decode(t, l);
    CHECK(rows[3] == stamp - 0.025);
    CHECK(rows[8] == stamp + 0.075);
  }
  SECTION("'time_offset' float32, relative, and the order of the names: 't' before 'timestamp'") {
    const auto a = makeCloud(xyzAnd({{"time_offset", 12, PointFieldType::Float32}}), 16, {{0, 0, 0, 0.5}});
    CHECK(voxen::ros::chooseCloudLayout(a.cloud, "c").timeReport ==
          "'time_offset' float32, seconds after header.stamp (500 to 500 ms in the first cloud)");
    const auto b = makeCloud(xyzAnd({{"timestamp", 16, PointFieldType::Float64}, {"t", 12, PointFieldType::Uint32}}), 24,
                             {{0, 0, 0, stamp, 10}});
    const CloudLayout l = voxen::ros::chooseCloudLayout(b.cloud, "c");
    CHECK(l.time.name == "t");
    CHECK(l.timeReference == PointTimeReference::RelativeToStamp);
  }
  SECTION("No time field: every point gets the stamp") {
    const auto t = makeCloud(kXyz, 12, {{1, 2, 3}, {4, 5, 6}});
    const CloudLayout l = voxen::ros::chooseCloudLayout(t.cloud, "c");
    CHECK_FALSE(l.hasTime);
    CHECK_FALSE(l.hasIntensity);
    CHECK(voxen::ros::cloudRowColumns(l) == 4);
    CHECK(decode(t, l) == std::vector<double>{1, 2, 3, stamp, 4, 5, 6, stamp});
  }
  SECTION("A small (simulated) stamp: a second cloud tells offsets from absolute times") {
    const int64_t simNs = 10000000000;  // 10 s
    const auto rel = makeCloud(xyzAnd({{"time", 12, PointFieldType::Float32}}), 16, {{0, 0, 0, 0}, {0, 0, 0, 0.1}}, 1, 0, simNs);
    const auto rel2 = makeCloud(xyzAnd({{"time", 12, PointFieldType::Float32}}), 16, {{0, 0, 0, 0}, {0, 0, 0, 0.1}}, 1, 0,
                                simNs + 500000000);
    CHECK(voxen::ros::chooseCloudLayout(rel.cloud, "c").timeReference == PointTimeReference::RelativeToStamp);
    CHECK(voxen::ros::chooseCloudLayout(rel.cloud, "c", &rel2.cloud).timeReference == PointTimeReference::RelativeToStamp);
    const auto abs = makeCloud(xyzAnd({{"timestamp", 16, PointFieldType::Float64}}), 24, {{0, 0, 0, 9.95}, {0, 0, 0, 10.05}},
                               1, 0, simNs);
    const auto abs2 = makeCloud(xyzAnd({{"timestamp", 16, PointFieldType::Float64}}), 24,
                                {{0, 0, 0, 10.45}, {0, 0, 0, 10.55}}, 1, 0, simNs + 500000000);
    // Alone, the nearer reading (absolute); the next cloud shows them moving with the stamps.
    CHECK(voxen::ros::chooseCloudLayout(abs.cloud, "c").timeReference == PointTimeReference::Absolute);
    const CloudLayout absolute = voxen::ros::chooseCloudLayout(abs.cloud, "c", &abs2.cloud);
    CHECK(absolute.timeReference == PointTimeReference::Absolute);
    CHECK_THAT(absolute.timeReport, Contains("they move with the stamps"));
    // Read as offsets (the first cloud's values stayed near 0.05 s), a cloud whose times moved
    // 10 s is refused, not posed 10 s late.
    const CloudLayout wrong = voxen::ros::chooseCloudLayout(rel.cloud, "c");
    std::vector<double> out;
    const auto moved = makeCloud(xyzAnd({{"time", 12, PointFieldType::Float32}}), 16, {{0, 0, 0, 10.5f}, {0, 0, 0, 10.6f}},
                                 1, 0, simNs + 500000000);
    CHECK_THAT(vt::errorOf([&] { voxen::ros::decodeCloudRows(moved.cloud, wrong, "bag /points #1", out); }),
               StartsWith("bag /points #1: point 0's time from field 'time' is 10.5 s from header.stamp, outside the"));
  }
  SECTION("A time that is neither is refused naming the field, its type and the range") {
    const auto t = makeCloud(xyzAnd({{"timestamp", 16, PointFieldType::Float64}}), 24,
                             {{0, 0, 0, 1.7e18}, {0, 0, 0, 1.7000000001e18}});
    const std::string e = vt::errorOf([&] { voxen::ros::chooseCloudLayout(t.cloud, "bag /points #0"); });
    CHECK_THAT(e, StartsWith("bag /points #0: cannot tell what field 'timestamp' float64 holds"));
    CHECK_THAT(e, Contains("from 1.7e+18 to 1.7000000001e+18 s"));
    CHECK_THAT(e, Contains("header.stamp (1700000000.5 s)"));
  }
  SECTION("A first cloud without a finite time is refused") {
    const auto t = makeCloud(xyzAnd({{"time", 12, PointFieldType::Float32}}), 16, {{0, 0, 0, kNan}});
    CHECK_THAT(vt::errorOf([&] { voxen::ros::chooseCloudLayout(t.cloud, "c"); }),
               Contains("no point with a finite 'time' float32"));
  }
}

TEST_CASE("Cloud rows: float64 coordinates exactly, organised clouds with padded rows, NaN points kept, appended",
          "[rosmsg]") {
  SECTION("float64 x y z keep every bit") {
    const auto t = makeCloud({{"z", 16, PointFieldType::Float64}, {"y", 8, PointFieldType::Float64}, {"x", 0, PointFieldType::Float64}},
                             24, {{0.3, 0.2, 0.1}, {-1e300, 1e-300, 123456789.123456789}});
    const CloudLayout l = voxen::ros::chooseCloudLayout(t.cloud, "c");
    const auto rows = decode(t, l);
    const double stamp = voxen::ros::stampSeconds(kStampNs);
    CHECK(rows == std::vector<double>{0.1, 0.2, 0.3, stamp, 123456789.123456789, 1e-300, -1e300, stamp});
  }
  SECTION("an organised cloud: height 3, rows padded by 8 bytes, read row-major") {
    std::vector<std::vector<double>> points;
    for (int i = 0; i < 6; ++i) points.push_back({double(i), double(10 * i), double(-i), double(i % 3)});
    const auto t = makeCloud(xyzAnd({{"intensity", 12, PointFieldType::Uint8}}), 13, points, 3, 8);
    CHECK(t.cloud.rowStep == 34);
    const CloudLayout l = voxen::ros::chooseCloudLayout(t.cloud, "c");
    const auto rows = decode(t, l);
    REQUIRE(rows.size() == 30);
    for (size_t i = 0; i < 6; ++i) {
      CHECK(rows[i * 5 + 0] == double(i));
      CHECK(rows[i * 5 + 1] == double(10 * i));
      CHECK(rows[i * 5 + 2] == -double(i));
      CHECK(rows[i * 5 + 4] == double(i % 3));
    }
  }
  SECTION("NaN points are kept and counted, rows appended after what is there") {
    const auto t = makeCloud(kXyz, 12, {{kNan, kNan, kNan}, {1, 2, 3}});
    const CloudLayout l = voxen::ros::chooseCloudLayout(t.cloud, "c");
    std::vector<double> out = {42.0};
    CHECK(voxen::ros::decodeCloudRows(t.cloud, l, "c", out) == 2);
    REQUIRE(out.size() == 9);
    CHECK(out[0] == 42.0);
    CHECK(std::isnan(out[1]));
    CHECK(std::isnan(out[3]));
    CHECK(out[5] == 1.0);
  }
  SECTION("more points than one block, unorganised") {
    std::vector<std::vector<double>> points;
    for (int i = 0; i < 2500; ++i) points.push_back({double(i), 0, 0, double(i)});
    const auto t = makeCloud(xyzAnd({{"t", 12, PointFieldType::Uint32}}), 16, points);
    const auto rows = decode(t, voxen::ros::chooseCloudLayout(t.cloud, "c"));
    REQUIRE(rows.size() == 2500 * 4);
    for (size_t i = 0; i < 2500; i += 499) {
      CHECK(rows[i * 4] == double(i));
      CHECK(rows[i * 4 + 3] == voxen::ros::stampSeconds(kStampNs) + double(i) * 1e-9);
    }
  }
}

TEST_CASE("Clouds that cannot be read are refused by name: big-endian, no x, integer x, a later cloud's other layout",
          "[rosmsg]") {
  const auto good = makeCloud(xyzAnd({{"intensity", 12, PointFieldType::Float32}, {"t", 16, PointFieldType::Uint32}}), 20,
                              {{1, 2, 3, 4, 5}});
  const CloudLayout l = voxen::ros::chooseCloudLayout(good.cloud, "c");
  SECTION("big-endian") {
    PointCloud2 c = good.cloud;
    c.isBigEndian = true;
    CHECK_THAT(vt::errorOf([&] { voxen::ros::chooseCloudLayout(c, "bag #1"); }), StartsWith("bag #1: the cloud is big-endian"));
    std::vector<double> out;
    CHECK_THAT(vt::errorOf([&] { voxen::ros::decodeCloudRows(c, l, "bag #2", out); }), StartsWith("bag #2: the cloud is big-endian"));
  }
  SECTION("no x") {
    const auto t = makeCloud({{"y", 4, PointFieldType::Float32}, {"z", 8, PointFieldType::Float32}}, 12, {{1, 2}});
    CHECK(vt::errorOf([&] { voxen::ros::chooseCloudLayout(t.cloud, "c"); }) ==
          "c: the cloud has no field 'x' (x, y and z are needed)");
  }
  SECTION("an int16 coordinate") {
    const auto t = makeCloud({{"x", 0, PointFieldType::Float32}, {"y", 4, PointFieldType::Int16}, {"z", 8, PointFieldType::Float32}},
                             12, {{1, 2, 3}});
    CHECK(vt::errorOf([&] { voxen::ros::chooseCloudLayout(t.cloud, "c"); }) ==
          "c: field 'y' (int16) must be float32 or float64");
  }
  SECTION("a field past point_step, an unknown datatype") {
    PointCloud2 c = good.cloud;
    c.pointStep = 18;
    CHECK_THAT(vt::errorOf([&] { voxen::ros::chooseCloudLayout(c, "c"); }),
               Contains("field 't' (uint32) at offset 16 ends past point_step 18"));
    c = good.cloud;
    c.fields[4].datatype = 13;
    CHECK_THAT(vt::errorOf([&] { voxen::ros::chooseCloudLayout(c, "c"); }),
               Contains("field 't' (datatype 13) has an unknown datatype"));
  }
  SECTION("a later cloud with another offset, another datatype, a field missing, short data") {
    std::vector<double> out;
    PointCloud2 c = good.cloud;
    c.fields[4].offset = 12;
    c.fields[3].offset = 16;
    CHECK(vt::errorOf([&] { voxen::ros::decodeCloudRows(c, l, "bag /points #7", out); }) ==
          "bag /points #7: field 't' is uint32 at offset 12, but uint32 at offset 16 in the topic's first cloud");
    c = good.cloud;
    c.fields[4].datatype = uint8_t(PointFieldType::Float32);
    CHECK_THAT(vt::errorOf([&] { voxen::ros::decodeCloudRows(c, l, "c", out); }),
               Contains("field 't' is float32 at offset 16, but uint32 at offset 16"));
    c = good.cloud;
    c.fields.pop_back();
    CHECK_THAT(vt::errorOf([&] { voxen::ros::decodeCloudRows(c, l, "c", out); }),
               Contains("the cloud has no field 't', which the topic's first cloud had"));
    c = good.cloud;
    c.width = 2;
    CHECK_THAT(vt::errorOf([&] { voxen::ros::decodeCloudRows(c, l, "c", out); }),
               Contains("data holds 20 bytes, too few for 1 rows of 2 points"));
    CHECK(out.empty());
  }
}

// Not run by default: `voxen_tests "[.rosmsg-bench]"`. An Ouster-like 128 x 1024 cloud (float32
// x y z, float32 intensity at 16, uint32 t at 20, point_step 48), decoded 20 times.
TEST_CASE("PointCloud2 row decoding speed, Ouster-like 128 x 1024", "[.rosmsg-bench]") {
  const std::vector<Field> fields = xyzAnd({{"intensity", 16, PointFieldType::Float32}, {"t", 20, PointFieldType::Uint32},
                                            {"reflectivity", 24, PointFieldType::Uint16}});
  std::vector<std::vector<double>> points;
  for (uint32_t i = 0; i < 128 * 1024; ++i)
    points.push_back({double(i % 97), double(i % 89), double(i % 7), double(i % 255), double((i % 1024) * 97656), 3});
  const auto t = makeCloud(fields, 48, points, 128);
  const CloudLayout l = voxen::ros::chooseCloudLayout(t.cloud, "bench");
  std::vector<double> out;
  out.reserve(points.size() * 5);
  double best = 1e30;
  for (int run = 0; run < 20; ++run) {
    out.clear();
    const auto start = std::chrono::steady_clock::now();
    voxen::ros::decodeCloudRows(t.cloud, l, "bench", out);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::printf("decodeCloudRows: %.2f ns per point (best of 20, %zu points, one thread)\n", best * 1e9 / double(points.size()),
              points.size());
  CHECK(out.size() == points.size() * 5);
}
