#include "window/input_controller.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sample_window/glfw_include.hpp"

#include "text_parsing.hpp"

namespace voxel_painter {

using namespace voxen;

namespace {

constexpr uint32_t kPalette[] = {0xff3c8cf0u, 0xff3030e0u, 0xff40c040u, 0xffe0a020u, 0xffe040c0u, 0xfff0f0f0u};
constexpr uint32_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr double kOrbitRadiansPerPixel = 0.008;
constexpr float kZoomPerScrollStep = 0.9f;
constexpr float kRadiusStep = 1.25f, kMinRadius = 1.0f, kMaxRadius = 40.0f;

}  // namespace

uint32_t BrushSettings::color() const { return kPalette[paletteIndex % kPaletteSize]; }

InputController::InputController(Camera home, uint32_t imageWidth, uint32_t imageHeight)
    : home_(home), camera_(home), imageWidth_(imageWidth), imageHeight_(imageHeight),
      windowWidth_(imageWidth), windowHeight_(imageHeight) {}

void InputController::setWindowSize(int width, int height) {
  // A minimised window reports 0 x 0: keep the last real size for the cursor mapping.
  if (width > 0 && height > 0) windowWidth_ = width, windowHeight_ = height;
}

void InputController::onCursor(double x, double y) {
  if (drag_ == Drag::Orbit)
    camera_.orbit(float(-(x - cursorX_) * kOrbitRadiansPerPixel), float((y - cursorY_) * kOrbitRadiansPerPixel));
  cursorX_ = x;
  cursorY_ = y;
}

void InputController::onButton(int button, int action, int mods) {
  if (action == GLFW_RELEASE) {
    if (button == dragButton_) drag_ = Drag::None, dragButton_ = -1;
    return;
  }
  if (action != GLFW_PRESS || drag_ != Drag::None) return;  // one drag at a time
  const bool ctrl = mods & GLFW_MOD_CONTROL, shift = mods & GLFW_MOD_SHIFT;
  const Drag tool = brush_.tool == BrushMode::Erase ? Drag::Erase : Drag::Paint;
  if (button == GLFW_MOUSE_BUTTON_LEFT)
    drag_ = ctrl ? Drag::Erase : shift ? tool : Drag::Orbit;
  else if (button == GLFW_MOUSE_BUTTON_RIGHT)
    drag_ = ctrl ? Drag::Erase : tool;
  else
    return;
  dragButton_ = button;
}

void InputController::onScroll(double dy) { camera_.zoom(std::pow(kZoomPerScrollStep, float(dy))); }

void InputController::onKey(int key, int action, int) {
  if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
  if (key >= GLFW_KEY_1 && key < GLFW_KEY_1 + int(kPaletteSize)) brush_.paletteIndex = uint32_t(key - GLFW_KEY_1);
  switch (key) {
    case GLFW_KEY_E: brush_.tool = brush_.tool == BrushMode::Add ? BrushMode::Erase : BrushMode::Add; break;
    case GLFW_KEY_LEFT_BRACKET: brush_.radius = std::max(kMinRadius, brush_.radius / kRadiusStep); break;
    case GLFW_KEY_RIGHT_BRACKET: brush_.radius = std::min(kMaxRadius, brush_.radius * kRadiusStep); break;
    case GLFW_KEY_R: camera_ = home_; break;
    case GLFW_KEY_ESCAPE:
    case GLFW_KEY_Q: quit_ = true; break;
    default: break;
  }
}

std::optional<Stroke> InputController::frameStroke() const {
  if (drag_ != Drag::Paint && drag_ != Drag::Erase) return std::nullopt;
  // The window shows the painter's frame stretched over it: map the cursor into the frame.
  const float px = std::clamp(float(cursorX_ * imageWidth_ / windowWidth_), 0.0f, float(imageWidth_ - 1));
  const float py = std::clamp(float(cursorY_ * imageHeight_ / windowHeight_), 0.0f, float(imageHeight_ - 1));
  const Ray3 ray = camera_.rayThroughPixel(px, py, imageWidth_, imageHeight_);
  Stroke stroke;
  stroke.operation = drag_ == Drag::Erase ? BrushMode::Erase : BrushMode::Add;
  stroke.atRayHit = true;
  stroke.origin = ray.origin;
  stroke.direction = ray.direction;
  stroke.radius = brush_.radius;
  stroke.color = brush_.color();
  return stroke;
}

std::string InputController::brushText() const {
  char text[64];
  std::snprintf(text, sizeof text, "%s r=%.1f %s", brush_.tool == BrushMode::Erase ? "erase" : "add", brush_.radius,
                hexColor(brush_.color()).c_str());
  return text;
}

}  // namespace voxel_painter
