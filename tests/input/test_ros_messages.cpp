// sensor_msgs/PointCloud2 and tf2_msgs/TFMessage in ROS 1 serialization and CDR (both byte
// orders): round trips, byte arrays written out by hand (so that encoder and decoder cannot
// share a mistake), every truncation an Error naming where the message ends, bad lengths.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "support/test_helpers.hpp"
#include "voxen/input/ros_messages.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using voxen::ros::MessageEncoding;
using voxen::ros::PointCloud2;
using voxen::ros::TransformStamped;

namespace {

struct Variant {
  MessageEncoding encoding;
  bool bigEndian;
  const char* name;
};
const Variant kVariants[] = {
    {MessageEncoding::Ros1, false, "ROS 1"}, {MessageEncoding::Cdr, false, "CDR_LE"}, {MessageEncoding::Cdr, true, "CDR_BE"}};

// Bytes in either byte order, for hand-built messages.
struct Out {
  std::vector<uint8_t> bytes;
  bool big = false;
  template <typename T>
  Out& put(T v) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if (big)
      for (size_t i = sizeof(T); i-- > 0;) bytes.push_back(b[i]);
    else
      bytes.insert(bytes.end(), b, b + sizeof(T));
    return *this;
  }
  Out& raw(std::initializer_list<uint8_t> b) {
    bytes.insert(bytes.end(), b);
    return *this;
  }
  Out& text(const std::string& s) {
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
};

PointCloud2 sampleCloud(const std::vector<uint8_t>& data) {
  PointCloud2 c;
  c.stampNs = 1700000000123456789;
  c.frameId = "os_lidar";
  c.height = 2;
  c.width = 1;
  c.fields = {{"x", 0, 7, 1}, {"y", 4, 7, 1}, {"z", 8, 7, 1}, {"intensity", 12, 2, 1}};
  c.isBigEndian = false;
  c.pointStep = 13;
  c.rowStep = 16;
  c.data = data;
  c.isDense = false;
  return c;
}

std::vector<TransformStamped> sampleTransforms() {
  TransformStamped a;
  a.stampNs = 1700000001000000001;
  a.parentFrame = "odom";
  a.childFrame = "base_link";
  a.translation = {1.5, -2.25, 1e-3};
  a.rotation = glm::dquat(0.5, 0.5, -0.5, 0.5);
  TransformStamped b;
  b.stampNs = 5;
  b.parentFrame = "base_link";
  b.childFrame = "lidar";
  b.translation = {0.0, 0.0, 1.75};
  return {a, b};
}

void checkSame(const PointCloud2& a, const PointCloud2& b) {
  CHECK(a.stampNs == b.stampNs);
  CHECK(a.frameId == b.frameId);
  CHECK(a.height == b.height);
  CHECK(a.width == b.width);
  REQUIRE(a.fields.size() == b.fields.size());
  for (size_t i = 0; i < a.fields.size(); ++i) {
    CHECK(a.fields[i].name == b.fields[i].name);
    CHECK(a.fields[i].offset == b.fields[i].offset);
    CHECK(a.fields[i].datatype == b.fields[i].datatype);
    CHECK(a.fields[i].count == b.fields[i].count);
  }
  CHECK(a.isBigEndian == b.isBigEndian);
  CHECK(a.pointStep == b.pointStep);
  CHECK(a.rowStep == b.rowStep);
  CHECK(std::vector<uint8_t>(a.data.begin(), a.data.end()) == std::vector<uint8_t>(b.data.begin(), b.data.end()));
  CHECK(a.isDense == b.isDense);
}

void checkSame(const std::vector<TransformStamped>& a, const std::vector<TransformStamped>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].stampNs == b[i].stampNs);
    CHECK(a[i].parentFrame == b[i].parentFrame);
    CHECK(a[i].childFrame == b[i].childFrame);
    CHECK(a[i].translation == b[i].translation);
    CHECK(a[i].rotation == b[i].rotation);
  }
}

}  // namespace

TEST_CASE("PointCloud2 and TFMessage round trip through ROS 1, CDR_LE and CDR_BE", "[rosmsg]") {
  std::vector<uint8_t> data(32);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 7 + 1);
  const PointCloud2 cloud = sampleCloud(data);
  const auto transforms = sampleTransforms();
  for (const Variant& v : kVariants) {
    INFO(v.name);
    const auto bytes = voxen::ros::encodePointCloud2(cloud, v.encoding, v.bigEndian);
    const PointCloud2 back = voxen::ros::decodePointCloud2(bytes, v.encoding, "cloud");
    checkSame(back, cloud);
    // The data is not copied: it points into the message.
    CHECK(back.data.data() >= bytes.data());
    CHECK(back.data.data() + back.data.size() <= bytes.data() + bytes.size());
    const auto tfBytes = voxen::ros::encodeTfMessage(transforms, v.encoding, v.bigEndian);
    checkSame(voxen::ros::decodeTfMessage(tfBytes, v.encoding, "tf"), transforms);
    // Bytes after the message are allowed (CDR writers pad to 4).
    auto padded = tfBytes;
    padded.insert(padded.end(), 3, 0);
    checkSame(voxen::ros::decodeTfMessage(padded, v.encoding, "tf"), transforms);
  }
  // The two CDR byte orders differ only in their header and the order within each value.
  const auto le = voxen::ros::encodeTfMessage(transforms, MessageEncoding::Cdr, false);
  const auto be = voxen::ros::encodeTfMessage(transforms, MessageEncoding::Cdr, true);
  CHECK(le.size() == be.size());
  CHECK(le != be);
}

TEST_CASE("A ROS 1 PointCloud2 written out byte by byte decodes", "[rosmsg]") {
  Out o;
  o.put<uint32_t>(77)                                  // header.seq
      .put<uint32_t>(1700000000).put<uint32_t>(250)    // header.stamp
      .put<uint32_t>(4).text("velo")                   // header.frame_id
      .put<uint32_t>(1).put<uint32_t>(2)               // height, width
      .put<uint32_t>(2)                                // fields
      .put<uint32_t>(1).text("x").put<uint32_t>(0).raw({7}).put<uint32_t>(1)
      .put<uint32_t>(9).text("intensity").put<uint32_t>(4).raw({2}).put<uint32_t>(1)
      .raw({0})                                        // is_bigendian
      .put<uint32_t>(5).put<uint32_t>(10)              // point_step, row_step
      .put<uint32_t>(10).put<float>(1.5f).raw({200}).put<float>(-2.0f).raw({3})  // data
      .raw({1});                                       // is_dense
  const PointCloud2 c = voxen::ros::decodePointCloud2(o.bytes, MessageEncoding::Ros1, "bag");
  CHECK(c.stampNs == 1700000000000000250);
  CHECK(c.frameId == "velo");
  CHECK(c.height == 1);
  CHECK(c.width == 2);
  REQUIRE(c.fields.size() == 2);
  CHECK(c.fields[1].name == "intensity");
  CHECK(c.fields[1].offset == 4);
  CHECK(c.fields[1].datatype == 2);
  CHECK(c.pointStep == 5);
  CHECK(c.rowStep == 10);
  REQUIRE(c.data.size() == 10);
  CHECK(c.data[4] == 200);
  CHECK(c.data[9] == 3);
  CHECK(c.isDense);
  // And the encoder writes the same bytes (seq aside: it writes 0).
  auto expected = o.bytes;
  std::memset(expected.data(), 0, 4);
  CHECK(voxen::ros::encodePointCloud2(c, MessageEncoding::Ros1) == expected);
}

TEST_CASE("CDR PointCloud2 and TFMessage written out byte by byte decode, both byte orders", "[rosmsg]") {
  for (const bool big : {false, true}) {
    INFO((big ? "CDR_BE" : "CDR_LE"));
    // Offsets count from the byte after the 4-byte encapsulation header.
    Out o;
    o.big = big;
    o.raw({0x00, uint8_t(big ? 0x00 : 0x01), 0x00, 0x00});
    o.put<int32_t>(-2).put<uint32_t>(999999999)      // stamp: 0..7
        .put<uint32_t>(3).text("ab").raw({0})        // frame_id: 8..14
        .raw({0})                                    // pad to 16
        .put<uint32_t>(1).put<uint32_t>(1)           // height, width: 16..23
        .put<uint32_t>(1)                            // fields: 24..27
        .put<uint32_t>(2).text("z").raw({0})         // name: 28..33
        .raw({0, 0})                                 // pad to 36
        .put<uint32_t>(0).raw({8})                   // offset, datatype: 36..40
        .raw({0, 0, 0})                              // pad to 44
        .put<uint32_t>(1)                            // count: 44..47
        .raw({0})                                    // is_bigendian: 48
        .raw({0, 0, 0})                              // pad to 52
        .put<uint32_t>(8).put<uint32_t>(8)           // point_step, row_step: 52..59
        .put<uint32_t>(8).put<double>(0.25)          // data: 60..71 (bytes: no byte order)
        .raw({0});                                   // is_dense: 72
    if (big) std::reverse(o.bytes.end() - 9, o.bytes.end() - 1);  // the data stays little-endian
    const PointCloud2 c = voxen::ros::decodePointCloud2(o.bytes, MessageEncoding::Cdr, "mcap");
    CHECK(c.stampNs == -1000000001);
    CHECK(c.frameId == "ab");
    REQUIRE(c.fields.size() == 1);
    CHECK(c.fields[0].name == "z");
    CHECK(c.fields[0].datatype == 8);
    CHECK(c.pointStep == 8);
    double z = 0;
    REQUIRE(c.data.size() == 8);
    std::memcpy(&z, c.data.data(), 8);
    CHECK(z == 0.25);
    CHECK_FALSE(c.isDense);
    CHECK(voxen::ros::encodePointCloud2(c, MessageEncoding::Cdr, big) == o.bytes);

    Out t;
    t.big = big;
    t.raw({0x00, uint8_t(big ? 0x00 : 0x01), 0x00, 0x00});
    t.put<uint32_t>(1)                                 // transforms: 0..3
        .put<int32_t>(10).put<uint32_t>(20)            // stamp: 4..11
        .put<uint32_t>(4).text("map").raw({0})         // frame_id: 12..19
        .put<uint32_t>(2).text("b").raw({0})           // child_frame_id: 20..25
        .raw({0, 0, 0, 0, 0, 0})                       // pad to 32
        .put<double>(1).put<double>(2).put<double>(3)  // translation
        .put<double>(0).put<double>(0).put<double>(1).put<double>(0);  // rotation x y z w
    const auto tf = voxen::ros::decodeTfMessage(t.bytes, MessageEncoding::Cdr, "mcap");
    REQUIRE(tf.size() == 1);
    CHECK(tf[0].stampNs == 10000000020);
    CHECK(tf[0].parentFrame == "map");
    CHECK(tf[0].childFrame == "b");
    CHECK(tf[0].translation == glm::dvec3(1, 2, 3));
    CHECK(tf[0].rotation.w == 0.0);
    CHECK(tf[0].rotation.z == 1.0);
    CHECK(voxen::ros::encodeTfMessage(tf, MessageEncoding::Cdr, big) == t.bytes);
  }
}

TEST_CASE("A ROS 1 TFMessage written out byte by byte decodes", "[rosmsg]") {
  Out o;
  o.put<uint32_t>(1)                                                   // transforms
      .put<uint32_t>(0).put<uint32_t>(3).put<uint32_t>(4)              // seq, stamp
      .put<uint32_t>(5).text("world")                                  // frame_id
      .put<uint32_t>(4).text("base")                                   // child_frame_id
      .put<double>(-1).put<double>(0.5).put<double>(2)                 // translation
      .put<double>(0.1).put<double>(0.2).put<double>(0.3).put<double>(0.4);  // x y z w
  const auto tf = voxen::ros::decodeTfMessage(o.bytes, MessageEncoding::Ros1, "bag");
  REQUIRE(tf.size() == 1);
  CHECK(tf[0].stampNs == 3000000004);
  CHECK(tf[0].parentFrame == "world");
  CHECK(tf[0].childFrame == "base");
  CHECK(tf[0].translation == glm::dvec3(-1, 0.5, 2));
  CHECK(tf[0].rotation.x == 0.1);
  CHECK(tf[0].rotation.y == 0.2);
  CHECK(tf[0].rotation.z == 0.3);
  CHECK(tf[0].rotation.w == 0.4);
}

TEST_CASE("Every truncation of a message is an Error naming where it ends", "[rosmsg]") {
  std::vector<uint8_t> data(32, 0x5a);
  const PointCloud2 cloud = sampleCloud(data);
  const auto transforms = sampleTransforms();
  for (const Variant& v : kVariants) {
    INFO(v.name);
    const auto cloudBytes = voxen::ros::encodePointCloud2(cloud, v.encoding, v.bigEndian);
    const auto tfBytes = voxen::ros::encodeTfMessage(transforms, v.encoding, v.bigEndian);
    for (size_t n = 0; n < cloudBytes.size(); ++n) {
      INFO("PointCloud2 cut to " << n << " bytes");
      const std::vector<uint8_t> cut(cloudBytes.begin(), cloudBytes.begin() + std::ptrdiff_t(n));
      const std::string e = vt::errorOf([&] { voxen::ros::decodePointCloud2(cut, v.encoding, "topic /points #3"); });
      CHECK_THAT(e, StartsWith("topic /points #3: the message ends too early: "));
      CHECK_THAT(e, Contains("the message has only " + std::to_string(n) + " bytes"));
    }
    for (size_t n = 0; n < tfBytes.size(); ++n) {
      INFO("TFMessage cut to " << n << " bytes");
      const std::vector<uint8_t> cut(tfBytes.begin(), tfBytes.begin() + std::ptrdiff_t(n));
      const std::string e = vt::errorOf([&] { voxen::ros::decodeTfMessage(cut, v.encoding, "/tf #0"); });
      CHECK_THAT(e, StartsWith("/tf #0: the message ends too early: "));
      CHECK_THAT(e, Contains("the message has only " + std::to_string(n) + " bytes"));
    }
  }
}

TEST_CASE("Bad ROS messages are Errors: lengths past the end, encapsulation, NUL, short data, fields past a point",
          "[rosmsg]") {
  std::vector<uint8_t> data(32, 1);
  const PointCloud2 cloud = sampleCloud(data);
  SECTION("a huge count names the field and allocates nothing") {
    auto bytes = voxen::ros::encodeTfMessage(sampleTransforms(), MessageEncoding::Ros1);
    const uint32_t huge = 0xfffffff0u;
    std::memcpy(bytes.data(), &huge, 4);
    const std::string e = vt::errorOf([&] { voxen::ros::decodeTfMessage(bytes, MessageEncoding::Ros1, "tf"); });
    CHECK_THAT(e, Contains("transforms counts 4294967280 elements after byte 4"));
  }
  SECTION("a string longer than the message") {
    auto bytes = voxen::ros::encodePointCloud2(cloud, MessageEncoding::Ros1);
    const uint32_t huge = 1000;
    std::memcpy(bytes.data() + 12, &huge, 4);  // frame_id's length
    const std::string e = vt::errorOf([&] { voxen::ros::decodePointCloud2(bytes, MessageEncoding::Ros1, "c"); });
    CHECK_THAT(e, Contains("header.frame_id needs 1000 bytes at byte 16"));
  }
  SECTION("an unknown CDR encapsulation") {
    auto bytes = voxen::ros::encodePointCloud2(cloud, MessageEncoding::Cdr);
    bytes[1] = 0x07;  // XCDR2
    const std::string e = vt::errorOf([&] { voxen::ros::decodePointCloud2(bytes, MessageEncoding::Cdr, "c"); });
    CHECK_THAT(e, Contains("unknown CDR encapsulation 0x00 0x07"));
  }
  SECTION("a CDR string without its NUL") {
    auto bytes = voxen::ros::encodePointCloud2(cloud, MessageEncoding::Cdr);
    bytes[4 + 8 + 4 + 8] = 'x';  // the NUL after "os_lidar"
    const std::string e = vt::errorOf([&] { voxen::ros::decodePointCloud2(bytes, MessageEncoding::Cdr, "c"); });
    CHECK_THAT(e, Contains("header.frame_id: the CDR string of 9 bytes ending at byte 25 does not end in a NUL"));
  }
  SECTION("data shorter than row_step x height") {
    PointCloud2 c = cloud;
    c.data = std::span<const uint8_t>(data).first(31);
    const auto bytes = voxen::ros::encodePointCloud2(c, MessageEncoding::Ros1);
    const std::string e = vt::errorOf([&] { voxen::ros::decodePointCloud2(bytes, MessageEncoding::Ros1, "c"); });
    CHECK_THAT(e, Contains("data holds 31 bytes, fewer than row_step x height (16 x 2 = 32)"));
  }
  SECTION("a field past point_step") {
    PointCloud2 c = cloud;
    c.fields[3].datatype = 4;  // uint16 at 12 ends at 14 > 13
    const auto bytes = voxen::ros::encodePointCloud2(c, MessageEncoding::Cdr);
    const std::string e = vt::errorOf([&] { voxen::ros::decodePointCloud2(bytes, MessageEncoding::Cdr, "c"); });
    CHECK_THAT(e, Contains("field 'intensity' (uint16) at offset 12 ends at byte 14 of a point, past point_step 13"));
  }
  SECTION("row_step smaller than a row") {
    PointCloud2 c = cloud;
    c.width = 2;
    const auto bytes = voxen::ros::encodePointCloud2(c, MessageEncoding::Ros1);
    const std::string e = vt::errorOf([&] { voxen::ros::decodePointCloud2(bytes, MessageEncoding::Ros1, "c"); });
    CHECK_THAT(e, Contains("row_step 16 is smaller than width x point_step (2 x 13)"));
  }
}

TEST_CASE("Point field datatypes, MD5 sums and the definitions writers store", "[rosmsg]") {
  CHECK(voxen::ros::pointFieldTypeSize(7) == 4);
  CHECK(voxen::ros::pointFieldTypeSize(8) == 8);
  CHECK(voxen::ros::pointFieldTypeSize(3) == 2);
  CHECK(voxen::ros::pointFieldTypeSize(0) == 0);
  CHECK(voxen::ros::pointFieldTypeSize(9) == 0);
  CHECK(voxen::ros::pointFieldTypeName(6) == "uint32");
  CHECK(voxen::ros::pointFieldTypeName(13) == "datatype 13");
  CHECK(voxen::ros::pointCloud2Md5() == "1158d486dd51d683ce2f1be655c3c181");
  CHECK(voxen::ros::tfMessageMd5() == "94810edda583a504dfda3829e70d7eec");
  const std::string sep = std::string(80, '=') + "\n";
  // rosbag's layout: the message, then each dependency after a blank line and the separator.
  const std::string& pc = voxen::ros::pointCloud2Ros1Definition();
  CHECK_THAT(pc, Contains("\nHeader header\n"));
  CHECK_THAT(pc, Contains("bool is_dense        # True if there are no invalid points\n\n" + sep +
                          "MSG: std_msgs/Header\n"));
  CHECK_THAT(pc, Contains("string frame_id\n\n" + sep + "MSG: sensor_msgs/PointField\n"));
  CHECK_THAT(pc, Contains("uint32 count     # How many elements in the field\n"));
  CHECK(pc.back() == '\n');
  CHECK(pc.substr(pc.size() - 2) != "\n\n");
  const std::string& tf = voxen::ros::tfMessageRos1Definition();
  CHECK_THAT(tf, StartsWith("geometry_msgs/TransformStamped[] transforms\n\n" + sep +
                            "MSG: geometry_msgs/TransformStamped\n"));
  for (const char* dep : {"std_msgs/Header", "geometry_msgs/Transform", "geometry_msgs/Vector3", "geometry_msgs/Quaternion"})
    CHECK_THAT(tf, Contains("\n\n" + sep + "MSG: " + dep + "\n"));
  CHECK_THAT(voxen::ros::pointCloud2Ros2Schema(), StartsWith("std_msgs/Header header\n"));
  CHECK_THAT(voxen::ros::pointCloud2Ros2Schema(), Contains(sep + "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"));
  CHECK_THAT(voxen::ros::tfMessageRos2Schema(), Contains(sep + "MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\n"));
}
