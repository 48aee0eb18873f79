#pragma once
// The library's typed JSON fields (voxen::JsonField, voxen/mapping_run.hpp) as the tool's Json:
// the same keys in the same order, numbers of the same kind.
#include <type_traits>

#include "report/json_output.hpp"
#include "voxen/mapping_run.hpp"

namespace voxen::cli {

inline Json jsonOf(const JsonField::Object& fields);

inline Json jsonOf(const JsonField::Value& value) {
  return std::visit(
      [](const auto& v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, JsonField::Object>) return jsonOf(v);
        else return Json(v);
      },
      value);
}

inline Json jsonOf(const JsonField::Object& fields) {
  Json out = Json::object();
  for (const JsonField& field : fields) out[field.name] = jsonOf(field.value);
  return out;
}

}  // namespace voxen::cli
