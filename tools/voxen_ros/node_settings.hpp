#pragma once
// The node's settings from its parameters (private namespace, ~name), read once at start-up. They mirror
// `voxen map`'s flags (docs/ros1.md has the table): the same defaults, so that the node and
// `voxen map --input BAG` make the same map from the same clouds.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "engine_bridge.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/mapper.hpp"

namespace voxen {
class SettingError;
}

namespace voxen_ros {

struct NodeSettings {
  // The map: model (model, resolution, region, hit, miss, threshold, clamp_min, clamp_max),
  // ray flags and max_range, update_order, batch_size, gpu_cache_mb; backend from `device`.
  voxen::MapperOptions mapper;
  // Which clouds and frames: cloud_topic, fixed_frame (empty: the root of the tf tree above
  // the sensor frame), sensor_frame (empty: the clouds' header.frame_id), deskew.
  std::string cloudTopic = "points";
  std::string fixedFrame, sensorFrame;
  bool deskew = true;
  voxen::SensorExclusion exclusion;  // min_range, exclude_box
  // Where the map is saved at shutdown (empty: not saved) and by the save service's default.
  std::filesystem::path output;
  // Clearance layer of this range (metres) computed with each publication (0: none).
  double clearanceRange = 0.0;
  // The heightmap behind the OccupancyGrid, and its Nav2 level / max cost.
  voxen::HeightmapOptions heightmap;
  uint32_t gridLevel = 0;
  std::optional<uint32_t> gridMaxCost;
  // Publications per second (snapshot, grid, cloud, markers, status).
  double publishRate = 1.0;
  // Clouds waiting for the mapping thread; a cloud arriving at a full queue is dropped whole.
  uint32_t queueSize = 10;
  // Seconds a cloud waits for tf to cover its points' times before it is posed with what tf
  // holds (points outside are skipped and counted, as voxen map skips them).
  double tfWait = 1.0;
  // Seconds the first cloud waits for a second one to tell its time field's reference (as
  // voxen map reads the topic's first two clouds) before it is decided alone.
  double layoutWait = 2.0;
  // Seconds without any cloud before the node warns, naming the topics it sees.
  double cloudTimeout = 10.0;
  // Seconds of tf history kept (older transforms are pruned).
  double tfHistory = 60.0;
};

// The settings from the parameters set (the others keep voxen map's defaults). Throws
// std::runtime_error naming the parameter (~name) for a value out of range.
NodeSettings readSettings(const Parameters& parameters);

// A library setting error in the node's words: the parameter it concerns (~resolution) where
// the error names a field the parameters set.
std::string settingErrorText(const voxen::SettingError& e);

// One line for the log: the model and the main settings.
std::string settingsText(const NodeSettings& settings);

}  // namespace voxen_ros
