// The PLY reader and writer: header parsing, every property type, ASCII and binary bodies,
// list skipping, chunked streaming, and a clear error for every kind of bad file.
#include <catch2/catch.hpp>

#include "support/test_helpers.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/input/ply.hpp"
#include "voxen/input/trajectory.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/log.hpp"

using Catch::Matchers::Contains;
using voxen::PlyColumn;
using voxen::PlyFormat;
using voxen::PlyReader;
using voxen::PlyType;

using vt::Bytes;
using vt::errorOf;

namespace {

std::vector<double> readAll(PlyReader& reader, size_t chunk = 1000) {
  std::vector<double> out;
  while (reader.read(out, chunk) > 0) {
  }
  return out;
}

const std::string kAllTypesHeader =
    "property char a\nproperty uchar b\nproperty short c\nproperty ushort d\n"
    "property int e\nproperty uint f\nproperty float g\nproperty double h\n";
const std::string kAllAliasesHeader =
    "property int8 a\nproperty uint8 b\nproperty int16 c\nproperty uint16 d\n"
    "property int32 e\nproperty uint32 f\nproperty float32 g\nproperty float64 h\n";

}  // namespace

TEST_CASE("PLY header: format, elements, every type name and alias, lists, comments", "[ply]") {
  vt::TempDir dir("ply");
  const std::string text = "ply\r\nformat ascii 1.0\r\ncomment made by hand\nobj_info scanner 7\n"
                           "element face 0\nproperty list uchar int vertex_indices\n"
                           "element vertex 0\n" +
                           kAllTypesHeader + "end_header\n";
  dir.write("h.ply", text);
  const auto header = voxen::readPlyHeader(dir / "h.ply");
  CHECK(header.format == PlyFormat::Ascii);
  REQUIRE(header.elements.size() == 2);
  CHECK(header.comments == std::vector<std::string>{"made by hand", "scanner 7"});
  CHECK(header.lineCount == 16);
  CHECK(header.bodyOffset == text.size());
  const auto* face = header.find("face");
  REQUIRE(face);
  REQUIRE(face->properties.size() == 1);
  CHECK(face->properties[0].isList);
  CHECK(face->properties[0].countType == PlyType::UInt8);
  CHECK(face->properties[0].type == PlyType::Int32);
  const auto* vertex = header.find("vertex");
  REQUIRE(vertex);
  const std::vector<PlyType> expected = {PlyType::Int8,  PlyType::UInt8,  PlyType::Int16,   PlyType::UInt16,
                                         PlyType::Int32, PlyType::UInt32, PlyType::Float32, PlyType::Float64};
  REQUIRE(vertex->properties.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(vertex->properties[i].type == expected[i]);
    CHECK_FALSE(vertex->properties[i].isList);
  }
  CHECK(vertex->find("h") == std::optional<size_t>(7));
  CHECK_FALSE(vertex->find("nope").has_value());

  // The sized aliases name the same types.
  const std::vector<std::string> aliases = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"};
  for (size_t i = 0; i < aliases.size(); ++i) {
    CHECK(voxen::parsePlyType(aliases[i]) == expected[i]);
    CHECK(voxen::parsePlyType(voxen::plyTypeName(expected[i])) == expected[i]);
  }
  CHECK_FALSE(voxen::parsePlyType("float16").has_value());
  CHECK(voxen::plyTypeSize(PlyType::Int8) == 1);
  CHECK(voxen::plyTypeSize(PlyType::UInt16) == 2);
  CHECK(voxen::plyTypeSize(PlyType::Float32) == 4);
  CHECK(voxen::plyTypeSize(PlyType::Float64) == 8);
}

TEST_CASE("PLY ASCII body: every type exact, lists skipped in the vertex and in an element before it", "[ply]") {
  vt::TempDir dir("ply");
  const bool aliases = GENERATE(false, true);
  dir.write("a.ply",
            "ply\nformat ascii 1.0\nelement face 2\nproperty list uchar int vertex_indices\n"
            "property uchar flag\nelement vertex 3\n" +
                (aliases ? kAllAliasesHeader : kAllTypesHeader) +
                "property list int float extra\nend_header\n"
                "3 0 1 2 9\n"
                "0 7\n"
                "-128 255 -32768 65535 -2147483648 4294967295 0.1 0.1 2 5.5 6.5\n"
                "\n"  // blank lines are tolerated
                "127 0 32767 0 2147483647 0 -1.5e3 1e-300 0\n"
                "+1 +2 -3 4 -5 6 nan -inf 1 inf\r\n");
  PlyReader reader(dir / "a.ply");
  CHECK(reader.count() == 3);
  CHECK(reader.element().name == "vertex");
  CHECK(reader.columns() == std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7});
  const auto v = readAll(reader);
  REQUIRE(v.size() == 24);
  const std::vector<double> row0 = {-128, 255, -32768, 65535, -2147483648.0, 4294967295.0, double(0.1f), 0.1};
  const std::vector<double> row1 = {127, 0, 32767, 0, 2147483647.0, 0, -1500.0, 1e-300};
  CHECK(std::vector<double>(v.begin(), v.begin() + 8) == row0);
  CHECK(std::vector<double>(v.begin() + 8, v.begin() + 16) == row1);
  CHECK(v[16] == 1);
  CHECK(v[17] == 2);
  CHECK(v[18] == -3);
  CHECK(v[19] == 4);
  CHECK(v[20] == -5);
  CHECK(v[21] == 6);
  CHECK(std::isnan(v[22]));
  CHECK(v[23] == -std::numeric_limits<double>::infinity());
  CHECK(reader.done());
  std::vector<double> more;
  CHECK(reader.read(more, 10) == 0);
  CHECK(more.empty());
}

TEST_CASE("PLY binary little-endian body: every type exact, lists skipped, any buffer size", "[ply]") {
  vt::TempDir dir("ply");
  const size_t bufferBytes = GENERATE(size_t(1), size_t(7), size_t(1) << 20);  // the reader uses at least 16
  const bool aliases = GENERATE(false, true);
  const bool withList = GENERATE(true, false);  // without: the fixed-stride fast path
  Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement face 2\nproperty list uchar int vertex_indices\n"
           "property ushort flag\nelement vertex 2\n" +
           (aliases ? kAllAliasesHeader : kAllTypesHeader) +
           (withList ? "property list ushort double extra\n" : "") + "end_header\n";
  // faces: [3: 0 1 2] flag 9; [0:] flag 7
  b.put<uint8_t>(3).put<int32_t>(0).put<int32_t>(1).put<int32_t>(2).put<uint16_t>(9);
  b.put<uint8_t>(0).put<uint16_t>(7);
  // vertex 0
  b.put<int8_t>(-128).put<uint8_t>(255).put<int16_t>(-32768).put<uint16_t>(65535);
  b.put<int32_t>(std::numeric_limits<int32_t>::min()).put<uint32_t>(4294967295u).put<float>(0.1f).put<double>(0.1);
  if (withList) b.put<uint16_t>(2).put<double>(5.5).put<double>(6.5);
  // vertex 1
  b.put<int8_t>(127).put<uint8_t>(0).put<int16_t>(32767).put<uint16_t>(0);
  b.put<int32_t>(std::numeric_limits<int32_t>::max()).put<uint32_t>(0).put<float>(std::nanf("")).put<double>(-1e300);
  if (withList) b.put<uint16_t>(0);
  dir.write("b.ply", b.data);

  PlyReader reader(dir / "b.ply", {"vertex", bufferBytes});
  CHECK(reader.header().format == PlyFormat::BinaryLittleEndian);
  REQUIRE(reader.count() == 2);
  std::vector<double> v;
  REQUIRE(reader.read(v, 1) == 1);
  REQUIRE(reader.read(v, 5) == 1);
  CHECK(reader.read(v, 5) == 0);
  REQUIRE(v.size() == 16);
  const std::vector<double> row0 = {-128, 255, -32768, 65535, -2147483648.0, 4294967295.0, double(0.1f), 0.1};
  CHECK(std::vector<double>(v.begin(), v.begin() + 8) == row0);
  CHECK(v[8] == 127);
  CHECK(v[10] == 32767);
  CHECK(v[12] == 2147483647.0);
  CHECK(std::isnan(v[14]));
  CHECK(v[15] == -1e300);
}

TEST_CASE("PLY float and double coordinates keep their precision", "[ply]") {
  vt::TempDir dir("ply");
  for (const bool binary : {false, true}) {
    Bytes b;
    b.data = std::string("ply\nformat ") + (binary ? "binary_little_endian" : "ascii") +
             " 1.0\nelement vertex 1\nproperty float x\nproperty double y\nend_header\n";
    if (binary) b.put<float>(0.1f).put<double>(0.1);
    else b.data += "0.1 0.1\n";
    dir.write("c.ply", b.data);
    PlyReader reader(dir / "c.ply");
    const auto v = readAll(reader);
    REQUIRE(v.size() == 2);
    CHECK(v[0] == double(0.1f));
    CHECK(v[0] != 0.1);
    CHECK(v[1] == 0.1);
  }
}

TEST_CASE("PLY streaming: chunks of rows across buffer refills, then 0", "[ply]") {
  vt::TempDir dir("ply");
  const size_t n = 1000;
  Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement vertex " + std::to_string(n) +
           "\nproperty double x\nproperty float y\nproperty uchar z\nend_header\n";
  for (size_t i = 0; i < n; ++i) b.put<double>(double(i) * 0.5).put<float>(float(i)).put<uint8_t>(uint8_t(i % 256));
  dir.write("s.ply", b.data);
  PlyReader reader(dir / "s.ply", {"vertex", 100});  // rows of 13 bytes straddle 100-byte chunks
  reader.selectColumns(std::vector<std::string>{"z", "x"});
  CHECK(reader.columns() == std::vector<size_t>{2, 0});
  std::vector<double> v;
  size_t calls = 0;
  while (size_t got = reader.read(v, 37)) {
    CHECK(got <= 37);
    ++calls;
  }
  CHECK(calls == 28);  // ceil(1000 / 37)
  CHECK(reader.rowsRead() == n);
  REQUIRE(v.size() == 2 * n);
  bool allExact = true;
  for (size_t i = 0; i < n; ++i) allExact = allExact && v[2 * i] == double(i % 256) && v[2 * i + 1] == double(i) * 0.5;
  CHECK(allExact);

  const auto message = errorOf([&] {
    PlyReader r(dir / "s.ply");
    r.selectColumns(std::vector<std::string>{"x", "w", "q"});
  });
  CHECK_THAT(message, Contains("s.ply") && Contains("w, q") && Contains("x, y, z"));
}

TEST_CASE("PLY writer round-trips ascii and binary files with double, float and integer columns", "[ply]") {
  vt::TempDir dir("ply");
  const PlyFormat format = GENERATE(PlyFormat::Ascii, PlyFormat::BinaryLittleEndian);
  const std::vector<PlyColumn> columns = {{"x", PlyType::Float64}, {"y", PlyType::Float32}, {"ring", PlyType::UInt16},
                                          {"t", PlyType::Float64}};
  const std::vector<std::vector<double>> rows = {
      {0.1, 0.1, 7, 1e-17}, {-123456789.123456789, 3.4e38, 65535, 1.0 / 3.0}, {1e300, -0.0, 0, 12345.678901234567}};
  {
    voxen::PlyWriter writer(dir / "w.ply", columns, format, {"written by a test"});
    for (const auto& r : rows) writer.write(r);
    writer.write({5.0, 6.0, 7.4, 8.0});
    CHECK(writer.rows() == 4);
    writer.close();
    writer.close();  // idempotent
  }
  const auto header = voxen::readPlyHeader(dir / "w.ply");
  CHECK(header.format == format);
  REQUIRE(header.elements.size() == 1);
  CHECK(header.elements[0].count == 4);
  CHECK(header.comments == std::vector<std::string>{"written by a test"});
  PlyReader reader(dir / "w.ply");
  REQUIRE(reader.element().properties.size() == 4);
  CHECK(reader.element().properties[1].type == PlyType::Float32);
  CHECK(reader.element().properties[2].type == PlyType::UInt16);
  const auto v = readAll(reader);
  REQUIRE(v.size() == 16);
  for (size_t r = 0; r < rows.size(); ++r) {
    CHECK(v[4 * r + 0] == rows[r][0]);
    CHECK(v[4 * r + 1] == double(float(rows[r][1])));
    CHECK(v[4 * r + 2] == rows[r][2]);
    CHECK(v[4 * r + 3] == rows[r][3]);
  }
  CHECK(v[14] == 7.0);  // rounded

  // The writer's destructor finishes an unclosed file, and writePly writes a table at once.
  { voxen::PlyWriter writer(dir / "d.ply", {{"x"}}, format); writer.write({1.0}); writer.write({2.0}); }
  CHECK(voxen::readPlyHeader(dir / "d.ply").elements[0].count == 2);
  const std::vector<double> table = {1, 2, 3, 4, 5, 6};
  voxen::writePly(dir / "t.ply", {{"x"}, {"y", PlyType::Float32}}, table, format);
  PlyReader tr(dir / "t.ply");
  CHECK(readAll(tr) == table);
}

TEST_CASE("PLY writer rejects rows that do not fit", "[ply][errors]") {
  vt::TempDir dir("ply");
  voxen::PlyWriter writer(dir / "e.ply", {{"x"}, {"n", PlyType::UInt8}});
  CHECK_THAT(errorOf([&] { writer.write({1.0}); }), Contains("1 values for 2"));
  CHECK_THAT(errorOf([&] { writer.write({1.0, 256.0}); }), Contains("vertex 0") && Contains("'n'") && Contains("uchar"));
  CHECK_THAT(errorOf([&] { writer.write({1.0, std::nan("")}); }), Contains("'n'"));
  CHECK_THAT(errorOf([&] { voxen::PlyWriter w(dir / "f.ply", {{"x"}}, PlyFormat::BinaryBigEndian); }),
             Contains("not supported"));
  CHECK_THAT(errorOf([&] { voxen::PlyWriter w(dir / "g.ply", {{"x"}, {"x"}}); }), Contains("'x' given twice"));
}

TEST_CASE("PLY bad headers: clear errors naming file and line", "[ply][errors]") {
  vt::TempDir dir("ply");
  auto errorFor = [&](const std::string& text) {
    dir.write("bad.ply", text);
    return errorOf([&] { PlyReader r(dir / "bad.ply"); });
  };
  CHECK_THAT(errorFor("ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty float x\nend_header\n"),
             Contains("bad.ply") && Contains("binary_big_endian") && Contains("not supported"));
  CHECK_THAT(errorFor("PLY file\nformat ascii 1.0\n"), Contains("bad.ply:1:") && Contains("not a PLY file"));
  CHECK_THAT(errorFor(""), Contains("bad.ply") && Contains("empty"));
  CHECK_THAT(errorFor("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"),
             Contains("bad.ply") && Contains("end_header") && Contains("after line 4"));
  CHECK_THAT(errorFor("ply\nformat ascii 1.0\nelement vertex 1\nproperty half x\nend_header\n"),
             Contains("bad.ply:4:") && Contains("'half'"));
  CHECK_THAT(errorFor("ply\nformat ascii 1.0\nproperty float x\nend_header\n"),
             Contains("bad.ply:3:") && Contains("before any element"));
  CHECK_THAT(errorFor("ply\nformat ascii 2.0\n"), Contains("bad.ply:2:") && Contains("version"));
  CHECK_THAT(errorFor("ply\nformat text 1.0\n"), Contains("bad.ply:2:") && Contains("'text'"));
  CHECK_THAT(errorFor("ply\nformat ascii 1.0\nelement vertex many\nend_header\n"),
             Contains("bad.ply:3:") && Contains("'many'"));
  CHECK_THAT(errorFor("ply\nformat ascii 1.0\nelement face 1\nproperty list float int idx\nend_header\n"),
             Contains("bad.ply:4:") && Contains("non-integer count type"));
  CHECK_THAT(errorFor("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float x\nend_header\n"),
             Contains("bad.ply:5:") && Contains("'x' is declared twice"));
  CHECK_THAT(errorFor("ply\nformat ascii 1.0\nelemnt vertex 1\nend_header\n"),
             Contains("bad.ply:3:") && Contains("'elemnt'"));
  CHECK_THAT(errorFor("ply\nelement vertex 0\nend_header\n"), Contains("bad.ply") && Contains("no 'format'"));
  CHECK_THAT(errorFor("ply\nformat ascii 1.0\nelement face 0\nproperty list uchar int i\nend_header\n"),
             Contains("bad.ply") && Contains("no element 'vertex'") && Contains("face"));
  CHECK_THAT(errorOf([&] { PlyReader r(dir / "missing.ply"); }), Contains("missing.ply") && Contains("no such file"));
}

TEST_CASE("PLY bad ASCII bodies: errors name the file, the line and the property", "[ply][errors]") {
  vt::TempDir dir("ply");
  const std::string head = "ply\nformat ascii 1.0\ncomment c\nelement vertex 3\nproperty float x\nproperty float y\n"
                           "property uchar k\nend_header\n";  // 8 header lines
  auto errorFor = [&](const std::string& body) {
    dir.write("bad.ply", head + body);
    return errorOf([&] {
      PlyReader r(dir / "bad.ply");
      readAll(r);
    });
  };
  // Malformed number: the line number and property.
  CHECK_THAT(errorFor("1 2 3\n4 5 6\n7 eight 9\n"),
             Contains("bad.ply:11:") && Contains("vertex 2") && Contains("'y'") && Contains("'eight'"));
  CHECK_THAT(errorFor("1 2 3\n\n4 5.5x 6\n7 8 9\n"), Contains("bad.ply:11:") && Contains("'5.5x'"));
  CHECK_THAT(errorFor("1 2 3.5\n4 5 6\n7 8 9\n"), Contains("bad.ply:9:") && Contains("'k'") && Contains("uchar"));
  CHECK_THAT(errorFor("1 2 300\n4 5 6\n7 8 9\n"), Contains("bad.ply:9:") && Contains("out of range"));
  CHECK_THAT(errorFor("1 2 3\n1e39 5 6\n7 8 9\n"), Contains("bad.ply:10:") && Contains("out of range"));
  // Truncated: fewer rows than declared.
  CHECK_THAT(errorFor("1 2 3\n4 5 6\n"), Contains("bad.ply") && Contains("truncated") && Contains("3 vertex") &&
                                             Contains("after 2"));
  CHECK_THAT(errorFor(""), Contains("truncated") && Contains("after 0"));
  // A row cut short, and one too long.
  CHECK_THAT(errorFor("1 2 3\n4 5\n7 8 9\n"), Contains("bad.ply:10:") && Contains("too few") && Contains("'k'"));
  CHECK_THAT(errorFor("1 2 3 4\n4 5 6\n7 8 9\n"), Contains("bad.ply:9:") && Contains("4 values, expected 3"));

  // Lists: a count beyond the line, and a malformed count.
  const std::string listHead =
      "ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float l\nproperty float x\nend_header\n";
  dir.write("list.ply", listHead + "3 1 2\n");
  CHECK_THAT(errorOf([&] {
               PlyReader r(dir / "list.ply");
               readAll(r);
             }),
             Contains("list.ply:7:") && Contains("'l'") && Contains("3 items"));
  dir.write("list.ply", listHead + "x 1 2\n");
  CHECK_THAT(errorOf([&] {
               PlyReader r(dir / "list.ply");
               readAll(r);
             }),
             Contains("list.ply:7:") && Contains("'l'"));
  // An element before the vertex element is checked too.
  dir.write("face.ply", "ply\nformat ascii 1.0\nelement face 2\nproperty list uchar int i\nelement vertex 1\n"
                        "property float x\nend_header\n3 1 2 3\n");
  CHECK_THAT(errorOf([&] { PlyReader r(dir / "face.ply"); }), Contains("face.ply") && Contains("truncated") &&
                                                                  Contains("face"));
}

TEST_CASE("PLY bad binary bodies: errors name the file, the vertex and the byte offset", "[ply][errors]") {
  vt::TempDir dir("ply");
  const std::string head =
      "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "end_header\n";
  const size_t bufferBytes = GENERATE(size_t(1), size_t(1) << 20);
  auto errorFor = [&](const std::string& bytes) {
    dir.write("bad.ply", bytes);
    return errorOf([&] {
      PlyReader r(dir / "bad.ply", {"vertex", bufferBytes});
      readAll(r, 2);
    });
  };
  // Truncated in the third vertex's y: two whole vertices (24 bytes) and 5 bytes.
  Bytes b;
  b.data = head;
  for (int i = 0; i < 7; ++i) b.put<float>(float(i));
  b.data.push_back('\0');
  const std::string third = std::to_string(head.size() + 24);
  CHECK_THAT(errorFor(b.data), Contains("bad.ply") && Contains("vertex 2 (byte offset " + third + ")") &&
                                         Contains("truncated") && Contains("'y'") &&
                                         Contains("ends at byte " + std::to_string(head.size() + 29)));
  // An empty body.
  CHECK_THAT(errorFor(head), Contains("vertex 0 (byte offset " + std::to_string(head.size()) + ")") &&
                                       Contains("'x'"));

  // Lists: items past the end, and a negative count.
  const std::string listHead = "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\n"
                               "property list char int l\nend_header\n";
  Bytes l;
  l.data = listHead;
  l.put<float>(1.0f).put<int8_t>(1).put<int32_t>(5);
  l.put<float>(2.0f).put<int8_t>(3).put<int32_t>(5);
  CHECK_THAT(errorFor(l.data), Contains("vertex 1 (byte offset " + std::to_string(listHead.size() + 9) + ")") &&
                                             Contains("'l'") && Contains("3 items"));
  Bytes n;
  n.data = listHead;
  n.put<float>(1.0f).put<int8_t>(-2);
  CHECK_THAT(errorFor(n.data), Contains("vertex 0") && Contains("negative count -2"));

  // A corrupt count far beyond the body: a truncation error, not a huge allocation; the
  // reader is spent afterwards.
  Bytes big;
  big.data = "ply\nformat binary_little_endian 1.0\nelement vertex 4000000000000\nproperty double x\nend_header\n";
  big.put<double>(1.0).put<double>(2.0);
  dir.write("big.ply", big.data);
  PlyReader bigReader(dir / "big.ply", {"vertex", bufferBytes});
  CHECK(bigReader.count() == 4000000000000ull);
  std::vector<double> got;
  CHECK_THAT(errorOf([&] { bigReader.read(got, std::numeric_limits<size_t>::max()); }),
             Contains("big.ply: vertex 2 (byte offset") && Contains("truncated"));
  CHECK(got.empty());
  CHECK_THAT(errorOf([&] { bigReader.read(got, 1); }), Contains("cannot continue"));

  // A fixed-size element before the vertex element, cut short.
  Bytes f;
  f.data = "ply\nformat binary_little_endian 1.0\nelement camera 4\nproperty double k\nelement vertex 1\n"
           "property float x\nend_header\n";
  f.put<double>(1.0).put<double>(2.0);
  dir.write("cam.ply", f.data);
  CHECK_THAT(errorOf([&] { PlyReader r(dir / "cam.ply"); }), Contains("cam.ply: camera 2") && Contains("truncated"));
}

TEST_CASE("PLY: data after the declared vertices is an error naming the file (ASCII: the line)", "[ply][errors]") {
  vt::TempDir dir("ply");
  auto errorFor = [&](const std::string& text) {
    dir.write("more.ply", text);
    return errorOf([&] {
      PlyReader r(dir / "more.ply");
      readAll(r);
    });
  };
  const auto asciiHead = [](int n) {
    return "ply\nformat ascii 1.0\nelement vertex " + std::to_string(n) + "\nproperty float x\nproperty float y\nend_header\n";
  };
  // Fewer declared than the body holds: the first extra line is named (header: 6 lines).
  CHECK_THAT(errorFor(asciiHead(2) + "1 2\n3 4\n5 6\n7 8\n"),
             Contains("more.ply:9:") && Contains("data after the 2 vertex elements") && Contains("'element vertex 2'"));
  // Declared 0 over a full body: the error comes from the constructor, since read() has nothing to do.
  dir.write("zero.ply", asciiHead(0) + "1 2\n3 4\n");
  CHECK_THAT(errorOf([&] { PlyReader r(dir / "zero.ply"); }), Contains("zero.ply:7:") && Contains("data after the 0 vertex"));
  // Blank lines at the end are not data.
  dir.write("blank.ply", asciiHead(2) + "1 2\n3 4\n\n  \n");
  PlyReader blank(dir / "blank.ply");
  CHECK(readAll(blank).size() == 4);

  // Binary: the bytes after the last declared vertex.
  Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nend_header\n";
  const size_t end = b.data.size() + 8;
  b.put<float>(1.0f).put<float>(2.0f).put<float>(3.0f).put<float>(4.0f);
  CHECK_THAT(errorFor(b.data), Contains("more.ply: 8 bytes after the 2 vertex elements") &&
                                   Contains("they end at byte " + std::to_string(end)) &&
                                   Contains("at byte " + std::to_string(end + 8)));
  Bytes z;
  z.data = "ply\nformat binary_little_endian 1.0\nelement vertex 0\nproperty float x\nend_header\n";
  z.put<float>(1.0f).put<float>(-2.0f);
  dir.write("zero.ply", z.data);
  CHECK_THAT(errorOf([&] { PlyReader r(dir / "zero.ply"); }), Contains("zero.ply: 8 bytes after the 0 vertex elements"));

  // An element after the vertex element is the file's business: not checked, still read.
  dir.write("face.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nelement face 1\n"
                        "property list uchar int i\nend_header\n1\n3 0 0 0\n");
  PlyReader face(dir / "face.ply");
  CHECK(readAll(face) == std::vector<double>{1.0});
}

TEST_CASE("PLY: a binary header over an ASCII body is an error, not garbage values", "[ply][errors]") {
  vt::TempDir dir("ply");
  std::string text = "ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
                     "property float z\nproperty float time\nend_header\n";  // 8 header lines
  // 4 vertices of 16 bytes: the text is as long as the binary body would be, so no size check catches it.
  text += "1.5 2 3 0.00001\n";
  text += "-1.5 2 3 0.0002\n";
  text += "1.25 -2 3 0.003\n";
  text += "1.5 2 3e1 0.004\n";
  dir.write("text.ply", text);
  CHECK_THAT(errorOf([&] { PlyReader r(dir / "text.ply"); }),
             Contains("text.ply:9:") && Contains("format binary_little_endian") && Contains("ASCII text") &&
                 Contains("'1.5 2 3 0.00001'") && Contains("format ascii 1.0"));
  // Binary data whose bytes happen to be partly printable is still read.
  Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty float x\nend_header\n";
  for (const float f : {1.0f, 2.0f, 3.0f, 4.0f}) b.put<float>(f);
  dir.write("bin.ply", b.data);
  PlyReader r(dir / "bin.ply");
  CHECK(readAll(r) == std::vector<double>{1.0, 2.0, 3.0, 4.0});
}

TEST_CASE("PLY: a UTF-8 byte order mark before 'ply' is skipped", "[ply]") {
  vt::TempDir dir("ply");
  dir.write("bom.ply", "\xEF\xBB\xBFply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n7\n");
  PlyReader r(dir / "bom.ply");
  CHECK(readAll(r) == std::vector<double>{7.0});
}

TEST_CASE("PLY ASCII body cut mid-number: an error naming the line, or a warning at an unterminated end", "[ply][errors]") {
  vt::TempDir dir("ply");
  const std::string head = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nend_header\n";
  auto errorFor = [&](const std::string& body) {
    dir.write("cut.ply", head + body);
    return errorOf([&] {
      PlyReader r(dir / "cut.ply");
      readAll(r);
    });
  };
  // Cut inside an exponent, or after the first value of a row.
  CHECK_THAT(errorFor("1 2\n3 4\n5 6e"), Contains("cut.ply:9:") && Contains("'6e'") && Contains("'y'"));
  CHECK_THAT(errorFor("1 2\n3 4\n5"), Contains("cut.ply:9:") && Contains("too few") && Contains("'y'"));
  CHECK_THAT(errorFor("1 2\n3 4\n5 -"), Contains("cut.ply:9:") && Contains("'-'"));
  // Cut inside the last digits of the last value: it still parses, so the unterminated line
  // is reported as a warning naming the file and line.
  std::vector<std::string> warnings;
  const voxen::LogSink previous = voxen::setLogSink([&](voxen::LogLevel level, const std::string& message) {
    if (level == voxen::LogLevel::Warning) warnings.push_back(message);
  });
  dir.write("cut.ply", head + "1 2\n3 4\n5 6.2");
  {
    PlyReader r(dir / "cut.ply");
    CHECK(readAll(r).size() == 6);
  }
  dir.write("whole.ply", head + "1 2\n3 4\n5 6.25\n");
  {
    PlyReader r(dir / "whole.ply");
    CHECK(readAll(r).size() == 6);
  }
  voxen::setLogSink(previous);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Contains("cut.ply:9:") && Contains("without a line end"));
}

TEST_CASE("PLY and trajectory inputs: a directory, a pipe or a path through a file is not 'no such file'", "[ply][trajectory][errors]") {
  vt::TempDir dir("ply");
  std::filesystem::create_directory(dir / "folder.ply");
  REQUIRE(::mkfifo((dir / "pipe.ply").c_str(), 0600) == 0);
  dir.write("file.ply", "ply\n");
  CHECK_THAT(errorOf([&] { PlyReader r(dir / "folder.ply"); }), Contains("folder.ply: is a directory"));
  CHECK_THAT(errorOf([&] { voxen::readPlyHeader(dir / "folder.ply"); }), Contains("folder.ply: is a directory"));
  CHECK_THAT(errorOf([&] { PlyReader r(dir / "pipe.ply"); }), Contains("pipe.ply: is a pipe"));
  CHECK_THAT(errorOf([&] { PlyReader r(dir / "file.ply" / "x.ply"); }), Contains("x.ply: cannot open the PLY file: Not a directory"));
  CHECK_THAT(errorOf([&] { voxen::Trajectory::load(dir / "folder.ply"); }), Contains("is a directory, not a trajectory file"));
  CHECK_THAT(errorOf([&] { voxen::Trajectory::load(dir / "pipe.ply"); }), Contains("is a pipe"));
}
