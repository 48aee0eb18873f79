// `voxen bench input`: how fast recordings become rays on one thread, per point, beside the
// binary PLY + trajectory path measured in the same run. One generated lidar run is written
// as PLY + trajectory, as ROS 1 bags (plain, lz4) and MCAP files (plain, zstd, lz4) holding
// the same points; each is read whole by a one-thread RayReader (decode, pose by tf, rays),
// and the clouds' PointCloud2 messages are decoded alone from memory in both serializations
// (ROS 1, CDR) to separate decoding from the container and the posing.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "stopwatch.hpp"
#include "report/text_format.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/cloud_decoder.hpp"
#include "voxen/input/mcap_reader.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/testdata/lidar_recording.hpp"

namespace voxen::cli {

namespace {

struct BenchInputArgs {
  LidarConfig lidar;
  int repeat = 5;
  int threads = 1;  // RayReader threads: 1 measures the cost per point, more the wall time with workers
};

struct Row {
  std::string input, what;
  uint64_t points = 0, rays = 0, bytes = 0;
  std::vector<double> seconds;
  double nsPerPoint() const { return median(seconds) * 1e9 / double(std::max<uint64_t>(points, 1)); }
};

// A folder of its own under the temp folder, removed with the files in it.
struct ScratchFolder {
  std::filesystem::path path;
  ScratchFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "voxen-bench-input-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw Error("cannot create a folder like " + pattern);
    path = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

Row timeReader(const std::string& label, const std::filesystem::path& input, const std::optional<std::filesystem::path>& trajectory,
               int repeat, int threads) {
  Row row{label, "read, pose and make rays (RayReader, " + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)")};
  row.bytes = std::filesystem::file_size(input);
  for (int r = 0; r < repeat; ++r) {
    const auto start = Clock::now();
    RayReader reader(input, trajectory, {.threads = unsigned(threads)});
    while (!reader.next(1 << 16).empty()) {
    }
    row.seconds.push_back(secondsSince(start));
    row.points = reader.stats().points;
    row.rays = reader.stats().rays;
  }
  return row;
}

// PointCloud2 messages decoded from memory into rows (the container and the posing left out).
Row timeDecode(const std::string& label, const std::vector<std::vector<uint8_t>>& messages, ros::MessageEncoding encoding,
               int repeat) {
  Row row{label, "decode PointCloud2 to rows, from memory"};
  std::vector<double> rows;
  const ros::PointCloud2 first = ros::decodePointCloud2(messages.at(0), encoding, "bench");
  const ros::CloudLayout layout = ros::chooseCloudLayout(first, "bench");
  for (int r = 0; r < repeat; ++r) {
    uint64_t points = 0;
    const auto start = Clock::now();
    for (const auto& m : messages) {
      rows.clear();
      points += ros::decodeCloudRows(ros::decodePointCloud2(m, encoding, "bench"), layout, "bench", rows);
    }
    row.seconds.push_back(secondsSince(start));
    row.points = row.rays = points;
  }
  for (const auto& m : messages) row.bytes += m.size();
  return row;
}

int benchInput(const CommonOptions& options, const BenchInputArgs& args) {
  ScratchFolder scratch;
  const std::filesystem::path& dir = scratch.path;
  const SyntheticScene scene = SyntheticScene::generate(args.lidar.seed);
  if (!options.json)
    std::fprintf(stderr, "voxen bench input: writing %d scans of %d x %d points as PLY, bags and MCAP files in %s\n",
                 args.lidar.scans, args.lidar.rings, args.lidar.columns, dir.c_str());
  LidarRecordingOptions withPly;
  withPly.plyPath = dir / "run.ply";
  withPly.trajectoryPath = dir / "run.txt";
  writeLidarRecording(scene, args.lidar, dir / "run.bag", withPly);
  writeLidarRecording(scene, args.lidar, dir / "run-lz4.bag", {.compression = "lz4"});
  writeLidarRecording(scene, args.lidar, dir / "run.mcap", {});
  writeLidarRecording(scene, args.lidar, dir / "run-zstd.mcap", {.compression = "zstd"});
  writeLidarRecording(scene, args.lidar, dir / "run-lz4.mcap", {.compression = "lz4"});

  std::vector<Row> rows;
  rows.push_back(timeReader("PLY binary + trajectory", dir / "run.ply", dir / "run.txt", args.repeat, args.threads));
  rows.push_back(timeReader("ROS 1 bag", dir / "run.bag", std::nullopt, args.repeat, args.threads));
  rows.push_back(timeReader("ROS 1 bag, lz4", dir / "run-lz4.bag", std::nullopt, args.repeat, args.threads));
  rows.push_back(timeReader("MCAP", dir / "run.mcap", std::nullopt, args.repeat, args.threads));
  rows.push_back(timeReader("MCAP, zstd", dir / "run-zstd.mcap", std::nullopt, args.repeat, args.threads));
  rows.push_back(timeReader("MCAP, lz4", dir / "run-lz4.mcap", std::nullopt, args.repeat, args.threads));

  // The clouds' bytes from the plain MCAP file, and the same clouds in ROS 1 serialization.
  std::vector<std::vector<uint8_t>> cdr, ros1;
  {
    mcap::Reader reader(dir / "run.mcap");
    std::vector<uint16_t> clouds;
    for (const auto& [id, channel] : reader.channels())
      if (channel.topic == "/points") clouds.push_back(id);
    for (const mcap::MessageLocation& at : reader.index(clouds)) {
      const mcap::Message m = reader.read(at);
      cdr.emplace_back(m.data.begin(), m.data.end());
      ros1.push_back(ros::encodePointCloud2(ros::decodePointCloud2(cdr.back(), ros::MessageEncoding::Cdr, "bench"),
                                            ros::MessageEncoding::Ros1));
    }
  }
  rows.push_back(timeDecode("PointCloud2, ROS 1", ros1, ros::MessageEncoding::Ros1, args.repeat));
  rows.push_back(timeDecode("PointCloud2, CDR", cdr, ros::MessageEncoding::Cdr, args.repeat));

  const double reference = rows.front().nsPerPoint();
  if (options.json) {
    printJson(jsonArray(rows, [&](const Row& r) -> Json {
      return {{"input", r.input},
              {"measures", r.what},
              {"threads", args.threads},
              {"points", r.points},
              {"rays", r.rays},
              {"bytes", r.bytes},
              {"ns_per_point", rounded(r.nsPerPoint(), 2)},
              {"vs_ply", rounded(r.nsPerPoint() / reference, 3)},
              {"seconds", secondsList(r.seconds)}};
    }));
    return 0;
  }
  std::printf("voxen bench input: %d scans of %d x %d points, %d reader thread%s, medians of %d repetitions\n\n",
              args.lidar.scans, args.lidar.rings, args.lidar.columns, args.threads, args.threads == 1 ? "" : "s", args.repeat);
  const TextTable table({{"input", 26, Align::Left},
                         {"points", 12},
                         {"rays", 12},
                         {"MB", 10},
                         {"ns/point", 12},
                         {"vs PLY", 9},
                         {"measures", 0, Align::Left, "  ", false}});
  table.printHead();
  for (const Row& r : rows)
    table.printRow({r.input, withCommas(r.points), withCommas(r.rays), fixed(r.bytes / 1e6, 1), fixed(r.nsPerPoint(), 1),
                    fixed(r.nsPerPoint() / reference, 2, "x"), r.what});
  std::printf("\nns/point: wall time per point of the input (no-return beams included: NaN points in the "
              "recordings, left out of the PLY, so the PLY has fewer points). vs PLY: ns/point over the binary PLY + "
              "trajectory path's, measured in this run.\n");
  return 0;
}

CommandRun setupBenchInput(CLI::App& command) {
  auto args = std::make_shared<BenchInputArgs>();
  args->lidar.scans = 10;
  args->lidar.threads = 0;
  command.add_option("--rings", args->lidar.rings, "lidar rings")->check(integerIn(1, 4096))->capture_default_str();
  command.add_option("--columns", args->lidar.columns, "points per ring and scan")->check(integerIn(1, 1 << 16))->capture_default_str();
  command.add_option("--scans", args->lidar.scans, "scans (one cloud message each)")->check(integerIn(1, 10000))->capture_default_str();
  command.add_option("--threads", args->threads, "RayReader threads (1: the cost per point on one thread)")
      ->check(integerIn(1, 256))->capture_default_str();
  command.add_option("--repeat", args->repeat, "repetitions (medians are reported)")->check(integerIn(1, 100))->capture_default_str();
  return [args](const CommonOptions& options) { return benchInput(options, *args); };
}

}  // namespace

static CommandRegistration registration{"bench input", "recordings (bags, MCAP) to rays per point, beside binary PLY",
                                        &setupBenchInput, Uses::Json};

}  // namespace voxen::cli
