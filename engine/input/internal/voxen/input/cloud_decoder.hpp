#pragma once
// sensor_msgs/PointCloud2 points as rows for the ray pipeline: which fields give x y z, the
// per-point time and the intensity, chosen once from a topic's first cloud, then each cloud
// decoded with them (checked to have the same fields).
//
// Time: the first present of `time`, `t`, `timestamp`, `offset_time`, `time_offset`. Its unit
// and reference are told by the datatype and the values of the first cloud, and reported:
//   float32/float64: seconds; integer types: nanoseconds;
//   relative to header.stamp (an offset, e.g. 0 .. 0.1 s) when the values are small next to
//   the stamp; absolute when they lie within an hour of the stamp.
//   Anything else (a float time near 1e18, an integer time that is neither) is an Error
//   naming the field, its type and the range found.
//   When both readings fit (a stamp under two hours, e.g. simulated time from 0), a second
//   cloud decides: absolute when the values moved with the stamps, offsets when they did not;
//   without a second cloud (or with stamps that did not move), the nearer reading: offsets
//   when the values' middle is at least as close to 0 as to the stamp. The first cloud must
//   hold a point with a finite time.
//   Every later cloud is checked against that choice: its points' times less its stamp must
//   lie in the first cloud's range of them, widened by 10 times its width (at least 1 s) on
//   each side; otherwise an Error naming the cloud, never a pose at a wrong time.
// Intensity: `intensity`, else `reflectivity`; any datatype.
// x y z: float32 or float64 each; anything else is an Error naming the field and its type.
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/input/ros_messages.hpp"

namespace voxen::ros {

enum class PointTimeReference { None, RelativeToStamp, Absolute };

struct CloudField {
  uint32_t offset = 0;
  uint8_t datatype = 0;
  std::string name;
};

struct CloudLayout {
  CloudField x, y, z;
  bool hasTime = false;
  CloudField time;
  PointTimeReference timeReference = PointTimeReference::None;
  double timeScale = 1.0;   // to seconds: 1 or 1e-9
  std::string timeReport;   // e.g. "'t' uint32, nanoseconds after header.stamp (0 to 99.9 ms in the first cloud)"
  // Seconds a point's time may lie from its cloud's stamp, from the first cloud (above).
  double offsetMin = 0.0, offsetMax = 0.0;
  // The latest a point of the first cloud lay after its stamp (seconds): how long a stream's
  // reader waits for tf past a cloud's stamp before it poses the cloud.
  double firstOffsetMax = 0.0;
  bool hasIntensity = false;
  CloudField intensity;
};

// Chooses from a topic's first cloud; throws Error beginning with `where`: a big-endian cloud
// (is_bigendian), no x, y or z field, a coordinate that is not float32/float64, a field that
// ends past point_step, a time that cannot be told (above).
// `second` (optional): the topic's next cloud with points, for telling offsets from absolute
// times near a clock's 0.
CloudLayout chooseCloudLayout(const PointCloud2& first, const std::string& where, const PointCloud2* second = nullptr);

// Appends one row per point (row-major over height x width, organised or not) to `out`:
// x, y, z, time in seconds (absolute: the stamp plus the offset, or the field itself; the
// stamp when the layout has no time), then intensity when the layout has one. Exactly, with v
// the field's value converted to double: relative  stampSeconds(stamp) + v * timeScale;
// absolute  v * timeScale; no time  stampSeconds(stamp) (timeScale is 1.0 or 1e-9). Coordinates
// are exactly the field's value converted to double. NaN points are kept (the pipeline
// skips and counts them). Throws Error beginning with `where` when the cloud's fields differ
// from the layout's (name, offset or datatype), when it is big-endian, or when its data is
// short. Returns the points appended.
size_t decodeCloudRows(const PointCloud2& cloud, const CloudLayout& layout, const std::string& where,
                       std::vector<double>& out);

// header.stamp in seconds: stampSeconds() of ros_messages.hpp, as every reader converts stamps.

// Columns decodeCloudRows writes per point: 4, or 5 with intensity.
inline size_t cloudRowColumns(const CloudLayout& layout) { return layout.hasIntensity ? 5 : 4; }

}  // namespace voxen::ros
