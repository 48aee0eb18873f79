#include "voxen/input/recording_info.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cmath>
#include <limits>

#include "point_source.hpp"
#include "depth/depth_inspect.hpp"
#include "recording/recording.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/input/kitti.hpp"
#include "voxen/input/pcd.hpp"
#include "voxen/input/ply.hpp"

namespace voxen {

namespace {

struct Span {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double t) {
    if (!std::isfinite(t)) return;
    lo = std::min(lo, t), hi = std::max(hi, t);
  }
  std::optional<std::pair<double, double>> result() const {
    return lo <= hi ? std::optional(std::pair(lo, hi)) : std::nullopt;
  }
};

// VIEWPOINT values as written, in their shortest exact form (not %g's 6 digits).
std::string number(double v) { return formatNumber(v); }

void inspectPly(const std::filesystem::path& path, RecordingInfo& info) {
  PlyReader ply(path);
  const PlyHeader& h = ply.header();
  info.layout = h.format == PlyFormat::Ascii ? "ascii" : h.format == PlyFormat::BinaryLittleEndian ? "binary_little_endian"
                                                                                                   : "binary_big_endian";
  info.points = ply.count();
  for (const auto& p : ply.element().properties)
    info.fields.push_back({p.name, p.isList ? std::string("list of ") + plyTypeName(p.type) : plyTypeName(p.type)});
  // Without a time field the x column is read: the whole body is checked either way.
  ply.selectColumns(std::vector<std::string>{info.timeField.empty() ? std::string("x") : info.timeField});
  Span span;
  std::vector<double> rows;
  while (true) {
    rows.clear();
    if (ply.read(rows, 1 << 16) == 0) break;
    if (!info.timeField.empty())
      for (const double t : rows) span.add(t);
  }
  info.times = span.result();
}

void inspectPcd(const std::filesystem::path& path, RecordingInfo& info) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path)) {
    for (const auto& e : std::filesystem::directory_iterator(path)) {
      std::string ext = e.path().extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
      if (e.is_regular_file() && ext == ".pcd") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  Span span;
  std::vector<double> values;
  std::string bodies;
  for (const auto& file : files) {
    const PcdHeader h = readPcdHeader(file);
    info.points += h.points;
    if (bodies.find(pcdDataName(h.data)) == std::string::npos) bodies += (bodies.empty() ? "" : " and ") + std::string(pcdDataName(h.data));
    if (&file == &files.front()) {
      for (const auto& f : h.fields)
        info.fields.push_back({f.name, pcdTypeName(f) + (f.count > 1 ? " x " + std::to_string(f.count) : "")});
      std::string vp;
      for (const double v : h.viewpoint) vp += (vp.empty() ? "" : " ") + number(v);
      info.notes.push_back(h.hasViewpoint ? "VIEWPOINT " + vp + " (first file)" : "no VIEWPOINT (first file)");
    }
    // The time column, or x without one: every file's body is checked either way.
    const PcdField* time = info.timeField.empty() ? nullptr : h.find(info.timeField);
    if (const PcdField* f = time ? time : h.find("x")) {
      const size_t index = size_t(f - h.fields.data());
      readPcdPoints(file, h, std::span(&index, 1), 0, h.points, values);
      if (time)
        for (const double t : values) span.add(t);
    }
  }
  info.layout = countText(files.size(), "file") + ", " + bodies;
  info.times = span.result();
}

void inspectKitti(const std::filesystem::path& path, RecordingInfo& info) {
  info.fields = {{"x", "float32"}, {"y", "float32"}, {"z", "float32"}, {"reflectance", "float32"}};
  if (info.format == InputFormat::KittiScan) {
    info.layout = "1 scan";
    info.points = std::filesystem::file_size(path) / 16;
    return;
  }
  const KittiSequence s = loadKittiSequence(path);
  info.layout = countText(s.scans.size(), "scan");
  info.points = s.points;
  Span span;
  for (const double t : s.times) span.add(t);
  info.times = span.result();
  info.notes.push_back("poses " + s.posesFile.string() + ", calibration " + s.calibFile.string() +
                       (s.timesFile.empty() ? ", no times.txt (scans 0.1 s apart)" : ", times " + s.timesFile.string()));
}

}  // namespace

RecordingInfo inspectRecording(const std::filesystem::path& path, std::optional<PcdViewpoint> pcdViewpoint) {
  RecordingInfo info;
  info.format = detectInputFormat(path);
  detail::checkPcdViewpointApplies(path, info.format, pcdViewpoint);
  if (info.format == InputFormat::RosBag || info.format == InputFormat::Mcap) {
    detail::inspectRosRecording(path, info);
    return info;
  }
  if (info.format == InputFormat::TumRgbd) {
    detail::inspectTumFolder(path, info);
    return info;
  }
  // The fields voxen map picks, as the readers pick them.
  try {
    const detail::PointInput input = detail::openPointInput(path, std::nullopt, {.pcdViewpoint = pcdViewpoint});
    info.timeField = input.timeField;
    info.intensityField = input.intensityField;
    info.origins = input.originFields;
    info.warnings = input.settingWarnings;
  } catch (const Error& e) {
    info.withoutTrajectory = e.what();
  }
  if (info.timeField.empty() && info.format != InputFormat::KittiScan && info.format != InputFormat::KittiSequence) {
    // Not mappable without a trajectory: which time field one would use.
    try {
      const detail::PointInput input =
          detail::openPointInput(path, std::filesystem::path("a trajectory"), {.pcdViewpoint = pcdViewpoint});
      info.timeField = input.timeField;
      info.intensityField = input.intensityField;
      if (info.warnings.empty()) info.warnings = input.settingWarnings;
    } catch (const Error&) {
    }
  }
  switch (info.format) {
    case InputFormat::Ply: inspectPly(path, info); break;
    case InputFormat::Pcd:
    case InputFormat::PcdFolder: inspectPcd(path, info); break;
    default: inspectKitti(path, info); break;
  }
  return info;
}

}  // namespace voxen
