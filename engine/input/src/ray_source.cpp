#include "voxen/input/ray_source.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "point_source.hpp"
#include "ray_chunk.hpp"
#include "ray_chunk_pipeline.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/host/thread_cpu_clock.hpp"

namespace voxen {

namespace {

// readRays() asks for this many rays at a time.
constexpr size_t kReadAllRays = 65536;

std::string shortNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
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

// When both the middles and the lengths of the two time ranges differ by the same power of
// 1000 (each within a factor of about 3), that power's exponent (3, 6, 9 or their negatives):
// the cloud's times over the trajectory's. Middles alone would call a relative clock (from 0)
// against an absolute one a unit mismatch.
std::optional<int> thousandsApart(double lo, double hi, double start, double end) {
  auto powerOf = [](double ratio) -> std::optional<int> {
    if (!(ratio > 0.0) || !std::isfinite(ratio)) return std::nullopt;
    const double exponent = std::log10(ratio);
    const int power = 3 * int(std::lround(exponent / 3.0));
    if (power == 0 || std::abs(power) > 9 || std::abs(exponent - power) > 0.5) return std::nullopt;
    return power;
  };
  const auto middles = powerOf(std::abs(lo + hi) / std::abs(start + end));
  const auto lengths = powerOf((hi - lo) / (end - start));
  return middles && middles == lengths ? middles : std::nullopt;
}

}  // namespace

struct RayReader::Impl {
  std::filesystem::path path;
  std::string name;
  RayReaderOptions options;
  detail::PointInput input;  // the format's points, and which fields they came from
  std::optional<Trajectory> trajectory;
  std::string trajectoryName;
  RayLoadStats stats;
  RayReadTimes times;
  double outsideMin = std::numeric_limits<double>::infinity();
  double outsideMax = -std::numeric_limits<double>::infinity();

  detail::RayChunk current;  // the chunk read() copies from, up to `cursor`
  size_t cursor = 0;
  uint64_t taken = 0;        // chunks made current so far
  uint64_t bytesRead = 0;    // their chunkBytes
  std::optional<double> lastOrderTime;  // of the last chunk kept, for time going backwards
  bool failed = false;
  unsigned workers = 0;      // worker threads started; 0: read() makes the chunks
  double madeHereSeconds = 0.0;  // CPU time of the chunks read() made itself
  std::vector<double> rows;  // scratch when read() makes the chunks itself
  // Last: destroyed (its threads joined) before what they read from.
  std::unique_ptr<detail::RayChunkPipeline> pipeline;

  bool allTaken() const { return taken == input.source->chunks(); }
  // The trajectory the pipeline interpolates origins from: none when the source poses its
  // points itself (a recording applies the trajectory as full poses, or uses tf).
  const Trajectory* pipelineTrajectory() const { return trajectory && !input.posesApplied ? &*trajectory : nullptr; }
  // What the pipeline does besides making rays: a fixed origin, and returns from the robot
  // unless the source judged them itself.
  detail::ChunkRules chunkRules() const {
    return {.trajectory = pipelineTrajectory(),
            .fixedOrigin = input.fixedOrigin,
            .exclusion = options.exclusion.active() && !input.excludesItself ? &options.exclusion : nullptr};
  }

  void start() {
    detail::PointSource* source = input.source.get();
    const uint64_t chunks = source->chunks();
    const unsigned threads = unsigned(std::min<uint64_t>(options.threads, chunks));
    if (threads < 2) return;
    const detail::ChunkRules rules = chunkRules();
    pipeline = std::make_unique<detail::RayChunkPipeline>(
        chunks, threads, 2 * size_t(threads), !source->concurrent(),
        [this, source, rules](uint64_t k, detail::RayChunk& chunk, std::vector<double>& scratch,
                              std::unique_lock<std::mutex>* lock) {
          detail::makeRayChunk(*source, k, input.layout, rules, scratch, chunk, lock);
        });
    workers = pipeline->started();
    if (workers == 0) pipeline.reset();  // no thread could start: read() makes the chunks
  }

  // Makes the next chunk current (from the workers, or made here); false after the last.
  // Its error, if any, is thrown here: in input order, when the caller reaches it.
  bool nextChunk() {
    if (failed) throw Error(name + ": the reader cannot continue after an earlier error");
    if (allTaken()) return false;
    if (pipeline) {
      pipeline->next(current, times.waitSeconds);
    } else {
      detail::makeRayChunk(*input.source, taken, input.layout, chunkRules(), rows, current, nullptr);
      madeHereSeconds += current.times.readSeconds + current.times.originSeconds;
    }
    bytesRead += input.source->chunkBytes(taken);
    ++taken;
    cursor = 0;
    if (current.error) {
      failed = true;
      pipeline.reset();  // nothing after the error is wanted: stop the workers now
      std::rethrow_exception(current.error);
    }
    if (current.orderTime && lastOrderTime && *current.orderTime < *lastOrderTime) {
      // Time going backwards: the chunk (a cloud stamped before the one ahead of it) is
      // dropped whole, every point counted as skipped for it, whatever else it held.
      current.stats = {.points = current.stats.points, .skippedBackwards = current.stats.points};
      current.outsideMin = std::numeric_limits<double>::infinity();
      current.outsideMax = -std::numeric_limits<double>::infinity();
      current.rays.clear();
    } else if (current.orderTime) {
      lastOrderTime = current.orderTime;
    }
    detail::addChunkTotals(current, stats, times, outsideMin, outsideMax);
    return true;
  }
};

RayReader::RayReader(const std::filesystem::path& cloud, std::optional<std::filesystem::path> trajectory,
                     RayReaderOptions options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = options;
  m.path = cloud;
  m.name = cloud.string();
  m.input = detail::openPointInput(cloud, trajectory, {.chunkPoints = options.chunkPoints, .mapFile = options.mapFile, .recording = options.recording, .pcdViewpoint = options.pcdViewpoint, .exclusion = options.exclusion, .origin = options.origin});
  if (trajectory) {
    m.trajectory = Trajectory::load(*trajectory);
    m.trajectoryName = trajectory->string();
  }
  // The origin is for a cloud that has none: any other input's own origins or poses win,
  // which the user should hear rather than have the flag silently ignored.
  if (options.origin && !m.input.fixedOrigin)
    throw SettingError(SettingError::Kind::Invalid, "RayReaderOptions::origin", "sensor origin",
                       m.name + ": {} is for a single cloud without origins or poses, and this " + m.input.format +
                           " input has them (" + (trajectory ? "the trajectory " + trajectory->string()
                                                  : m.input.posesApplied ? m.input.posesName
                                                                         : m.input.originFields) + ")");
  m.start();
}

RayReader::~RayReader() = default;
RayReader::RayReader(RayReader&&) noexcept = default;
RayReader& RayReader::operator=(RayReader&&) noexcept = default;

// Copies from the current chunk, taking the next in order as each runs out; the chunks are
// made (rows read, rays converted, origins interpolated) by the workers or by makeRayChunk
// here, the same either way.
size_t RayReader::read(std::vector<Ray>& out, size_t maxRays) {
  Impl& m = *impl_;
  if (maxRays == 0) {
    if (m.allTaken()) checkTimeUnits();
    return 0;
  }
  // This thread's CPU time in the call, less the chunks it made itself (timed inside), is
  // the hand-over: copying into `out` (and growing it), taking chunks from the workers. It
  // counts as reading, as it did when rays were parsed straight into `out`.
  const double start = threadCpuSeconds();
  const double madeBefore = m.madeHereSeconds;
  size_t appended = 0;
  while (appended < maxRays) {
    const std::vector<Ray>& rays = m.current.rays;
    if (m.cursor == rays.size()) {
      if (!m.nextChunk()) break;
      continue;
    }
    const size_t n = std::min(maxRays - appended, rays.size() - m.cursor);
    out.insert(out.end(), rays.begin() + std::ptrdiff_t(m.cursor), rays.begin() + std::ptrdiff_t(m.cursor + n));
    m.cursor += n;
    appended += n;
  }
  m.times.readSeconds += threadCpuSeconds() - start - (m.madeHereSeconds - madeBefore);
  if (m.allTaken()) checkTimeUnits();
  return appended;
}

std::span<const Ray> RayReader::next(size_t maxRays) {
  Impl& m = *impl_;
  std::span<const Ray> view;
  if (maxRays > 0) {
    const double start = threadCpuSeconds();
    const double madeBefore = m.madeHereSeconds;
    while (m.cursor == m.current.rays.size() && m.nextChunk()) {
    }
    const size_t n = std::min(maxRays, m.current.rays.size() - m.cursor);
    view = std::span<const Ray>(m.current.rays).subspan(m.cursor, n);
    m.cursor += n;
    m.times.readSeconds += threadCpuSeconds() - start - (m.madeHereSeconds - madeBefore);
  }
  if (m.allTaken()) checkTimeUnits();
  return view;
}

void RayReader::checkTimeUnits() const {
  const Impl& m = *impl_;
  if (!m.trajectory) return;
  const RayLoadStats& s = m.stats;
  // Points inside the span: the rays, and the returns from the robot dropped after their pose
  // was found.
  const uint64_t inside = s.rays + s.skippedInBox + s.skippedNearSensor;
  const uint64_t timed = inside + s.skippedOutsideTrajectory;  // points with a finite time
  if (timed == 0) return;
  const double start = m.trajectory->startTime(), end = m.trajectory->endTime();
  const double lo = std::min(s.rays > 0 ? s.timeMin : m.outsideMin, m.outsideMin);
  const double hi = std::max(s.rays > 0 ? s.timeMax : m.outsideMax, m.outsideMax);
  const std::string cloudTimes = "point times (field '" + m.input.timeField + "', " + formatTime(lo) + " to " + formatTime(hi) + ")";
  const std::string trajectorySpan = "the time span of the trajectory " + m.trajectoryName + " (" + formatTime(start) +
                                     " to " + formatTime(end) + ")";
  // Fewer than 1% of the points in the span: a map of what is left would look like a result
  // and be almost nothing. The clocks do not match: another unit, or another run's file.
  if (inside * 100 < timed) {
    std::string text = m.name + ": " + (inside == 0 ? "none" : "only " + std::to_string(inside)) + " of the " +
                       std::to_string(timed) + " " + cloudTimes + " fall" + (inside == 1 ? "s" : "") + " inside " +
                       trajectorySpan;
    if (const TimeUnitGuess* guess = timeUnitGuess(lo, hi, start, end)) {
      text += ", but multiplied by " + formatTime(guess->factor) + " they fall inside it: " + guess->meaning +
              "; convert one of them to the other's unit";
    } else if (const std::optional<int> power = thousandsApart(lo, hi, start, end)) {
      text += ": their times are about 1e" + std::to_string(*power) +
              " apart, as if one were in another unit (seconds, milliseconds, microseconds, nanoseconds); convert "
              "one of them to the other's unit";
    } else {
      text += ": the two " + std::string(inside == 0 ? "do not overlap" : "barely overlap") +
              "; is the trajectory from the same run and clock as the cloud?";
    }
    throw Error(text);
  }
  // Every point inside, but crowded into a sliver of a span that the points would fill in
  // another unit: a cloud in seconds against a trajectory in nanoseconds that both start at
  // 0. Only factors of a million or more count: a cloud of 10 s at the start of a trajectory
  // of 3 hours is ordinary, one of 10 s in a trajectory of 116 days is not.
  if (s.skippedOutsideTrajectory == 0 && hi > lo) {
    const double slack = 0.01 * (end - start);
    for (const double factor : {1e6, 1e9}) {
      const double a = lo * factor, b = hi * factor;
      if (a >= start - slack && b <= end + slack && b - a >= 0.5 * (end - start))
        throw Error(m.name + ": the " + std::to_string(timed) + " " + cloudTimes + " cover only " +
                    shortNumber((hi - lo) / (end - start)) + " of " + trajectorySpan + ", which they fill when "
                    "multiplied by " + formatTime(factor) + ": the cloud's times look like seconds and the trajectory's "
                    "like " + (factor == 1e9 ? "nanoseconds" : "microseconds") +
                    "; convert one of them to the other's unit");
    }
  }
}

const RayLoadStats& RayReader::stats() const { return impl_->stats; }
const RayReadTimes& RayReader::times() const { return impl_->times; }
uint64_t RayReader::totalPoints() const { return impl_->input.points; }
uint64_t RayReader::totalBytes() const { return impl_->input.bytes; }
uint64_t RayReader::bytesRead() const { return impl_->bytesRead; }
bool RayReader::done() const { return impl_->allTaken() && impl_->cursor == impl_->current.rays.size(); }
unsigned RayReader::threads() const { return impl_->workers; }
bool RayReader::mapped() const { return impl_->input.source->concurrent(); }
const std::filesystem::path& RayReader::cloudPath() const { return impl_->path; }
bool RayReader::usesTrajectory() const { return impl_->trajectory.has_value(); }
const Trajectory* RayReader::trajectory() const { return impl_->trajectory ? &*impl_->trajectory : nullptr; }
const std::string& RayReader::timeField() const { return impl_->input.timeField; }
const std::string& RayReader::intensityField() const { return impl_->input.intensityField; }
const std::string& RayReader::format() const { return impl_->input.format; }
const std::vector<SettingWarning>& RayReader::settingWarnings() const { return impl_->input.settingWarnings; }
const std::vector<std::string>& RayReader::warnings() const { return impl_->input.warnings; }

std::string RayReader::originFields() const {
  if (!impl_->input.layout.hasOrigin && !impl_->input.fixedOrigin) return {};
  return impl_->input.originFields;
}

std::string RayReader::summary() const {
  const Impl& m = *impl_;
  const RayLoadStats& s = m.stats;
  std::string text = m.name + ": " + formatCount(s.points) + " of " + formatCount(totalPoints()) + " points read, " +
                     formatCount(s.rays) + " rays";
  if (s.rays > 0) text += " (time " + formatTime(s.timeMin) + " to " + formatTime(s.timeMax) + ")";
  text += "; origins from ";
  if (m.trajectory)
    text += "the trajectory";
  else if (m.input.posesApplied)
    text += m.input.posesName;
  else
    text += (m.input.format == "PLY" && !m.input.fixedOrigin ? "the fields " : "") + originFields();
  for (const std::string& note : m.input.notes) text += "; " + note;
  // A recording's time field is reported with its name already quoted, and how it was read.
  if (!m.input.timeField.empty())
    text += m.input.posesApplied ? "; time " + m.input.timeField : "; time field '" + m.input.timeField + "'";
  if (!m.input.intensityField.empty()) text += "; intensity field '" + m.input.intensityField + "'";
  if (s.nonFiniteIntensity > 0)
    text += "; " + formatCount(s.nonFiniteIntensity) +
            " with a NaN/inf intensity or one past a float's range (NDT-TM skips these rays; other modes do not read intensity)";
  if (s.skippedNonFinite > 0) text += "; " + formatCount(s.skippedNonFinite) + " skipped for NaN/inf values";
  if (s.skippedBackwards > 0)
    text += "; " + formatCount(s.skippedBackwards) + " skipped in clouds stamped before the cloud recorded ahead of them";
  if (s.skippedInBox > 0) text += "; " + formatCount(s.skippedInBox) + " skipped inside the robot's box";
  if (s.skippedNearSensor > 0) text += "; " + formatCount(s.skippedNearSensor) + " skipped nearer the sensor than the minimum range";
  if (s.skippedOutsideTrajectory > 0) {
    text += "; " + formatCount(s.skippedOutsideTrajectory) + " skipped with times " + formatTime(m.outsideMin) +
            " to " + formatTime(m.outsideMax) + " outside the " +
            (m.trajectory ? "trajectory's span [" + formatTime(m.trajectory->startTime()) + ", " +
                                formatTime(m.trajectory->endTime()) + "]"
                          : "span of " + m.input.posesName + " [" + formatTime(m.input.poseStart) + ", " +
                                formatTime(m.input.poseEnd) + "]");
  }
  return text;
}

std::vector<Ray> readRays(const std::filesystem::path& cloud, std::optional<std::filesystem::path> trajectory,
                          RayLoadStats* stats) {
  RayReader reader(cloud, std::move(trajectory));
  std::vector<Ray> rays;
  rays.reserve(size_t(std::min<uint64_t>(reader.totalPoints(), uint64_t(1) << 24)));
  while (reader.read(rays, kReadAllRays) > 0) {
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
