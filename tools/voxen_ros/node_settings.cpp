#include "node_settings.hpp"

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "voxen/host/setting_error.hpp"

namespace voxen_ros {

namespace {

// The parameter a library setting error names, by the field it reports.
const std::map<std::string, std::string>& parameterOfField() {
  static const std::map<std::string, std::string> names = {
      {"OccupancyModel::resolution", "~resolution"},
      {"OccupancyModel::regionSize", "~region"},
      {"OccupancyModel::hitProbability", "~hit"},
      {"OccupancyModel::missProbability", "~miss"},
      {"OccupancyModel::occupancyThreshold", "~threshold"},
      {"OccupancyModel::clamp", "~clamp_min and ~clamp_max"},
      {"GpuIntegratorOptions::cacheBytes", "~gpu_cache_mb"},
      {"GpuIntegratorOptions::maxRaysPerBatch", "~batch_size"},
      {"IntegrationOptions::maxRange", "~max_range"},
      {"HeightmapOptions::robotHeight", "~robot_height"},
      {"HeightmapOptions::maxSlopeDegrees", "~max_slope"},
      {"HeightmapOptions::maxStep", "~max_step"},
      {"HeightmapOptions::levels", "~grid_level"},
  };
  return names;
}

[[noreturn]] void refuse(const std::string& name, const std::string& why) {
  throw std::runtime_error("parameter ~" + name + ": " + why);
}

// A parameter set with a number: an integer value is a number too (ROS keeps 1 and 1.0 apart).
double number(const Parameters& p, const std::string& name, double fallback, double lo, double hi) {
  double v = fallback;
  if (const auto it = p.numbers.find(name); it != p.numbers.end()) v = it->second;
  else if (const auto i = p.integers.find(name); i != p.integers.end()) v = i->second;
  if (!(v >= lo && v <= hi)) {
    std::ostringstream s;
    s << "must be in [" << lo << ", " << hi << "], got " << v;
    refuse(name, s.str());
  }
  return v;
}

int integer(const Parameters& p, const std::string& name, int fallback, int lo, int hi) {
  int v = fallback;
  if (const auto it = p.integers.find(name); it != p.integers.end()) v = it->second;
  else if (const auto n = p.numbers.find(name); n != p.numbers.end()) {
    if (n->second != std::floor(n->second)) refuse(name, "must be an integer, got " + std::to_string(n->second));
    v = int(n->second);
  }
  if (v < lo || v > hi) refuse(name, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + std::to_string(v));
  return v;
}

bool flag(const Parameters& p, const std::string& name, bool fallback) {
  const auto it = p.flags.find(name);
  return it == p.flags.end() ? fallback : it->second;
}

std::string text(const Parameters& p, const std::string& name, const std::string& fallback) {
  const auto it = p.texts.find(name);
  return it == p.texts.end() ? fallback : it->second;
}

}  // namespace

NodeSettings readSettings(const Parameters& priv) {
  NodeSettings s;
  // The model: a preset, then the values given (as voxen map's --model and the flags after it).
  const std::string model = text(priv, "model", "ohm");
  if (model != "ohm" && model != "octomap") refuse("model", "must be ohm or octomap, got '" + model + "'");
  voxen::OccupancyModel m = model == "octomap" ? voxen::OccupancyModel::octomap() : voxen::OccupancyModel::ohm();
  m.resolution = number(priv, "resolution", m.resolution, 0.0001, 1000.0);
  m.regionSize = integer(priv, "region", m.regionSize, 4, 128);
  m.hitProbability = float(number(priv, "hit", m.hitProbability, 0.5, 0.999999));
  m.missProbability = float(number(priv, "miss", m.missProbability, 1e-6, 0.5));
  m.occupancyThreshold = float(number(priv, "threshold", m.occupancyThreshold, 1e-6, 0.999999));
  m.clampMin = float(number(priv, "clamp_min", m.clampMin, -100.0, 0.0));
  m.clampMax = float(number(priv, "clamp_max", m.clampMax, 0.0, 100.0));
  try {
    m.validate();
  } catch (const voxen::SettingError& e) {
    throw std::runtime_error(settingErrorText(e));
  }
  s.mapper.model = m;

  voxen::IntegrationOptions& integration = s.mapper.run.integration;
  integration.maxRange = number(priv, "max_range", 0.0, 0.0, 1e6);
  using voxen::RayFlag;
  const std::pair<const char*, RayFlag> flags[] = {{"end_point_as_free", RayFlag::EndPointAsFree},
                                                   {"exclude_origin", RayFlag::ExcludeOrigin},
                                                   {"exclude_sample", RayFlag::ExcludeSample},
                                                   {"stop_on_occupied", RayFlag::StopOnFirstOccupied},
                                                   {"forward_walk", RayFlag::ForwardWalk}};
  for (const auto& [name, bit] : flags)
    if (flag(priv, name, false)) integration.flags |= bit;
  const std::string order = text(priv, "update_order", "sequential");
  if (order == "sequential") integration.order = voxen::UpdateOrder::Sequential;
  else if (order == "two-phase") integration.order = voxen::UpdateOrder::TwoPhase;
  else refuse("update_order", "must be sequential or two-phase, got '" + order + "' (a live map is integrated cloud by cloud)");
  s.mapper.run.gpu.maxRaysPerBatch = uint32_t(integer(priv, "batch_size", int(s.mapper.run.gpu.maxRaysPerBatch), 1, 4194304));
  s.mapper.run.gpu.cacheBytes = uint64_t(integer(priv, "gpu_cache_mb", int(s.mapper.run.gpu.cacheBytes >> 20), 1, 1048576)) << 20;
  const std::string device = text(priv, "device", "gpu");
  if (device == "gpu") s.mapper.run.backend = voxen::MapperBackend::Gpu;
  else if (device == "cpu") s.mapper.run.backend = voxen::MapperBackend::CpuReference;
  else refuse("device", "must be gpu or cpu (the CPU reference: the same map bit for bit), got '" + device + "'");

  s.cloudTopic = text(priv, "cloud_topic", s.cloudTopic);
  if (s.cloudTopic.empty()) refuse("cloud_topic", "must name the sensor_msgs/PointCloud2 topic");
  s.fixedFrame = text(priv, "fixed_frame", "");
  s.sensorFrame = text(priv, "sensor_frame", "");
  s.deskew = flag(priv, "deskew", true);
  s.exclusion.minRange = number(priv, "min_range", 0.0, 0.0, 1e6);
  if (const auto it = priv.lists.find("exclude_box"); it != priv.lists.end()) {
    const std::vector<double>& box = it->second;
    if (box.size() != 6) refuse("exclude_box", "must be [xmin, ymin, zmin, xmax, ymax, zmax], got " + std::to_string(box.size()) + " numbers");
    for (int a = 0; a < 3; ++a)
      if (!(box[a] <= box[a + 3])) refuse("exclude_box", std::string(1, "xyz"[a]) + "min is greater than " + std::string(1, "xyz"[a]) + "max");
    s.exclusion.box = std::array<glm::dvec3, 2>{glm::dvec3(box[0], box[1], box[2]), glm::dvec3(box[3], box[4], box[5])};
  }
  s.output = text(priv, "output", "");
  s.clearanceRange = number(priv, "clearance", 0.0, 0.0, 10000.0);

  s.heightmap.robotHeight = number(priv, "robot_height", s.heightmap.robotHeight, 1e-6, 10000.0);
  s.heightmap.maxSlopeDegrees = number(priv, "max_slope", s.heightmap.maxSlopeDegrees, 0.0, 89.999);
  s.heightmap.maxStep = number(priv, "max_step", s.heightmap.maxStep, 0.0, 10000.0);
  // 7: the heightmap keeps at most 8 levels (kMaxHeightmapLevels).
  // At most 7: the heightmap keeps up to 8 levels (kMaxHeightmapLevels).
  s.gridLevel = uint32_t(integer(priv, "grid_level", 0, 0, 7));
  s.heightmap.levels = std::max(s.heightmap.levels, s.gridLevel + 1);
  if (const int maxCost = integer(priv, "grid_max_cost", -1, -1, 100); maxCost >= 0) s.gridMaxCost = uint32_t(maxCost);
  try {
    s.heightmap.validate(m.resolution);
  } catch (const voxen::SettingError& e) {
    throw std::runtime_error(settingErrorText(e));
  }

  s.publishRate = number(priv, "publish_rate", s.publishRate, 0.01, 1000.0);
  s.queueSize = uint32_t(integer(priv, "queue_size", int(s.queueSize), 1, 100000));
  s.tfWait = number(priv, "tf_wait", s.tfWait, 0.0, 3600.0);
  s.layoutWait = number(priv, "layout_wait", s.layoutWait, 0.0, 3600.0);
  s.cloudTimeout = number(priv, "cloud_timeout", s.cloudTimeout, 0.1, 1e6);
  s.tfHistory = number(priv, "tf_history", s.tfHistory, 1.0, 1e6);
  return s;
}

const std::vector<ParameterSpec>& parameterSpecs() {
  using K = ParameterKind;
  static const std::vector<ParameterSpec> specs = {
      {"model", K::Text},          {"resolution", K::Number},     {"region", K::Integer},
      {"hit", K::Number},          {"miss", K::Number},           {"threshold", K::Number},
      {"clamp_min", K::Number},    {"clamp_max", K::Number},      {"max_range", K::Number},
      {"end_point_as_free", K::Flag}, {"exclude_origin", K::Flag}, {"exclude_sample", K::Flag},
      {"stop_on_occupied", K::Flag}, {"forward_walk", K::Flag},   {"update_order", K::Text},
      {"batch_size", K::Integer},  {"gpu_cache_mb", K::Integer},  {"device", K::Text},
      {"cloud_topic", K::Text},    {"fixed_frame", K::Text},      {"sensor_frame", K::Text},
      {"deskew", K::Flag},         {"min_range", K::Number},      {"exclude_box", K::List},
      {"output", K::Text},         {"clearance", K::Number},      {"robot_height", K::Number},
      {"max_slope", K::Number},    {"max_step", K::Number},       {"grid_level", K::Integer},
      {"grid_max_cost", K::Integer}, {"publish_rate", K::Number}, {"queue_size", K::Integer},
      {"tf_wait", K::Number},      {"layout_wait", K::Number},    {"cloud_timeout", K::Number},
      {"tf_history", K::Number},
  };
  return specs;
}

std::string settingErrorText(const voxen::SettingError& e) {
  const auto& names = parameterOfField();
  const auto it = names.find(e.field());
  return it == names.end() ? std::string(e.what()) : e.naming("parameter " + it->second);
}

std::string settingsText(const NodeSettings& s) {
  const voxen::OccupancyModel& m = s.mapper.model;
  std::ostringstream o;
  o << "resolution " << m.resolution << " m, region " << m.regionSize << "^3, hit " << m.hitProbability << ", miss "
    << m.missProbability << ", clamp [" << m.clampMin << ", " << m.clampMax << "], max_range "
    << s.mapper.run.integration.maxRange << ", " << voxen::updateOrderName(s.mapper.run.integration.order) << " order on "
    << (s.mapper.run.backend == voxen::MapperBackend::Gpu ? "the GPU" : "the CPU reference") << "; clouds from "
    << s.cloudTopic << (s.deskew ? " (deskewed)" : " (deskew off)") << ", fixed frame "
    << (s.fixedFrame.empty() ? std::string("the root of the tf tree") : s.fixedFrame) << "; publishing at "
    << s.publishRate << " Hz; output " << (s.output.empty() ? std::string("none") : s.output.string());
  return o.str();
}

}  // namespace voxen_ros
