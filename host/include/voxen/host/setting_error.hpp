#pragma once
// An error about one of the caller's settings: a value outside its range (Kind::Invalid), or
// one that the input at hand needs changed (Kind::Change: "... raise the GPU region cache (now
// 64 MiB)"). field() names the setting as its struct spells it ("NdtModel::resetProbability"),
// so that a program with its own names for its settings (the voxen tool's flags) can say
// which one to change without the library knowing them: naming(name) is the message with the
// setting called `name`; what() calls it by the library's words ("reset probability").
#include <string>
#include <utility>

#include "voxen/host/error.hpp"

namespace voxen {

class SettingError : public Error {
 public:
  enum class Kind { Invalid, Change };
  // `text` has "{}" where the setting is named: "NDT model: {} must be in (0, 1), got 1", or
  // "... : raise {}". `value`, when given, is the setting's value now, in words ("64 MiB"),
  // written after its name: "raise the GPU region cache (now 64 MiB)".
  SettingError(Kind kind, std::string field, std::string words, std::string text, std::string value = "");
  Kind kind() const { return kind_; }
  const std::string& field() const { return field_; }
  std::string naming(const std::string& name) const;
  // The same error with `context` in front of its message ("map.vxm: ").
  SettingError withContext(const std::string& context) const;

 private:
  Kind kind_;
  std::string field_, words_, text_, value_;
};

// Thrown when the chosen device lacks something Voxen needs; names feature and device. When
// choosing another device is the remedy, field() is "DeviceOptions::selector".
class FeatureError : public SettingError {
 public:
  explicit FeatureError(std::string message) : SettingError(Kind::Change, "", "", std::move(message)) {}
  FeatureError(std::string field, std::string words, std::string text)
      : SettingError(Kind::Change, std::move(field), std::move(words), std::move(text)) {}
};

}  // namespace voxen
