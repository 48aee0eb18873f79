// `voxen inspect RECORDING`: what a recording holds (format, points, fields and their types,
// the span of its times) and what `voxen map --input` would take from it by default, read
// without opening a device.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "report/json_output.hpp"
#include "pcd_viewpoint_option.hpp"
#include "report/text_format.hpp"
#include "voxen/input/recording_info.hpp"
#include "voxen/input/trajectory.hpp"

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

// A span of time to 4 significant digits in the unit that reads best: "10 s", "290 ms", "10 ns".
std::string durationText(double seconds) {
  struct Unit {
    double seconds;
    const char* name;
  };
  for (const Unit u : {Unit{86400.0, "days"}, Unit{3600.0, "h"}, Unit{1.0, "s"}, Unit{1e-3, "ms"}, Unit{1e-6, "us"}})
    if (seconds >= (u.seconds >= 3600.0 ? 2 * u.seconds : u.seconds)) return formatSignificant(seconds / u.seconds, 4) + " " + u.name;
  return formatSignificant(seconds / 1e-9, 4) + " ns";
}

// The time-span line in words. A ROS recording's stamps are seconds; KITTI's times.txt too. A
// PLY or PCD time field carries no unit: both common readings, and what voxen map does with it.
std::string timesText(const RecordingInfo& info) {
  const auto [lo, hi] = *info.times;
  const double span = hi - lo;
  std::string text = "times: " + formatTime(lo) + " to " + formatTime(hi);
  // Absolute stamps say what clock they are on.
  const char* clock = lo >= 1e9 && lo < 1e10 ? " (Unix time in seconds)" : lo >= 1e18 && lo < 1e19 ? " (Unix time in nanoseconds)" : "";
  if (info.format == InputFormat::RosBag || info.format == InputFormat::Mcap)
    return text + " s, the messages' stamps" + clock + ": a span of " + durationText(span);
  if (info.format == InputFormat::KittiSequence) return text + " s, the scans' times: a span of " + durationText(span);
  if (info.format == InputFormat::TumRgbd) return text + " s, the depth images' times: a span of " + durationText(span);
  return text + clock + " in field '" + info.timeField + "', which names no unit: a span of " + durationText(span) +
         " if in seconds, " + durationText(span * 1e-9) + " if in nanoseconds; voxen map compares them with the "
         "trajectory's times as they are (one unit and clock) and refuses times that do not fit its span, naming "
         "the unit they would fit in";
}

// Why a map of the recording can have fewer rays (and hit samples) than it has points: the
// reader's skips (RayLoadStats) and the integrator's rejections and clips (IntegrationStats).
std::string raysText(const RecordingInfo& info) {
  return "rays: voxen map makes one ray per point; of these " + countText(info.points, "point") +
         ", it skips those with NaN/inf coordinates (as lidars write for no return), times outside the poses' "
         "span, or inside --exclude-box or nearer than --min-range, and rejects rays too far from the map's origin "
         "(its summary counts each reason); a ray longer than --max-range is clipped: free space, no hit sample";
}

int inspect(const CommonOptions& options, const std::string& path, std::optional<PcdViewpoint> pcdViewpoint) {
  const RecordingInfo info = inspectRecording(path, pcdViewpoint);
  printSettingWarnings("inspect", info.warnings);
  if (options.json) {
    Json fields = Json::array();
    for (const auto& f : info.fields) fields.push_back({{"name", f.name}, {"type", f.type}});
    Json depthTopics = Json::array();
    for (const auto& d : info.depthTopics)
      depthTopics.push_back({{"name", d.name}, {"type", d.type}, {"encoding", d.encoding}, {"width", d.width},
                             {"height", d.height}, {"messages", d.messages}, {"camera_info", d.cameraInfo}});
    Json colourTopics = Json::array();
    for (const auto& c : info.colourTopics)
      colourTopics.push_back({{"name", c.name}, {"type", c.type}, {"encoding", c.encoding}, {"width", c.width},
                              {"height", c.height}, {"messages", c.messages}, {"note", c.note.empty() ? Json(nullptr) : Json(c.note)}});
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
               {"depth_topics", depthTopics},
               {"color_topics", colourTopics},
               {"cloud_topic", info.cloudTopic.empty() ? Json(nullptr) : Json(info.cloudTopic)},
               {"sensor_frame", info.sensorFrame.empty() ? Json(nullptr) : Json(info.sensorFrame)},
               {"fixed_frame", info.fixedFrame.empty() ? Json(nullptr) : Json(info.fixedFrame)}});
    return 0;
  }
  std::printf("%s: %s", path.c_str(), inputFormatName(info.format));
  if (!info.layout.empty()) std::printf(" (%s)", info.layout.c_str());
  std::printf(", %s\n", countText(info.points, "point").c_str());
  for (const auto& t : info.topics)
    std::printf("topic %s: %s (%s), %s\n", t.name.c_str(), t.type.c_str(), t.encoding.c_str(),
                countText(t.messages, "message").c_str());
  for (const auto& f : info.frames) std::printf("tf %s\n", f.c_str());
  for (const auto& d : info.depthTopics)
    std::printf("depth images %s: %s %s, %u x %u, %s; camera %s\n", d.name.c_str(), d.type.c_str(), d.encoding.c_str(),
                d.width, d.height, countText(d.messages, "image").c_str(), d.cameraInfo.c_str());
  for (const auto& c : info.colourTopics)
    std::printf("colour images %s: %s %s, %u x %u, %s%s%s\n", c.name.c_str(), c.type.c_str(), c.encoding.c_str(), c.width,
                c.height, countText(c.messages, "image").c_str(), c.note.empty() ? "" : "; ", c.note.c_str());
  if (!info.fields.empty()) {
    std::string list;
    for (const auto& f : info.fields) list += (list.empty() ? "" : ", ") + f.name + " " + f.type;
    std::printf("fields: %s\n", list.c_str());
  }
  if (info.times) std::printf("%s\n", timesText(info).c_str());
  for (const auto& note : info.notes) std::printf("%s\n", note.c_str());
  if (info.points > 0) std::printf("%s\n", raysText(info).c_str());
  std::printf("voxen map would read: %s\n", mapDefault(info).c_str());
  return 0;
}

CommandRun setupInspect(CLI::App& command) {
  auto path = std::make_shared<std::string>();
  auto pcdViewpoint = std::make_shared<std::optional<PcdViewpoint>>();
  command.add_option("recording", *path, "a ROS 1 bag, an MCAP file, a PLY, PCD or KITTI .bin file, or a folder of PCD files, a KITTI sequence or a TUM RGB-D folder")
      ->type_name("FILE_OR_FOLDER")
      ->required();
  addPcdViewpointOption(command, *pcdViewpoint);
  return [path, pcdViewpoint](const CommonOptions& options) { return inspect(options, *path, *pcdViewpoint); };
}

}  // namespace

static CommandRegistration registration{"inspect", "what a recording holds and what voxen map would read from it",
                                        &setupInspect, Uses::Json};

}  // namespace voxen::cli
