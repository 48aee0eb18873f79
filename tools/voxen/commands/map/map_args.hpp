#pragma once
// `voxen map`'s command line: the values its flags set (MapArgs), the flags themselves, and
// what a store run records of them so that `--resume` alone continues it. The run itself is
// voxen::MappingRun (voxen/mapping_run.hpp); map_command.cpp turns these into its options.
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_options.hpp"

#include "voxen/clearance/clearance.hpp"
#include "voxen/input/pcd.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/mapper.hpp"
#include "voxen/mapping_run.hpp"
#include "voxen/store/store_mapping.hpp"

namespace voxen::cli {

struct MapArgs {
  std::string cloud, input, trajectory, output;
  RecordingOptions recording;  // ROS 1 bags and MCAP files
  std::optional<PcdViewpoint> pcdViewpoint;  // --pcd-viewpoint: how PCD files' VIEWPOINT is read
  std::string preset = "ohm";  // the model the probabilities start from
  // Model values given on the command line: they override the preset's, whatever the order.
  std::optional<double> resolution, hit, miss, threshold;
  std::optional<int32_t> regionSize;
  std::vector<double> clamp;  // min, max
  LayerSet layers;
  IntegrationOptions integration;
  std::optional<double> window;  // --window: the local window around the sensor, metres
  std::optional<double> decaySeconds;  // --decay-s: forget voxels not seen for this long
  GpuIntegratorOptions gpu;
  bool cpu = false, cpuSequential = false, quiet = false;
  bool orderGiven = false;
  bool allowEmpty = false;  // write the map even when no ray made it into it
  // Returns from the robot itself (--min-range, --exclude-box), and a single scan's sensor
  // position (--origin).
  double minRange = 0.0;
  std::vector<double> excludeBox, origin;
  // A store the map is saved into as it grows (--store), instead of a map file at the end.
  std::string store, session;
  StoreMappingOptions storeMapping;
  bool resume = false;
  std::vector<CLI::Option*> storeSettings;  // options that need --store
  // The command these were parsed from (a store run records its given options), and with
  // --resume the one parsed from the run's recorded options (takeRecordedOptions) they now
  // come from, kept alive for the Option pointers here.
  CLI::App* command = nullptr;
  std::shared_ptr<void> resumedCommand;
  ClearanceOptions clearance;  // computed after mapping when clearance.range > 0 (--clearance)
  bool withClearance = false;
  // --heightmap HM.vxh: after mapping (and the clearance), the heightmap with its default
  // settings (voxen heightmap has every setting), written there.
  std::string heightmapOutput;
  // --tsdf: depth images from --input into the map's TSDF layer (map_depth_run.cpp).
  struct Depth {
    bool tsdf = false;
    std::optional<double> truncation;  // --tsdf-truncation, metres (default 4 voxels)
    double maxWeight = 64.0;           // --tsdf-max-weight
    std::string weighting = "constant";  // --tsdf-weighting
    std::string depthTopic, cameraInfoTopic, cameraInfoFile;
    bool colour = false;      // --color: the recording's colour images into the tsdf_colour layer
    std::string colourTopic;  // --color-topic (implies --color)
  } depth;
  // A robot's stream (map_live_run.cpp): --live ws://HOST:PORT instead of --input, and
  // --serve [HOST]:PORT, the map as it grows on a Foxglove WebSocket server.
  struct Live {
    std::string url;                // --live
    std::string serve;              // --serve
    double serveRate = 2.0;         // --serve-rate: map publications per second
    double serveLinger = 0.0;       // --serve-linger: seconds the finished map stays served
    double topicTimeout = 10.0;     // --topic-timeout
    int queueClouds = 8;            // --live-queue
  } live;
  // Threads reading the cloud (--threads): the machine's cores by default.
  int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  // Options whose effect depends on others: given or not.
  std::vector<CLI::Option*> ndtSettings;
  CLI::Option* gpuCache = nullptr;

  // The model: the preset with the values given on the command line; SettingError when out
  // of range (the tool words it with the flag: --clamp 0 0).
  OccupancyModel model() const;
};

// --min-range and --exclude-box; UsageError when a box's min exceeds its max.
SensorExclusion exclusionOf(const MapArgs& args);

// Declares every flag of `voxen map`, bound to `args`.
void addMapOptions(CLI::App& command, MapArgs& args);

// --tsdf: the depth run (map_depth_run.cpp): the recording's depth images into a TSDF map.
int mapDepth(const CommonOptions& options, MapArgs& args);
// Both TSDF runs' settings: --tsdf-truncation (metres; default 4 voxels), --tsdf-max-weight,
// --tsdf-weighting and --max-range, checked for a map of `resolution` metres (a UsageError naming
// --tsdf-truncation for a band out of range).
TsdfOptions tsdfOptionsOf(const MapArgs& args, double resolution);
// --tsdf on point clouds (map_cloud_tsdf_run.cpp): the cloud's rays into a TSDF map by ray
// integration; tsdfInputHoldsClouds tells the two runs apart (--cloud, a cloud file or folder,
// a recording with no depth image topic or with --cloud-topic).
bool tsdfInputHoldsClouds(const MapArgs& args);
int mapCloudTsdf(const CommonOptions& options, MapArgs& args);
// --live: a robot's stream mapped until --duration, Ctrl-C or a fatal stream error
// (commands/live/map_live_run.cpp; a build without live streaming refuses it).
int mapLive(const CommonOptions& options, MapArgs& args);
// --serve on a file run (commands/live/map_file_serve.cpp; a build without live streaming
// refuses it): publishes the run's host map at --serve-rate from run.betweenChunks, and
// returns what publishes the finished map (with the state "done") once the run is over.
std::function<void(Mapper&)> serveFileRun(const MapArgs& args, MappingRunOptions& run);

// What a resumed run must share with the run it continues, by flag.
RunSettings runSettingsOf(const MapArgs& args, const OccupancyModel& model, const MapLayout& layout);
// The command's options as given, recorded with a store run.
RunSettings recordedOptions(const MapArgs& args);
// --resume: the options the run in --store recorded when it started, each one this command
// gives in its place. Refuses a store that does not exist or holds no run to resume.
void takeRecordedOptions(MapArgs& args);
// The command that continues the run in the store.
std::string resumeCommand(const MapArgs& args);
// The options that only mean something with --store, and those that do not go with it.
void checkStoreOptions(const MapArgs& args);

}  // namespace voxen::cli
