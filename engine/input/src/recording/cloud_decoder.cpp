#include "voxen/input/cloud_decoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "voxen/host/error.hpp"
#include "voxen/input/trajectory.hpp"

namespace voxen::ros {

namespace {

constexpr const char* kTimeNames[] = {"time", "t", "timestamp", "offset_time", "time_offset"};
constexpr double kHour = 3600.0;
// Points decoded column by column in blocks this long: a block's point data (48 KiB at a
// 48-byte point_step) stays in cache while each of its columns is read.
constexpr size_t kBlock = 1024;

enum class Op { Copy, Scale, Offset };

// One field's values for n points `stride` bytes apart, into every ncol-th double. The
// datatype and the operation are fixed per call, so the loop has no branch per point.
template <typename T, Op op>
void column(const uint8_t* src, size_t stride, size_t n, double* out, size_t ncol, double scale, double add) {
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, src + i * stride, sizeof(T));
    double d = double(v);
    if constexpr (op == Op::Scale) d = d * scale;
    if constexpr (op == Op::Offset) d = add + d * scale;
    out[i * ncol] = d;
  }
}

template <Op op>
void columnOf(uint8_t datatype, const uint8_t* src, size_t stride, size_t n, double* out, size_t ncol, double scale,
              double add) {
  switch (PointFieldType(datatype)) {
    case PointFieldType::Int8: column<int8_t, op>(src, stride, n, out, ncol, scale, add); break;
    case PointFieldType::Uint8: column<uint8_t, op>(src, stride, n, out, ncol, scale, add); break;
    case PointFieldType::Int16: column<int16_t, op>(src, stride, n, out, ncol, scale, add); break;
    case PointFieldType::Uint16: column<uint16_t, op>(src, stride, n, out, ncol, scale, add); break;
    case PointFieldType::Int32: column<int32_t, op>(src, stride, n, out, ncol, scale, add); break;
    case PointFieldType::Uint32: column<uint32_t, op>(src, stride, n, out, ncol, scale, add); break;
    case PointFieldType::Float32: column<float, op>(src, stride, n, out, ncol, scale, add); break;
    case PointFieldType::Float64: column<double, op>(src, stride, n, out, ncol, scale, add); break;
  }
}

std::string format(const char* fmt, double v) {
  char s[64];
  std::snprintf(s, sizeof s, fmt, v);
  return s;
}

// "0 to 99.9 ms" or "-2 to 3.5 s".
std::string span(double lo, double hi) {
  if (std::max(std::abs(lo), std::abs(hi)) < 1.0) return format("%.4g", lo * 1e3) + " to " + format("%.4g", hi * 1e3) + " ms";
  return format("%.6g", lo) + " to " + format("%.6g", hi) + " s";
}

std::string label(const CloudField& f) { return "'" + f.name + "' (" + pointFieldTypeName(f.datatype) + ")"; }

const PointField* findField(const PointCloud2& cloud, std::string_view name) {
  for (const PointField& f : cloud.fields)
    if (f.name == name) return &f;
  return nullptr;
}

CloudField cloudField(const PointField& f) { return {f.offset, f.datatype, f.name}; }

void checkInsidePoint(const CloudField& f, const PointCloud2& cloud, const std::string& where) {
  const size_t size = pointFieldTypeSize(f.datatype);
  if (size == 0) throw Error(where + ": field " + label(f) + " has an unknown datatype (expected 1 to 8)");
  if (uint64_t(f.offset) + size > cloud.pointStep)
    throw Error(where + ": field " + label(f) + " at offset " + std::to_string(f.offset) + " ends past point_step " +
                std::to_string(cloud.pointStep));
}

CloudField coordinate(const PointCloud2& cloud, const char* name, const std::string& where) {
  const PointField* f = findField(cloud, name);
  if (!f) throw Error(where + ": the cloud has no field '" + name + "' (x, y and z are needed)");
  const CloudField c = cloudField(*f);
  if (f->datatype != uint8_t(PointFieldType::Float32) && f->datatype != uint8_t(PointFieldType::Float64))
    throw Error(where + ": field " + label(c) + " must be float32 or float64");
  checkInsidePoint(c, cloud, where);
  return c;
}

void refuseBigEndian(const PointCloud2& cloud, const std::string& where) {
  if (cloud.isBigEndian) throw Error(where + ": the cloud is big-endian (is_bigendian); only little-endian clouds are read");
}

// The bytes of the point at (row, column) + `end` must lie inside data.
void checkDataSize(const PointCloud2& cloud, uint32_t end, const std::string& where) {
  if (cloud.width == 0 || cloud.height == 0) return;
  const uint64_t needed = uint64_t(cloud.height - 1) * cloud.rowStep + uint64_t(cloud.width - 1) * cloud.pointStep + end;
  if (cloud.data.size() < needed)
    throw Error(where + ": data holds " + std::to_string(cloud.data.size()) + " bytes, too few for " +
                std::to_string(cloud.height) + " rows of " + std::to_string(cloud.width) + " points (row_step " +
                std::to_string(cloud.rowStep) + ", point_step " + std::to_string(cloud.pointStep) + ", needs " +
                std::to_string(needed) + ")");
}

uint32_t fieldEnd(const CloudField& f) { return f.offset + uint32_t(pointFieldTypeSize(f.datatype)); }

uint32_t layoutEnd(const CloudLayout& l) {
  uint32_t end = std::max({fieldEnd(l.x), fieldEnd(l.y), fieldEnd(l.z)});
  if (l.hasTime) end = std::max(end, fieldEnd(l.time));
  if (l.hasIntensity) end = std::max(end, fieldEnd(l.intensity));
  return end;
}

// Calls f(src, n, out) for every run of at most kBlock points of one row: src the first
// point's bytes, out its first output row.
template <typename F>
void forEachBlock(const PointCloud2& cloud, double* out, size_t ncol, F&& f) {
  for (uint32_t r = 0; r < cloud.height; ++r) {
    const uint8_t* row = cloud.data.data() + size_t(r) * cloud.rowStep;
    for (size_t c = 0; c < cloud.width; c += kBlock) {
      const size_t n = std::min<size_t>(kBlock, cloud.width - c);
      f(row + c * cloud.pointStep, n, out + (size_t(r) * cloud.width + c) * ncol);
    }
  }
}

void decodeInto(const PointCloud2& cloud, const CloudLayout& l, double* out) {
  const size_t ncol = cloudRowColumns(l), stride = cloud.pointStep;
  const double stamp = stampSeconds(cloud.stampNs);
  forEachBlock(cloud, out, ncol, [&](const uint8_t* src, size_t n, double* dst) {
    columnOf<Op::Copy>(l.x.datatype, src + l.x.offset, stride, n, dst + 0, ncol, 1.0, 0.0);
    columnOf<Op::Copy>(l.y.datatype, src + l.y.offset, stride, n, dst + 1, ncol, 1.0, 0.0);
    columnOf<Op::Copy>(l.z.datatype, src + l.z.offset, stride, n, dst + 2, ncol, 1.0, 0.0);
    if (!l.hasTime) {
      for (size_t i = 0; i < n; ++i) dst[i * ncol + 3] = stamp;
    } else if (l.timeReference == PointTimeReference::RelativeToStamp) {
      columnOf<Op::Offset>(l.time.datatype, src + l.time.offset, stride, n, dst + 3, ncol, l.timeScale, stamp);
    } else {
      columnOf<Op::Scale>(l.time.datatype, src + l.time.offset, stride, n, dst + 3, ncol, l.timeScale, 0.0);
    }
    if (l.hasIntensity)
      columnOf<Op::Copy>(l.intensity.datatype, src + l.intensity.offset, stride, n, dst + 4, ncol, 1.0, 0.0);
  });
}

// The finite time values of a cloud (in seconds, as the field holds them) and their range.
struct TimeRange {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  bool empty() const { return lo > hi; }
  double middle() const { return 0.5 * (lo + hi); }
};

TimeRange timeRange(const PointCloud2& cloud, const CloudLayout& l) {
  std::vector<double> values(size_t(cloud.width) * cloud.height);
  forEachBlock(cloud, values.data(), 1, [&](const uint8_t* src, size_t n, double* dst) {
    columnOf<Op::Scale>(l.time.datatype, src + l.time.offset, cloud.pointStep, n, dst, 1, l.timeScale, 0.0);
  });
  TimeRange r;
  for (const double v : values)
    if (std::isfinite(v)) r.lo = std::min(r.lo, v), r.hi = std::max(r.hi, v);
  return r;
}

// Tells the time field's unit and reference from the first cloud, and the second where
// both readings fit (see cloud_decoder.hpp).
void chooseTime(const PointCloud2& first, const PointCloud2* second, CloudLayout& l, const std::string& where) {
  const bool isFloat =
      l.time.datatype == uint8_t(PointFieldType::Float32) || l.time.datatype == uint8_t(PointFieldType::Float64);
  l.timeScale = isFloat ? 1.0 : 1e-9;
  const TimeRange r = timeRange(first, l);
  const double lo = r.lo, hi = r.hi;
  const std::string what = "'" + l.time.name + "' " + pointFieldTypeName(l.time.datatype);
  if (r.empty())
    throw Error(where + ": the first cloud has no point with a finite " + what +
                ", so whether it is an offset from header.stamp or an absolute time cannot be told");
  const double stamp = stampSeconds(first.stampNs);
  const bool relative = std::max(std::abs(lo), std::abs(hi)) < kHour;
  const bool absolute = std::abs(lo - stamp) <= kHour && std::abs(hi - stamp) <= kHour;
  if (!relative && !absolute)
    throw Error(where + ": cannot tell what field " + what + " holds: read as " + (isFloat ? "seconds" : "nanoseconds") +
                " its values run from " + formatTime(lo) + " to " + formatTime(hi) +
                " s in the first cloud, neither offsets under an hour nor times within an hour of header.stamp (" +
                formatTime(stamp) + " s)");
  bool chooseRelative = relative;
  std::string how;
  if (relative && absolute) {
    // Both fit: did the values move with the stamp from one cloud to the next?
    const TimeRange r2 = second ? timeRange(*second, l) : TimeRange{};
    const double moved = r2.empty() ? 0.0 : r2.middle() - r.middle();
    const double stamps = second ? stampSeconds(second->stampNs) - stamp : 0.0;
    if (stamps != 0.0 && !r2.empty()) {
      chooseRelative = std::abs(moved - stamps) > std::abs(moved);
      how = chooseRelative ? "; they stay put from cloud to cloud while the stamps move"
                           : "; they move with the stamps from cloud to cloud";
    } else {
      chooseRelative = std::abs(r.middle()) <= std::abs(r.middle() - stamp);
      how = "; the nearer of two readings that both fit, with no later cloud to tell them apart";
    }
  }
  const std::string unit = isFloat ? "seconds" : "nanoseconds";
  const double olo = chooseRelative ? lo : lo - stamp, ohi = chooseRelative ? hi : hi - stamp;
  const double pad = std::max(1.0, 10.0 * (ohi - olo));
  l.offsetMin = olo - pad;
  l.offsetMax = ohi + pad;
  l.firstOffsetMax = ohi;
  if (chooseRelative) {
    l.timeReference = PointTimeReference::RelativeToStamp;
    l.timeReport = what + ", " + unit + " after header.stamp (" + span(lo, hi) + " in the first cloud" + how + ")";
  } else {
    l.timeReference = PointTimeReference::Absolute;
    l.timeReport = what + ", absolute " + unit + " (" + span(lo - stamp, hi - stamp) +
                   " after header.stamp in the first cloud" + how + ")";
  }
}

}  // namespace


CloudLayout chooseCloudLayout(const PointCloud2& first, const std::string& where, const PointCloud2* second) {
  refuseBigEndian(first, where);
  CloudLayout l;
  l.x = coordinate(first, "x", where);
  l.y = coordinate(first, "y", where);
  l.z = coordinate(first, "z", where);
  for (const char* name : kTimeNames) {
    if (const PointField* f = findField(first, name)) {
      l.hasTime = true;
      l.time = cloudField(*f);
      checkInsidePoint(l.time, first, where);
      break;
    }
  }
  for (const char* name : {"intensity", "reflectivity"}) {
    if (const PointField* f = findField(first, name)) {
      l.hasIntensity = true;
      l.intensity = cloudField(*f);
      checkInsidePoint(l.intensity, first, where);
      break;
    }
  }
  checkDataSize(first, layoutEnd(l), where);
  if (l.hasTime) chooseTime(first, second, l, where);
  return l;
}

size_t decodeCloudRows(const PointCloud2& cloud, const CloudLayout& layout, const std::string& where,
                       std::vector<double>& out) {
  refuseBigEndian(cloud, where);
  std::vector<const CloudField*> used = {&layout.x, &layout.y, &layout.z};
  if (layout.hasTime) used.push_back(&layout.time);
  if (layout.hasIntensity) used.push_back(&layout.intensity);
  for (const CloudField* want : used) {
    const PointField* f = findField(cloud, want->name);
    if (!f)
      throw Error(where + ": the cloud has no field '" + want->name + "', which the topic's first cloud had");
    if (f->offset != want->offset || f->datatype != want->datatype)
      throw Error(where + ": field '" + want->name + "' is " + pointFieldTypeName(f->datatype) + " at offset " +
                  std::to_string(f->offset) + ", but " + pointFieldTypeName(want->datatype) + " at offset " +
                  std::to_string(want->offset) + " in the topic's first cloud");
    checkInsidePoint(*want, cloud, where);
  }
  checkDataSize(cloud, layoutEnd(layout), where);
  const size_t points = size_t(cloud.width) * cloud.height;
  const size_t at = out.size();
  out.resize(at + points * cloudRowColumns(layout));
  decodeInto(cloud, layout, out.data() + at);
  if (layout.hasTime) {
    // The reference chosen from the first cloud must hold for this one: a time far from the
    // cloud's own stamp means offsets read as absolute times or the other way round.
    const double stamp = stampSeconds(cloud.stampNs);
    const size_t ncol = cloudRowColumns(layout);
    for (size_t i = 0; i < points; ++i) {
      const double t = out[at + i * ncol + 3];
      const double offset = t - stamp;
      if (offset < layout.offsetMin || offset > layout.offsetMax)  // false for NaN: those points are skipped later
        throw Error(where + ": point " + std::to_string(i) + "'s time from field '" + layout.time.name + "' is " +
                    formatTime(offset) + " s from header.stamp, outside the " + formatTime(layout.offsetMin) + " to " +
                    formatTime(layout.offsetMax) + " s the topic's first cloud allows (" + layout.timeReport +
                    "): the field does not hold what the first cloud showed");
    }
  }
  return points;
}

}  // namespace voxen::ros
