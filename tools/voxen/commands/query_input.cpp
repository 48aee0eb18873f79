#include "commands/query_input.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "voxen/host/error.hpp"
#include "voxen/input/ply.hpp"
#include "voxen_apps/number_checks.hpp"

namespace voxen::cli {

namespace {

bool isPly(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[3] = {};
  in.read(magic, 3);
  return in.gcount() == 3 && std::string(magic, 3) == "ply";
}

const char* layout(size_t width) { return width == 3 ? "x y z" : width == 4 ? "x y z yaw" : "ox oy oz dx dy dz"; }

QueryInput readText(const std::string& path, size_t width) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open for reading");
  QueryInput input;
  input.path = path;
  input.width = width;
  std::string line;
  uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    size_t pos = line.find_first_not_of(" \t\r");
    if (pos == std::string::npos || line[pos] == '#') continue;
    size_t found = 0;
    while (pos != std::string::npos) {
      const size_t end = line.find_first_of(" \t\r", pos);
      const std::string word = line.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
      const std::optional<double> value = apps::parseFinite(word);
      if (!value)
        throw Error(path + ":" + std::to_string(number) + ": '" + word + "' is not a finite number (expected " +
                    std::to_string(width) + " numbers: " + layout(width) + ")");
      if (++found > width)
        throw Error(path + ":" + std::to_string(number) + ": more than " + std::to_string(width) + " numbers (expected " +
                    layout(width) + ")");
      input.values.push_back(*value);
      pos = end == std::string::npos ? end : line.find_first_not_of(" \t\r", end);
    }
    if (found < width)
      throw Error(path + ":" + std::to_string(number) + ": " + std::to_string(found) + " numbers, expected " +
                  std::to_string(width) + " (" + layout(width) + ")");
    input.lines.push_back(number);
  }
  if (in.bad()) throw Error(path + ": read error");
  return input;
}

QueryInput readPly(const std::string& path, size_t width) {
  PlyReader reader(path);
  std::vector<std::string> names{"x", "y", "z"};
  if (width == 6) {
    if (reader.findProperty("ox")) names = {"ox", "oy", "oz"};
    names.insert(names.end(), {"dx", "dy", "dz"});
  }
  if (width == 4) names.push_back("yaw");
  reader.selectColumns(names);
  QueryInput input;
  input.path = path;
  input.width = width;
  while (reader.read(input.values, size_t(1) << 16) > 0) {
  }
  for (size_t i = 0; i < input.values.size(); ++i)
    if (!std::isfinite(input.values[i]))
      throw Error(path + ": vertex " + std::to_string(i / width) + ": " + names[i % width] + " is not finite");
  return input;
}

}  // namespace

QueryPaths readQueryPaths(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw Error(path + ": is a directory, not a file of paths");
  if (!std::filesystem::exists(path, error)) throw Error(path + ": no such file");
  if (isPly(path)) throw Error(path + ": paths are read from text (x1 y1 z1 x2 y2 z2 ... per line), not PLY");
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open for reading");
  QueryPaths paths;
  paths.points.path = path;
  std::string line;
  uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    size_t pos = line.find_first_not_of(" \t\r");
    if (pos == std::string::npos || line[pos] == '#') continue;
    size_t found = 0;
    while (pos != std::string::npos) {
      const size_t end = line.find_first_of(" \t\r", pos);
      const std::string word = line.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
      const std::optional<double> value = apps::parseFinite(word);
      if (!value)
        throw Error(path + ":" + std::to_string(number) + ": '" + word +
                    "' is not a finite number (expected x1 y1 z1 x2 y2 z2 ...: a path of at least two points)");
      paths.points.values.push_back(*value);
      ++found;
      pos = end == std::string::npos ? end : line.find_first_not_of(" \t\r", end);
    }
    if (found % 3 != 0)
      throw Error(path + ":" + std::to_string(number) + ": " + std::to_string(found) +
                  " numbers, not a whole number of points (x y z each)");
    if (found < 6)
      throw Error(path + ":" + std::to_string(number) + ": " + std::to_string(found / 3) +
                  " point(s): a path needs at least two (x1 y1 z1 x2 y2 z2 ...)");
    paths.offsets.push_back(paths.points.values.size() / 3);
    paths.points.lines.push_back(number);
  }
  if (in.bad()) throw Error(path + ": read error");
  return paths;
}

std::string QueryInput::where(size_t i) const {
  if (!lines.empty()) return path + ":" + std::to_string(lines.at(i));
  return path + ": vertex " + std::to_string(i);
}

QueryInput readQueryInput(const std::string& path, size_t width) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw Error(path + ": is a directory, not a file of " + (width == 3 ? "points" : "rays"));
  if (!std::filesystem::exists(path, error)) throw Error(path + ": no such file");
  return isPly(path) ? readPly(path, width) : readText(path, width);
}

}  // namespace voxen::cli
