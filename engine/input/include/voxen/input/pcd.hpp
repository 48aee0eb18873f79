#pragma once
// PCD (the Point Cloud Library's format, v0.5 to v0.7): the header, and a writer for tests
// and conversions. Bodies: ascii (one point a line), binary (rows of packed fields) and
// binary_compressed (LZF over the fields laid out one after the other, through liblzf).
// Values are little-endian, as PCL writes them on every machine it runs on.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace voxen {

enum class PcdData { Ascii, Binary, BinaryCompressed };

// How a PCD file's VIEWPOINT (tx ty tz qw qx qy qz) is read. Files are written both ways, and
// the two readings give other points whenever it is not the identity.
enum class PcdViewpoint {
  // The points are already in the cloud's frame; VIEWPOINT's position is where they were
  // recorded from (the sensor origin of every ray), its rotation unused. PCL's reader and
  // pcl_ros take it so; Voxen's default.
  Origin,
  // The points are in the sensor's frame; VIEWPOINT is the sensor's pose in the cloud's frame,
  // applied to every point (rotation, then translation), its position the rays' origin.
  // PCLVisualizer, CloudCompare's exports and perception_pcl #441/#442 take it so.
  Pose,
};
const char* pcdViewpointName(PcdViewpoint reading);  // "origin", "pose"
std::optional<PcdViewpoint> parsePcdViewpoint(std::string_view name);

struct PcdField {
  std::string name;
  char type = 'F';  // 'F' float, 'I' signed, 'U' unsigned
  int size = 4;     // bytes per value: 1, 2, 4 or 8 (F: 4 or 8)
  int count = 1;    // values per point
  size_t offset = 0;  // of its first value in a binary row
};

// The limits a header is held to, so that a crafted one is refused by name before anything is
// allocated for it: WIDTH, HEIGHT and POINTS at most 2^40 points each, a point's fields (SIZE
// x COUNT summed) at most 1 MiB. Every size is read as a full 64-bit number (a value past
// the field's range is refused, never cut to fit) and every product is checked for overflow.
// A binary body must hold exactly POINTS rows, and a binary_compressed body must be able to
// expand to them (LZF expands at most 132 times); an ascii body is checked line by line.
inline constexpr uint64_t kPcdMaxPoints = uint64_t(1) << 40;
inline constexpr uint64_t kPcdMaxRowBytes = uint64_t(1) << 20;

struct PcdHeader {
  std::string version;
  std::vector<PcdField> fields;
  uint64_t width = 0, height = 1, points = 0;
  // tx ty tz qw qx qy qz, as the file has it. PCL's reader takes it as where the points were
  // recorded from, the points already in the cloud's frame; PCLVisualizer and CloudCompare as
  // the sensor's pose, applied to points in the sensor's frame (see PcdViewpoint).
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};
  bool hasViewpoint = false;
  uint64_t viewpointLine = 0;  // the VIEWPOINT line's number, 0 without one
  PcdData data = PcdData::Ascii;
  uint64_t bodyOffset = 0;  // the byte after the DATA line
  size_t rowBytes = 0;      // a binary row: the fields' size x count summed
  uint64_t headerLines = 0; // lines up to and including DATA (ascii points start after it)

  const PcdField* find(std::string_view name) const;
  // VIEWPOINT 0 0 0 1 0 0 0 (or none): both readings of it give the same points.
  bool viewpointIsIdentity() const;
};

const char* pcdDataName(PcdData data);
// A field's type as the header spells it, e.g. "F4" (float32) or "U2".
std::string pcdTypeName(const PcdField& field);

// Throws Error naming the file and the line of a bad header line, or the field.
PcdHeader readPcdHeader(const std::filesystem::path& path);

// Reads every point's values of `fields` (first value of each; names that must exist in the
// header) as doubles, row-major, into `out`; points [first, first + count) only, or all when
// count is nullopt (ascii and compressed bodies are read whole in any case). Throws Error
// naming the file and the line (ascii), the byte counts (binary) or the decompression.
void readPcdPoints(const std::filesystem::path& path, const PcdHeader& header, std::span<const size_t> fields,
                   uint64_t first, uint64_t count, std::vector<double>& out);

struct PcdColumn {
  std::string name;
  char type = 'F';
  int size = 4;
};

// Writes `rows` (row-major, columns.size() values each) as a PCD of WIDTH points and HEIGHT
// 1, through a temporary file renamed over the target.
void writePcd(const std::filesystem::path& path, std::span<const PcdColumn> columns, std::span<const double> rows,
              PcdData data, std::optional<std::array<double, 7>> viewpoint = std::nullopt);

}  // namespace voxen
