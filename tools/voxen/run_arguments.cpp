#include "run_arguments.hpp"

#include <algorithm>
#include <filesystem>

#include "report/json_output.hpp"
#include "voxen/host/error.hpp"

namespace voxen::cli {

namespace {

bool sameOption(const std::string& a, const std::string& b, const std::vector<std::set<std::string>>& alike) {
  if (a == b) return true;
  return std::any_of(alike.begin(), alike.end(), [&](const std::set<std::string>& group) { return group.contains(a) && group.contains(b); });
}

}  // namespace

GivenOptions givenOptions(const CLI::App& command, const std::set<std::string>& names, const std::set<std::string>& paths) {
  GivenOptions given;
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0 || option->get_lnames().empty()) continue;
    const std::string name = "--" + option->get_lnames().front();
    if (!names.contains(name)) continue;
    GivenOption o{name, {}, option->get_type_size_max() == 0};
    if (!o.flag) o.values = option->results();
    if (paths.contains(name))
      for (std::string& value : o.values) {
        std::error_code ec;
        const std::filesystem::path absolute = std::filesystem::absolute(value, ec);
        if (!ec) value = absolute.lexically_normal().string();
      }
    given.push_back(std::move(o));
  }
  return given;
}

std::string encodeOptions(const GivenOptions& options) {
  Json list = Json::array();
  for (const GivenOption& o : options) {
    Json entry = Json::array({o.name});
    if (o.flag) entry.push_back(nullptr);  // [name, null]: a flag
    for (const std::string& value : o.values) entry.push_back(value);
    list.push_back(entry);
  }
  return list.dump(-1, ' ', false, Json::error_handler_t::replace);
}

GivenOptions decodeOptions(const std::string& text, const std::string& what) {
  GivenOptions options;
  try {
    const Json list = Json::parse(text);
    for (const Json& entry : list) {
      GivenOption o;
      o.name = entry.at(0).get<std::string>();
      o.flag = entry.size() == 2 && entry.at(1).is_null();
      if (!o.flag)
        for (size_t i = 1; i < entry.size(); ++i) o.values.push_back(entry.at(i).get<std::string>());
      if (!o.name.starts_with("--")) throw std::runtime_error("'" + o.name + "' is not an option");
      options.push_back(std::move(o));
    }
  } catch (const std::exception& e) {
    throw Error(what + " is not a list of options: " + e.what());
  }
  return options;
}

GivenOptions mergedOptions(const GivenOptions& recorded, const GivenOptions& given, const std::vector<std::set<std::string>>& alike) {
  GivenOptions merged;
  std::vector<bool> used(given.size(), false);
  for (const GivenOption& r : recorded) {
    bool replaced = false;
    for (size_t i = 0; i < given.size(); ++i)
      if (sameOption(r.name, given[i].name, alike)) {
        if (!used[i]) merged.push_back(given[i]);
        used[i] = replaced = true;
      }
    if (!replaced) merged.push_back(r);
  }
  for (size_t i = 0; i < given.size(); ++i)
    if (!used[i]) merged.push_back(given[i]);
  return merged;
}

std::vector<std::string> argumentsOf(const GivenOptions& options) {
  std::vector<std::string> arguments;
  for (const GivenOption& o : options) {
    if (o.flag || o.values.empty()) {
      arguments.push_back(o.name);
    } else if (o.values.size() == 1) {
      arguments.push_back(o.name + "=" + o.values.front());  // a value that starts with '-' stays a value
    } else {
      arguments.push_back(o.name);
      arguments.insert(arguments.end(), o.values.begin(), o.values.end());
    }
  }
  return arguments;
}

}  // namespace voxen::cli
