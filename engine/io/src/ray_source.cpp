#include "voxen/io/ray_source.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "voxen/host/error.hpp"
#include "voxen/host/thread_cpu_clock.hpp"

namespace voxen {

namespace {

constexpr size_t kChunkRows = 65536;

std::string formatTime(double t) {
  std::ostringstream s;
  s.precision(15);
  s << t;
  return s.str();
}

// Clouds and trajectories from different tools disagree on the time unit (lidar drivers
// stamp points in nanoseconds, SLAM tools write poses in seconds): each factor the cloud's
// times may need, with what it would mean.
struct TimeUnitGuess {
  double factor;
  const char* meaning;
};
constexpr TimeUnitGuess kTimeUnitGuesses[] = {
    {1e-9, "the cloud's times look like nanoseconds and the trajectory's like seconds"},
    {1e-6, "the cloud's times look like microseconds and the trajectory's like seconds"},
    {1e-3, "the cloud's times look like milliseconds and the trajectory's like seconds"},
    {1e3, "the cloud's times look like seconds and the trajectory's like milliseconds"},
    {1e6, "the cloud's times look like seconds and the trajectory's like microseconds"},
    {1e9, "the cloud's times look like seconds and the trajectory's like nanoseconds"},
};

// The guess under which every point time [lo, hi] falls inside the span [start, end], or
// null. The span is widened by 1% of its length so that rounding in either file does not
// hide the answer.
const TimeUnitGuess* timeUnitGuess(double lo, double hi, double start, double end) {
  const double slack = 0.01 * (end - start);
  for (const auto& guess : kTimeUnitGuesses) {
    const double a = lo * guess.factor, b = hi * guess.factor;
    if (a >= start - slack && b <= end + slack) return &guess;
  }
  return nullptr;
}

}  // namespace

struct RayReader::Impl {
  std::filesystem::path path;
  std::string name;
  std::optional<PlyReader> ply;
  std::optional<Trajectory> trajectory;
  std::string trajectoryName;
  std::string timeField;
  std::array<std::string, 3> originNames;
  bool hasTime = false;
  bool hasOrigin = false;
  std::string intensityField;  // empty: the cloud has none (rays get intensity 0)
  RayLoadStats stats;
  RayReadTimes times;
  double outsideMin = std::numeric_limits<double>::infinity();
  double outsideMax = -std::numeric_limits<double>::infinity();
  std::vector<double> scratch;
};

RayReader::RayReader(const std::filesystem::path& cloud, std::optional<std::filesystem::path> trajectory)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = cloud;
  m.name = cloud.string();
  m.ply.emplace(cloud);
  PlyReader& ply = *m.ply;

  auto propertyList = [&]() {
    std::string have;
    for (const auto& p : ply.element().properties) have += (have.empty() ? "" : ", ") + p.name + (p.isList ? " (list)" : "");
    return have.empty() ? std::string("none") : have;
  };

  std::vector<size_t> columns;
  std::string missing;
  for (const char* n : {"x", "y", "z"}) {
    if (const auto i = ply.findProperty(n)) columns.push_back(*i);
    else missing += (missing.empty() ? "" : ", ") + std::string(n);
  }
  if (!missing.empty()) {
    throw Error(m.name + ": the vertex element lacks the sample position field" +
                (missing.size() > 1 ? std::string("s ") : std::string(" ")) + missing +
                " (expected x, y, z; the vertex has: " + propertyList() + ")");
  }

  for (const auto n : kRayTimeFieldNames) {
    if (const auto i = ply.findProperty(n)) {
      m.timeField = std::string(n);
      m.hasTime = true;
      columns.push_back(*i);
      break;
    }
  }

  // The return intensity (NDT-TM keeps its per-voxel statistics), under the names lidar
  // tools write it; read after the origin fields.
  std::optional<size_t> intensityColumn;
  for (const char* n : {"intensity", "scalar_intensity", "reflectance"}) {
    if (const auto i = ply.findProperty(n)) {
      intensityColumn = *i;
      m.intensityField = n;
      break;
    }
  }

  const std::array<std::array<const char*, 3>, 2> originSets = {{{"ox", "oy", "oz"}, {"origin_x", "origin_y", "origin_z"}}};
  std::vector<size_t> originColumns;
  for (const auto& set : originSets) {
    std::vector<size_t> found;
    std::string absent;
    for (const char* n : set) {
      if (const auto i = ply.findProperty(n)) found.push_back(*i);
      else absent += (absent.empty() ? "" : ", ") + std::string(n);
    }
    if (found.size() == 3) {
      originColumns = found;
      m.originNames = {set[0], set[1], set[2]};
      break;
    }
    if (!found.empty() && !trajectory) {
      throw Error(m.name + ": the vertex element has some origin fields of (" + std::string(set[0]) + ", " + set[1] +
                  ", " + set[2] + ") but lacks " + absent + " (the vertex has: " + propertyList() + ")");
    }
  }
  const bool cloudHasOrigins = originColumns.size() == 3;

  if (trajectory) {
    if (!m.hasTime) {
      std::string names;
      for (const auto n : kRayTimeFieldNames) names += (names.empty() ? "" : ", ") + std::string(n);
      throw Error(m.name + ": the vertex element has no per-point time field, which the trajectory " +
                  trajectory->string() + " needs (expected one of: " + names + "; the vertex has: " + propertyList() +
                  ")");
    }
    m.trajectory = Trajectory::load(*trajectory);
    m.trajectoryName = trajectory->string();
  } else if (cloudHasOrigins) {
    m.hasOrigin = true;
    columns.insert(columns.end(), originColumns.begin(), originColumns.end());
  } else {
    std::string names;
    for (const auto n : kRayTimeFieldNames) names += (names.empty() ? "" : ", ") + std::string(n);
    throw Error(m.name + ": cannot tell where the sensor was: the vertex element has no origin fields (expected ox, oy, "
                "oz or origin_x, origin_y, origin_z) and no trajectory was given (a trajectory needs a time field: " +
                names + "; the vertex has: " + propertyList() + ")");
  }
  if (intensityColumn) columns.push_back(*intensityColumn);
  ply.selectColumns(std::move(columns));
}

RayReader::~RayReader() = default;
RayReader::RayReader(RayReader&&) noexcept = default;
RayReader& RayReader::operator=(RayReader&&) noexcept = default;

// Each chunk in two passes, so that reading and origin interpolation are timed apart per
// chunk: the rows become rays (non-finite ones skipped), then the origins are interpolated
// and the rays outside the trajectory's span dropped in place. Skips are counted as before:
// a point with a NaN is never looked up in the trajectory.
size_t RayReader::read(std::vector<Ray>& out, size_t maxRays) {
  Impl& m = *impl_;
  PlyReader& ply = *m.ply;
  const size_t ncol = ply.columns().size();
  size_t appended = 0;
  while (appended < maxRays && !ply.done()) {
    const double readStart = threadCpuSeconds();
    m.scratch.clear();
    const size_t rows = ply.read(m.scratch, std::min(maxRays - appended, kChunkRows));
    if (rows == 0) break;
    const size_t first = out.size();
    for (size_t r = 0; r < rows; ++r) {
      const double* v = m.scratch.data() + r * ncol;
      ++m.stats.points;
      Ray ray;
      ray.sample = {v[0], v[1], v[2]};
      size_t c = 3;
      bool finite = std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
      if (m.hasTime) {
        ray.time = v[c++];
        finite = finite && std::isfinite(ray.time);
      }
      if (m.hasOrigin) {
        ray.origin = {v[c], v[c + 1], v[c + 2]};
        finite = finite && std::isfinite(v[c]) && std::isfinite(v[c + 1]) && std::isfinite(v[c + 2]);
        c += 3;
      }
      if (!m.intensityField.empty()) {
        const double intensity = v[c++];
        // A float's range: a finite double beyond it would become inf.
        if (std::isfinite(intensity) && std::abs(intensity) <= 3.0e38) ray.intensity = float(intensity);
        else if (finite) ++m.stats.nonFiniteIntensity;
      }
      if (!finite) {
        ++m.stats.skippedNonFinite;
        continue;
      }
      out.push_back(ray);
    }
    const double originStart = threadCpuSeconds();
    m.times.readSeconds += originStart - readStart;
    size_t kept = first;
    for (size_t i = first; i < out.size(); ++i) {
      Ray ray = out[i];
      if (m.trajectory) {
        const auto origin = m.trajectory->tryPositionAt(ray.time);
        if (!origin) {
          ++m.stats.skippedOutsideTrajectory;
          m.outsideMin = std::min(m.outsideMin, ray.time);
          m.outsideMax = std::max(m.outsideMax, ray.time);
          continue;
        }
        ray.origin = *origin;
      }
      if (m.stats.rays == 0) {
        m.stats.timeMin = m.stats.timeMax = ray.time;
      } else {
        m.stats.timeMin = std::min(m.stats.timeMin, ray.time);
        m.stats.timeMax = std::max(m.stats.timeMax, ray.time);
      }
      ++m.stats.rays;
      out[kept++] = ray;
    }
    out.resize(kept);
    appended += kept - first;
    m.times.originSeconds += threadCpuSeconds() - originStart;
  }
  if (ply.done()) checkTimeUnits();
  return appended;
}

void RayReader::checkTimeUnits() const {
  const Impl& m = *impl_;
  if (!m.trajectory || m.stats.rays > 0 || m.stats.skippedOutsideTrajectory == 0) return;
  const double start = m.trajectory->startTime(), end = m.trajectory->endTime();
  const TimeUnitGuess* guess = timeUnitGuess(m.outsideMin, m.outsideMax, start, end);
  if (!guess) return;  // no unit explains it: the summary reports the skipped points
  throw Error(m.name + ": every point time (field '" + m.timeField + "', " + formatTime(m.outsideMin) + " to " +
              formatTime(m.outsideMax) + ") is outside the time span of the trajectory " + m.trajectoryName + " (" +
              formatTime(start) + " to " + formatTime(end) + "), but multiplied by " + formatTime(guess->factor) +
              " they fall inside it: " + guess->meaning + "; convert one of them to the other's unit");
}

const RayLoadStats& RayReader::stats() const { return impl_->stats; }
const RayReadTimes& RayReader::times() const { return impl_->times; }
uint64_t RayReader::totalPoints() const { return impl_->ply->count(); }
bool RayReader::done() const { return impl_->ply->done(); }
const std::filesystem::path& RayReader::cloudPath() const { return impl_->path; }
bool RayReader::usesTrajectory() const { return impl_->trajectory.has_value(); }
const Trajectory* RayReader::trajectory() const { return impl_->trajectory ? &*impl_->trajectory : nullptr; }
const std::string& RayReader::timeField() const { return impl_->timeField; }

std::string RayReader::originFields() const {
  if (!impl_->hasOrigin) return {};
  return impl_->originNames[0] + ", " + impl_->originNames[1] + ", " + impl_->originNames[2];
}

std::string RayReader::summary() const {
  const Impl& m = *impl_;
  const RayLoadStats& s = m.stats;
  std::string text = m.name + ": " + std::to_string(s.points) + " of " + std::to_string(totalPoints()) + " points read, " +
                     std::to_string(s.rays) + " rays";
  if (s.rays > 0) text += " (time " + formatTime(s.timeMin) + " to " + formatTime(s.timeMax) + ")";
  text += "; origins from ";
  text += m.trajectory ? "the trajectory" : "the fields " + originFields();
  if (!m.timeField.empty()) text += "; time field '" + m.timeField + "'";
  if (!m.intensityField.empty()) text += "; intensity field '" + m.intensityField + "'";
  if (s.nonFiniteIntensity > 0)
    text += "; " + std::to_string(s.nonFiniteIntensity) + " with a NaN/inf intensity (kept with intensity 0)";
  if (s.skippedNonFinite > 0) text += "; " + std::to_string(s.skippedNonFinite) + " skipped for NaN/inf values";
  if (s.skippedOutsideTrajectory > 0) {
    text += "; " + std::to_string(s.skippedOutsideTrajectory) + " skipped with times " + formatTime(m.outsideMin) +
            " to " + formatTime(m.outsideMax) + " outside the trajectory's span [" +
            formatTime(m.trajectory->startTime()) + ", " + formatTime(m.trajectory->endTime()) + "]";
  }
  return text;
}

std::vector<Ray> readRays(const std::filesystem::path& cloud, std::optional<std::filesystem::path> trajectory,
                          RayLoadStats* stats) {
  RayReader reader(cloud, std::move(trajectory));
  std::vector<Ray> rays;
  rays.reserve(size_t(std::min<uint64_t>(reader.totalPoints(), uint64_t(1) << 24)));
  while (reader.read(rays, kChunkRows) > 0) {
  }
  if (stats) *stats = reader.stats();
  return rays;
}

void writeRayCloud(const std::filesystem::path& path, std::span<const Ray> rays, PlyFormat format) {
  PlyWriter writer(path,
                   {{"x", PlyType::Float64},
                    {"y", PlyType::Float64},
                    {"z", PlyType::Float64},
                    {"ox", PlyType::Float64},
                    {"oy", PlyType::Float64},
                    {"oz", PlyType::Float64},
                    {"time", PlyType::Float64},
                    {"intensity", PlyType::Float32}},
                   format, {"voxen ray cloud"});
  for (const Ray& r : rays) {
    writer.write({r.sample.x, r.sample.y, r.sample.z, r.origin.x, r.origin.y, r.origin.z, r.time, double(r.intensity)});
  }
  writer.close();
}

}  // namespace voxen
