// `voxen inspect RECORDING`: what a recording holds (format, points, fields and their types,
// the span of its times) and what `voxen map --input` would take from it by default, read
// without opening a device.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "json_output.hpp"
#include "pcd_viewpoint_option.hpp"
#include "text_format.hpp"
#include "voxen/io/recording_info.hpp"
#include "voxen/io/trajectory.hpp"

namespace voxen::cli {

namespace {

// The sentence a user needs: which fields become the rays, and where the origins come from.
std::string mapDefault(const RecordingInfo& info) {
  std::string text = "x, y, z";
  if (info.format == InputFormat::RosBag || info.format == InputFormat::Mcap) {
    if (info.origins.empty()) return "nothing by default: " + info.withoutTrajectory;
    text = "the clouds of " + info.cloudTopic + " (frame " + info.sensorFrame + ") posed in frame " + info.fixedFrame +
           ": " + text;
  }
  if (!info.timeField.empty()) text += "; time from " + info.timeField;
  if (!info.intensityField.empty()) text += "; intensity from " + info.intensityField;
  if (!info.origins.empty()) return text + "; origins from " + info.origins;
  if (info.timeField.empty()) return "nothing: " + info.withoutTrajectory;
  // The reader's refusal is long and names every field: the fields are listed above already.
  return text + "; origins need --trajectory TRAJ.txt, interpolated at each point's time (the recording carries no "
                "sensor origins)";
}

int inspect(const CommonOptions& options, const std::string& path, std::optional<PcdViewpoint> pcdViewpoint) {
  const RecordingInfo info = inspectRecording(path, pcdViewpoint);
  printSettingWarnings("inspect", info.warnings);
  if (options.json) {
    Json fields = Json::array();
    for (const auto& f : info.fields) fields.push_back({{"name", f.name}, {"type", f.type}});
    Json topics = Json::array();
    for (const auto& t : info.topics)
      topics.push_back({{"name", t.name}, {"type", t.type}, {"encoding", t.encoding}, {"messages", t.messages}});
    printJson({{"file", path},
               {"format", inputFormatName(info.format)},
               {"layout", info.layout},
               {"points", info.points},
               {"fields", fields},
               {"time_field", info.timeField.empty() ? Json(nullptr) : Json(info.timeField)},
               {"time_min", info.times ? Json(info.times->first) : Json(nullptr)},
               {"time_max", info.times ? Json(info.times->second) : Json(nullptr)},
               {"intensity_field", info.intensityField.empty() ? Json(nullptr) : Json(info.intensityField)},
               {"origins", info.origins.empty() ? Json(nullptr) : Json(info.origins)},
               {"map_default", mapDefault(info)},
               {"notes", info.notes},
               {"pcd_viewpoint", pcdViewpoint ? Json(pcdViewpointName(*pcdViewpoint)) : Json(nullptr)},
               {"topics", topics},
               {"tf", info.frames},
               {"cloud_topic", info.cloudTopic.empty() ? Json(nullptr) : Json(info.cloudTopic)},
               {"sensor_frame", info.sensorFrame.empty() ? Json(nullptr) : Json(info.sensorFrame)},
               {"fixed_frame", info.fixedFrame.empty() ? Json(nullptr) : Json(info.fixedFrame)}});
    return 0;
  }
  std::printf("%s: %s", path.c_str(), inputFormatName(info.format));
  if (!info.layout.empty()) std::printf(" (%s)", info.layout.c_str());
  std::printf(", %s points\n", withCommas(info.points).c_str());
  for (const auto& t : info.topics)
    std::printf("topic %s: %s (%s), %s messages\n", t.name.c_str(), t.type.c_str(), t.encoding.c_str(),
                withCommas(t.messages).c_str());
  for (const auto& f : info.frames) std::printf("tf %s\n", f.c_str());
  if (!info.fields.empty()) {
    std::string list;
    for (const auto& f : info.fields) list += (list.empty() ? "" : ", ") + f.name + " " + f.type;
    std::printf("fields: %s\n", list.c_str());
  }
  if (info.times)
    std::printf("times: %s to %s (%s s if in seconds)\n", formatTime(info.times->first).c_str(),
                formatTime(info.times->second).c_str(), formatTime(info.times->second - info.times->first).c_str());
  for (const auto& note : info.notes) std::printf("%s\n", note.c_str());
  std::printf("voxen map would read: %s\n", mapDefault(info).c_str());
  return 0;
}

CommandRun setupInspect(CLI::App& command) {
  auto path = std::make_shared<std::string>();
  auto pcdViewpoint = std::make_shared<std::optional<PcdViewpoint>>();
  command.add_option("recording", *path, "a ROS 1 bag, an MCAP file, a PLY, PCD or KITTI .bin file, or a folder of PCD files or a KITTI sequence")
      ->type_name("FILE_OR_FOLDER")
      ->required();
  addPcdViewpointOption(command, *pcdViewpoint);
  return [path, pcdViewpoint](const CommonOptions& options) { return inspect(options, *path, *pcdViewpoint); };
}

}  // namespace

static CommandRegistration registration{"inspect", "what a recording holds and what voxen map would read from it",
                                        &setupInspect, Uses::Json};

}  // namespace voxen::cli
