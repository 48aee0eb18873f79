// RenderOptions' rules, shared by the three pictures (render_options_check.hpp).
#include "render_options_check.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "voxen/host/setting_error.hpp"

namespace voxen {

void checkRenderOptions(const RenderOptions& o, const char* subject, bool takesCrop) {
  auto invalid = [](const char* field, const char* words, const std::string& rule) {
    throw SettingError(SettingError::Kind::Invalid, field, words, "render: {} " + rule);
  };
  auto outOfRange = [&](const char* field, const char* words, const std::string& rule, double value) {
    char now[32];
    std::snprintf(now, sizeof now, "%g", value);
    invalid(field, words, "must be " + rule + ", got " + now);
  };
  if (o.width < 16 || o.width > 16384) outOfRange("RenderOptions::width", "the image width", "16 to 16384", o.width);
  if (o.height < 16 || o.height > 16384) outOfRange("RenderOptions::height", "the image height", "16 to 16384", o.height);
  if (!(o.fovDegrees > 0.0f && o.fovDegrees < 180.0f))
    outOfRange("RenderOptions::fovDegrees", "the field of view", "in (0, 180) degrees", o.fovDegrees);
  if (o.eye.has_value() != o.target.has_value()) invalid("RenderOptions::eye", "the camera", "needs both an eye and a target");
  auto finite = [](const glm::dvec3& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); };
  if (o.eye && !(finite(*o.eye) && finite(*o.target))) invalid("RenderOptions::eye", "the camera", "must be finite");
  if (o.eye && *o.eye == *o.target) invalid("RenderOptions::eye", "the camera", "has its eye and target at the same point");
  if (!takesCrop && (o.cropMin || o.cropMax))
    invalid("MapGridOptions::crop", "the crop box", std::string("is not for ") + subject + ", which is drawn whole");
  if (o.cropMin.has_value() != o.cropMax.has_value()) invalid("MapGridOptions::crop", "the crop box", "needs both corners");
  if (o.cropMin && (o.cropMin->x > o.cropMax->x || o.cropMin->y > o.cropMax->y || o.cropMin->z > o.cropMax->z))
    invalid("MapGridOptions::crop", "the crop box", "must have its first corner below the second on every axis");
  if (o.view == RenderView::Top && o.eye)
    invalid("RenderOptions::view", "the top view", std::string("frames ") + subject + " itself and takes no eye and target");
}

}  // namespace voxen
