// KITTI velodyne scans as a point input: each point moved into the map frame by its scan's
// lidar pose, whose position is the ray's origin; the scan's time dates every point of it
// (KITTI stores no per-point time).
#include <glm/vec4.hpp>

#include <algorithm>
#include <cstring>

#include "mapped_file.hpp"
#include "point_source.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/input_format.hpp"
#include "voxen/input/kitti.hpp"

namespace voxen::detail {

namespace {

struct ScanChunk {
  size_t scan;
  uint64_t first, count;
};

class KittiPointSource final : public PointSource {
 public:
  KittiPointSource(KittiSequence sequence, size_t chunkPoints, const SensorExclusion& exclusion)
      : seq_(std::move(sequence)), exclusion_(exclusion) {
    const uint64_t step = std::max<uint64_t>(chunkPoints, 1);
    for (size_t i = 0; i < seq_.scans.size(); ++i) {
      const uint64_t points = std::filesystem::file_size(seq_.scans[i]) / 16;
      for (uint64_t first = 0; first < points; first += step) chunks_.push_back({i, first, std::min(step, points - first)});
    }
    excluded_.resize(chunks_.size());
  }
  uint64_t chunks() const override { return chunks_.size(); }
  bool concurrent() const override { return true; }

  size_t read(uint64_t k, std::vector<double>& out) override {
    const ScanChunk& c = chunks_[k];
    const std::filesystem::path& path = seq_.scans[c.scan];
    std::optional<MappedFile> file = MappedFile::open(path);
    if (!file || file->size() < (c.first + c.count) * 16)
      throw Error(path.string() + ": cannot read points " + std::to_string(c.first) + " to " +
                  std::to_string(c.first + c.count) + " (the scan changed or cannot be mapped)");
    const glm::dmat4& pose = seq_.lidarPoses[c.scan];
    const glm::dvec3 origin(pose[3]);
    const double time = seq_.times[c.scan];
    out.resize(size_t(c.count) * 8);
    const char* p = file->data() + c.first * 16;
    const bool excluding = exclusion_.active();
    SourceSkips& excluded = excluded_[k];  // this chunk's alone: no other thread reads chunk k
    excluded = {};
    size_t kept = 0;
    for (uint64_t r = 0; r < c.count; ++r) {
      float v[4];
      std::memcpy(v, p + r * 16, 16);
      // Returns from the robot, judged as the lidar measured them.
      if (excluding) {
        const SensorExclusion::Verdict verdict = exclusion_.judge(glm::dvec3(v[0], v[1], v[2]));
        if (verdict != SensorExclusion::Verdict::Kept) {
          ++(verdict == SensorExclusion::Verdict::InBox ? excluded.inBox : excluded.nearSensor);
          continue;
        }
      }
      const glm::dvec4 world = pose * glm::dvec4(v[0], v[1], v[2], 1.0);
      double* o = out.data() + kept++ * 8;
      o[0] = world.x, o[1] = world.y, o[2] = world.z, o[3] = time;
      o[4] = origin.x, o[5] = origin.y, o[6] = origin.z, o[7] = v[3];
    }
    out.resize(kept * 8);
    return kept;
  }

  size_t finish(uint64_t k, std::vector<double>&, size_t count, SourceSkips& skips) override {
    skips.inBox = excluded_[k].inBox;
    skips.nearSensor = excluded_[k].nearSensor;
    return count;
  }

 private:
  KittiSequence seq_;
  std::vector<ScanChunk> chunks_;
  SensorExclusion exclusion_;
  std::vector<SourceSkips> excluded_;  // per chunk: what read() dropped, reported by finish()
};

}  // namespace

PointInput openKittiInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                          const PointInputOptions& options) {
  if (trajectory)
    throw Error(path.string() + ": a KITTI sequence carries its own poses (poses.txt with calib.txt's Tr): give no "
                "trajectory " + trajectory->string());
  PointInput input;
  KittiSequence sequence;
  if (detectInputFormat(path) == InputFormat::KittiScan) {
    // One scan alone: in its lidar's frame, the sensor at the origin, at time 0.
    sequence.folder = path.parent_path();
    sequence.scans = {path};
    sequence.lidarPoses = {glm::dmat4(1.0)};
    sequence.times = {0.0};
    sequence.points = std::filesystem::file_size(path) / 16;
    input.format = "KITTI velodyne scan";
    input.originFields = "the lidar at 0, 0, 0 (a single scan)";
  } else {
    sequence = loadKittiSequence(path);
    input.format = "KITTI odometry";
    input.originFields = "the poses of " + sequence.posesFile.string() + " and Tr of " + sequence.calibFile.string();
  }
  input.points = sequence.points;
  input.timeField = sequence.timesFile.empty() ? "scan index x 0.1 s" : "times.txt";
  input.intensityField = "reflectance";
  input.layout = {.columns = 8, .hasTime = true, .hasOrigin = true, .hasIntensity = true};
  input.source = std::make_unique<KittiPointSource>(std::move(sequence), options.chunkPoints, options.exclusion);
  input.excludesItself = true;
  return input;
}

}  // namespace voxen::detail
