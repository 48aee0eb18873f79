// MappingRunStats::toJson: JsonField values written as one line of JSON, without a JSON
// library (the api module depends on none).
#include <charconv>
#include <cmath>
#include <cstdio>

#include "voxen/mapping_run.hpp"

namespace voxen {

namespace {

void writeString(std::string& out, const std::string& text) {
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// The shortest form that reads back as the same double; whole numbers keep a ".0" so that
// they read back as floating point. JSON has no NaN or infinity: null.
void writeNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char text[32];
  const std::string number(text, std::to_chars(text, text + sizeof text, value).ptr);
  out += number;
  if (number.find_first_of(".e") == std::string::npos) out += ".0";
}

void writeObject(std::string& out, const JsonField::Object& fields);

void writeValue(std::string& out, const JsonField::Value& value) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) out += "null";
        else if constexpr (std::is_same_v<T, bool>) out += v ? "true" : "false";
        else if constexpr (std::is_same_v<T, uint64_t> || std::is_same_v<T, int64_t>) out += std::to_string(v);
        else if constexpr (std::is_same_v<T, double>) writeNumber(out, v);
        else if constexpr (std::is_same_v<T, std::string>) writeString(out, v);
        else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          out += '[';
          for (size_t i = 0; i < v.size(); ++i) {
            if (i) out += ',';
            writeString(out, v[i]);
          }
          out += ']';
        } else {
          writeObject(out, v);
        }
      },
      value);
}

void writeObject(std::string& out, const JsonField::Object& fields) {
  out += '{';
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    writeString(out, fields[i].name);
    out += ':';
    writeValue(out, fields[i].value);
  }
  out += '}';
}

}  // namespace

std::string MappingRunStats::toJson() const {
  std::string out;
  writeObject(out, jsonFields());
  return out;
}

}  // namespace voxen
