// A camera from ROS's camera_calibration YAML file (what camera_calibration and
// camera_info_manager write, and what OpenCV's FileStorage writes with !!opencv-matrix tags):
//   image_width: 640
//   image_height: 480
//   camera_matrix: {rows: 3, cols: 3, data: [fx, 0, cx, 0, fy, cy, 0, 0, 1]}  (block or flow)
//   distortion_model: plumb_bob
//   distortion_coefficients: {rows: 1, cols: 5, data: [k1, k2, p1, p2, k3]}
//   rectification_matrix: {rows: 3, cols: 3, data: [...]}
//   projection_matrix: {rows: 3, cols: 4, data: [...]}
// A small reader for this one shape (keys at two levels, numbers, flow sequences over several
// lines), not a YAML parser: anything else is an Error naming the file and line.
#include "depth/camera_yaml.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "voxen/host/error.hpp"
#include "voxen/input/input_file.hpp"

namespace voxen::detail {

namespace {

struct Value {
  std::string text;
  size_t line = 0;
};

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

// "key: value" pairs by "parent.child" (flow maps "{rows: 3, data: [..]}" opened into children).
std::map<std::string, Value> readPairs(const std::filesystem::path& path) {
  std::ifstream in = openInputFile(path, "camera calibration");
  std::map<std::string, Value> pairs;
  std::string line, parent, pendingKey, pending;
  size_t number = 0, pendingLine = 0;
  const auto fail = [&](size_t at, const std::string& why) {
    throw Error(path.string() + ":" + std::to_string(at) + ": " + why);
  };
  const auto store = [&](const std::string& key, std::string value, size_t at) {
    value = trim(value);
    if (value.starts_with("!!")) value = trim(value.substr(value.find_first_of(" \t") == std::string::npos ? value.size()
                                                                                                             : value.find_first_of(" \t")));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    if (value.starts_with("{")) {
      if (!value.ends_with("}")) fail(at, "'" + key + "': a flow map that does not end on its line");
      std::string inner = value.substr(1, value.size() - 2);
      // Split at commas outside brackets.
      int depth = 0;
      std::string part;
      std::vector<std::string> parts;
      for (const char c : inner) {
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (c == ',' && depth == 0) parts.push_back(part), part.clear();
        else part += c;
      }
      parts.push_back(part);
      for (const std::string& p : parts) {
        const size_t colon = p.find(':');
        if (colon == std::string::npos) fail(at, "'" + key + "': '" + trim(p) + "' is no 'key: value'");
        pairs[key + "." + trim(p.substr(0, colon))] = {trim(p.substr(colon + 1)), at};
      }
      return;
    }
    pairs[key] = {value, at};
  };
  while (std::getline(in, line)) {
    ++number;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    if (!pending.empty()) {  // a flow sequence continued
      pending += " " + trim(line);
      if (pending.find(']') != std::string::npos) store(pendingKey, pending, pendingLine), pending.clear();
      continue;
    }
    const std::string text = trim(line);
    if (text.empty() || text.starts_with("%YAML") || text == "---") continue;
    const bool indented = line[0] == ' ' || line[0] == '\t';
    const size_t colon = text.find(':');
    if (colon == std::string::npos) fail(number, "'" + text + "' is no 'key: value' line");
    const std::string key = trim(text.substr(0, colon));
    const std::string value = trim(text.substr(colon + 1));
    if (!indented) parent = key;
    if (indented && parent.empty()) fail(number, "an indented line before any key");
    const std::string full = indented ? parent + "." + key : key;
    if (value.starts_with("[") && value.find(']') == std::string::npos) {
      pending = value, pendingKey = full, pendingLine = number;
      continue;
    }
    if (!value.empty() || indented) store(full, value, number);
  }
  if (!pending.empty()) fail(pendingLine, "'" + pendingKey + "': a sequence '[' without its ']'");
  return pairs;
}

std::vector<double> numbers(const std::filesystem::path& path, const std::string& key, const Value& v) {
  std::string text = trim(v.text);
  const auto fail = [&](const std::string& why) {
    throw Error(path.string() + ":" + std::to_string(v.line) + ": " + key + ": " + why);
  };
  if (!text.starts_with("[") || !text.ends_with("]")) fail("expected a list of numbers [a, b, ...], got '" + text + "'");
  text = text.substr(1, text.size() - 2);
  std::vector<double> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    item = trim(item);
    if (item.empty()) {
      if (out.empty() && trim(text).empty()) break;
      fail("an empty item");
    }
    char* end = nullptr;
    const double d = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0') fail("'" + item + "' is not a number");
    out.push_back(d);
  }
  return out;
}

}  // namespace

ros::CameraInfo loadCameraYaml(const std::filesystem::path& path) {
  const std::map<std::string, Value> pairs = readPairs(path);
  const std::string name = path.string();
  const auto find = [&](const std::string& key) -> const Value* {
    const auto it = pairs.find(key);
    return it == pairs.end() ? nullptr : &it->second;
  };
  const auto integer = [&](const std::string& key) {
    const Value* v = find(key);
    if (!v) throw Error(name + ": has no " + key + " (a camera_calibration file names image_width, image_height and camera_matrix)");
    char* end = nullptr;
    const long n = std::strtol(v->text.c_str(), &end, 10);
    if (end == v->text.c_str() || *end != '\0' || n <= 0 || n > 1 << 20)
      throw Error(name + ":" + std::to_string(v->line) + ": " + key + ": '" + v->text + "' is not a positive whole number");
    return uint32_t(n);
  };
  const auto matrix = [&](const std::string& key, size_t count, bool required, double* out) {
    const Value* v = find(key + ".data");
    if (!v) {
      if (required) throw Error(name + ": has no " + key + ".data (" + std::to_string(count) + " numbers)");
      return false;
    }
    const std::vector<double> values = numbers(path, key + ".data", *v);
    if (values.size() != count)
      throw Error(name + ":" + std::to_string(v->line) + ": " + key + ".data holds " + std::to_string(values.size()) +
                  " numbers, not " + std::to_string(count));
    for (size_t i = 0; i < count; ++i) out[i] = values[i];
    return true;
  };
  ros::CameraInfo info;
  info.width = integer("image_width");
  info.height = integer("image_height");
  matrix("camera_matrix", 9, true, info.k.data());
  if (!matrix("rectification_matrix", 9, false, info.r.data())) info.r = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  matrix("projection_matrix", 12, false, info.p.data());
  if (const Value* model = find("distortion_model")) info.distortionModel = model->text;
  if (const Value* d = find("distortion_coefficients.data")) info.d = numbers(path, "distortion_coefficients.data", *d);
  if (info.distortionModel.empty() && !info.d.empty()) info.distortionModel = "plumb_bob";
  return info;
}

}  // namespace voxen::detail
