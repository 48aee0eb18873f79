// PCD files (one, or a folder read in name order) as a point input. Each file's VIEWPOINT is
// read one of two ways (PcdViewpoint): as an origin, the points taken in the frame they are
// stored in as a PLY cloud's, the sensor at VIEWPOINT's position; or as the sensor's pose,
// applied to the points. The origin is VIEWPOINT's position or, with a trajectory,
// interpolated at the per-point time. With no reading chosen, a VIEWPOINT that is not the
// identity is read as an origin with a warning naming both readings.
#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>
#include <glm/vec3.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "point_source.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/pcd.hpp"

namespace voxen::detail {

namespace {

constexpr std::array<const char*, 7> kPcdTimeFields = {"time", "timestamp", "t", "offset_time", "time_offset",
                                                       "gps_time", "internal_time"};
constexpr std::array<const char*, 4> kPcdIntensityFields = {"intensity", "reflectivity", "reflectance",
                                                            "scalar_intensity"};

struct PcdFile {
  std::filesystem::path path;
  PcdHeader header;
  std::vector<size_t> fields;  // x, y, z, [time], [intensity] as indices into header.fields
  // Read as a pose: every point p becomes rotation p + translation (VIEWPOINT's own values).
  std::optional<glm::dmat3> rotation;
  glm::dvec3 translation{0.0};
};

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  // The shortest of %.17g and a round trip through fewer digits.
  for (int digits = 1; digits < 17; ++digits) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return text;
}

std::string viewpointText(const PcdHeader& h) {
  std::string text;
  for (const double v : h.viewpoint) text += (text.empty() ? "" : " ") + number(v);
  return text;
}

// VIEWPOINT as the sensor's pose: its quaternion (qw qx qy qz) must be a rotation, up to the
// rounding of the digits a writer prints (squared length within 0.01 of 1, tf2's tolerance,
// as for trajectories); it is normalised.
glm::dmat3 viewpointRotation(const std::string& name, const PcdHeader& h) {
  const glm::dquat q(h.viewpoint[3], h.viewpoint[4], h.viewpoint[5], h.viewpoint[6]);
  const double squared = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
  const double length = std::sqrt(squared);
  if (!(std::abs(squared - 1.0) <= 0.01))
    throw Error(name + ":" + std::to_string(h.viewpointLine) + ": VIEWPOINT " + viewpointText(h) + ": its rotation (qw qx qy qz) has length " +
                number(length) + ", not 1: it is no rotation, so it cannot be read as the sensor's pose");
  return glm::mat3_cast(q / length);
}

struct PcdChunk {
  size_t file;
  uint64_t first, count;
};

std::string fieldList(const PcdHeader& h) {
  std::string s;
  for (const auto& f : h.fields) s += (s.empty() ? "" : ", ") + f.name + " (" + pcdTypeName(f) + ")";
  return s;
}

class PcdPointSource final : public PointSource {
 public:
  // `exclusion`: returns from the robot judged here, on the points as the sensor measured them
  // (read as poses without a trajectory); nullopt: the pipeline judges them.
  PcdPointSource(std::vector<PcdFile> files, RayRowLayout layout, size_t chunkPoints, std::optional<SensorExclusion> exclusion)
      : files_(std::move(files)), layout_(layout), exclusion_(std::move(exclusion)) {
    for (size_t i = 0; i < files_.size(); ++i) {
      const PcdHeader& h = files_[i].header;
      // Binary bodies are read in place, a chunk at a time; the others are decoded whole.
      const uint64_t step = h.data == PcdData::Binary ? std::max<uint64_t>(chunkPoints, 1) : std::max<uint64_t>(h.points, 1);
      for (uint64_t first = 0; first < h.points; first += step) chunks_.push_back({i, first, std::min(step, h.points - first)});
    }
    if (exclusion_) excluded_.resize(chunks_.size());
  }
  uint64_t chunks() const override { return chunks_.size(); }
  bool concurrent() const override { return true; }

  size_t read(uint64_t k, std::vector<double>& out) override {
    const PcdChunk& c = chunks_[k];
    const PcdFile& f = files_[c.file];
    thread_local std::vector<double> values;
    readPcdPoints(f.path, f.header, f.fields, c.first, c.count, values);
    const size_t in = f.fields.size(), ncol = layout_.columns;
    out.resize(size_t(c.count) * ncol);
    size_t kept = 0;
    if (exclusion_) excluded_[k] = {};  // this chunk's alone: no other thread reads chunk k
    for (uint64_t r = 0; r < c.count; ++r) {
      const double* v = values.data() + r * in;
      if (exclusion_) {
        const SensorExclusion::Verdict verdict = exclusion_->judge(glm::dvec3(v[0], v[1], v[2]));
        if (verdict != SensorExclusion::Verdict::Kept) {
          ++(verdict == SensorExclusion::Verdict::InBox ? excluded_[k].inBox : excluded_[k].nearSensor);
          continue;
        }
      }
      double* o = out.data() + kept++ * ncol;
      size_t i = 0, j = 0;
      if (f.rotation) {
        const glm::dvec3 p = *f.rotation * glm::dvec3(v[0], v[1], v[2]) + f.translation;
        o[j++] = p.x, o[j++] = p.y, o[j++] = p.z;
        i = 3;
      } else {
        o[j++] = v[i++], o[j++] = v[i++], o[j++] = v[i++];
      }
      if (layout_.hasTime) o[j++] = v[i++];
      if (layout_.hasOrigin)
        for (int a = 0; a < 3; ++a) o[j++] = f.header.viewpoint[size_t(a)];
      if (layout_.hasIntensity) o[j++] = v[i++];
    }
    out.resize(kept * ncol);
    return kept;
  }

  size_t finish(uint64_t k, std::vector<double>&, size_t count, SourceSkips& skips) override {
    if (exclusion_) skips.inBox = excluded_[k].inBox, skips.nearSensor = excluded_[k].nearSensor;
    return count;
  }

 private:
  std::vector<PcdFile> files_;
  RayRowLayout layout_;
  std::vector<PcdChunk> chunks_;
  std::optional<SensorExclusion> exclusion_;
  std::vector<SourceSkips> excluded_;  // per chunk: what read() dropped, reported by finish()
};

std::vector<std::filesystem::path> pcdFiles(const std::filesystem::path& path) {
  if (!std::filesystem::is_directory(path)) return {path};
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(path)) {
    std::string ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if (e.is_regular_file() && ext == ".pcd") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// With no reading chosen, files whose VIEWPOINT is not the identity are read as origins: the
// user is told that the other reading exists, and how to choose.
void warnOfTwoReadings(const std::vector<PcdFile>& files, bool trajectory, std::vector<SettingWarning>& warnings) {
  const PcdFile* first = nullptr;
  size_t count = 0;
  for (const PcdFile& f : files) {
    if (f.header.viewpointIsIdentity()) continue;
    if (!first) first = &f;
    ++count;
  }
  if (!first) return;
  const PcdHeader& h = first->header;
  const std::string position = number(h.viewpoint[0]) + " " + number(h.viewpoint[1]) + " " + number(h.viewpoint[2]);
  std::string text = first->path.string() + ":" + std::to_string(h.viewpointLine) + ": VIEWPOINT " + viewpointText(h) +
                     " is not the identity, and PCD files are written two ways: read as origin (taken now: the points "
                     "are already in the cloud's frame" +
                     (trajectory ? std::string(" and VIEWPOINT is not used") : ", recorded from " + position) +
                     ", as PCL's reader and pcl_ros take it) or as pose (the points are in the sensor's frame and this "
                     "pose moves them, as PCLVisualizer and CloudCompare take it); set {} to origin or pose to choose";
  if (files.size() > 1)
    text += " (" + std::to_string(count) + " of " + std::to_string(files.size()) + " files have such a VIEWPOINT)";
  warnings.push_back({.field = "RayReaderOptions::pcdViewpoint", .words = "the PCD viewpoint reading", .text = text});
}

}  // namespace

PointInput openPcdInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                        const PointInputOptions& options) {
  PointInput input;
  input.format = "PCD";
  const PcdViewpoint reading = options.pcdViewpoint.value_or(PcdViewpoint::Origin);
  std::vector<PcdFile> files;
  for (auto& p : pcdFiles(path)) files.push_back({p, readPcdHeader(p), {}});
  const PcdHeader& first = files.front().header;
  const std::string firstName = files.front().path.string();
  auto pick = [&](auto names) -> std::string {
    for (const char* n : names)
      if (const PcdField* f = first.find(n); f && f->count == 1) return n;
    return {};
  };
  std::vector<std::string> wanted;
  for (const char* n : {"x", "y", "z"}) {
    if (!first.find(n)) throw Error(firstName + ": the PCD has no field " + std::string(n) + " (it has: " + fieldList(first) + ")");
    wanted.push_back(n);
  }
  input.timeField = pick(kPcdTimeFields);
  input.intensityField = pick(kPcdIntensityFields);
  if (trajectory && input.timeField.empty()) {
    std::string names;
    for (const char* n : kPcdTimeFields) names += (names.empty() ? "" : ", ") + std::string(n);
    throw Error(firstName + ": the PCD has no per-point time field, which the trajectory " + trajectory->string() +
                " needs (expected one of: " + names + "; it has: " + fieldList(first) + ")");
  }
  // Without a trajectory a point's time only dates its ray (touch times): read it when there.
  if (!input.timeField.empty()) wanted.push_back(input.timeField);
  if (!input.intensityField.empty()) wanted.push_back(input.intensityField);
  for (auto& f : files) {
    for (const std::string& n : wanted) {
      const auto it = std::find_if(f.header.fields.begin(), f.header.fields.end(), [&](const PcdField& x) { return x.name == n; });
      if (it == f.header.fields.end())
        throw Error(f.path.string() + ": the PCD has no field " + n + ", which " + firstName + " has (it has: " +
                    fieldList(f.header) + ")");
      if (it->count != 1)
        throw Error(f.path.string() + ": field " + n + " has COUNT " + std::to_string(it->count) + " (expected 1)");
      f.fields.push_back(size_t(it - f.header.fields.begin()));
    }
    if (!trajectory && !f.header.hasViewpoint)
      throw Error(f.path.string() + ": the PCD has no VIEWPOINT line, so where the sensor was is unknown: give a "
                                    "trajectory (with a per-point time field)");
    if (reading == PcdViewpoint::Pose && !f.header.viewpointIsIdentity()) {
      f.rotation = viewpointRotation(f.path.string(), f.header);
      f.translation = glm::dvec3(f.header.viewpoint[0], f.header.viewpoint[1], f.header.viewpoint[2]);
    }
    input.points += f.header.points;
  }
  if (!options.pcdViewpoint) warnOfTwoReadings(files, bool(trajectory), input.settingWarnings);
  const bool hasOrigin = !trajectory;
  if (hasOrigin) input.originFields = reading == PcdViewpoint::Pose ? "VIEWPOINT (the sensor's pose, applied to the points)" : "VIEWPOINT";
  else if (reading == PcdViewpoint::Pose) input.notes.push_back("the points moved by each file's VIEWPOINT (the sensor's pose)");
  const size_t columns = 3 + (input.timeField.empty() ? 0 : 1) + (hasOrigin ? 3 : 0) + (input.intensityField.empty() ? 0 : 1);
  input.layout = {.columns = columns,
                  .hasTime = !input.timeField.empty(),
                  .hasOrigin = hasOrigin,
                  .hasIntensity = !input.intensityField.empty()};
  // Read as poses, the stored points are as the sensor measured them, around VIEWPOINT's
  // position with its axes: returns from the robot are judged on them here (the box turns with
  // the sensor). Otherwise (points in the cloud's frame) the pipeline judges them around each
  // ray's origin.
  std::optional<SensorExclusion> exclusion;
  if (reading == PcdViewpoint::Pose && !trajectory && options.exclusion.active()) {
    exclusion = options.exclusion;
    input.excludesItself = true;
  }
  input.source = std::make_unique<PcdPointSource>(std::move(files), input.layout, options.chunkPoints, std::move(exclusion));
  return input;
}

}  // namespace voxen::detail
