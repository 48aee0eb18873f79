#include "voxen/host/setting_error.hpp"

#include <utility>

namespace voxen {

namespace {

std::string substitute(const std::string& text, const std::string& name, const std::string& value) {
  const std::string named = value.empty() ? name : name + " (now " + value + ")";
  const size_t at = text.find("{}");
  return at == std::string::npos ? text : text.substr(0, at) + named + text.substr(at + 2);
}

}  // namespace

SettingError::SettingError(Kind kind, std::string field, std::string words, std::string text, std::string value)
    : Error(substitute(text, words, value)),
      kind_(kind),
      field_(std::move(field)),
      words_(std::move(words)),
      text_(std::move(text)),
      value_(std::move(value)) {}

std::string SettingError::naming(const std::string& name) const { return substitute(text_, name, value_); }

SettingError SettingError::withContext(const std::string& context) const {
  return SettingError(kind_, field_, words_, context + text_, value_);
}

}  // namespace voxen
