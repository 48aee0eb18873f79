#pragma once
// What mouse and keys do in the window: left-drag orbits, scroll zooms, right-drag or
// shift+left-drag paints with the current tool, ctrl+drag erases; E toggles add/erase,
// [ and ] change the brush radius, 1-6 pick a colour, R resets the camera, Esc or Q quit.
// GLFW's callbacks and the scripted input (--input-script) both call these handlers, so
// a test drives exactly the code a user does.
#include <cstdint>
#include <optional>
#include <string>

#include "voxen/painter/camera.hpp"
#include "voxen/painter/painter.hpp"

namespace voxel_painter {

struct BrushSettings {
  voxen::BrushMode tool = voxen::BrushMode::Add;  // what right-drag and shift+left-drag do
  float radius = 6.0f;
  uint32_t paletteIndex = 0;
  uint32_t color() const;
};

class InputController {
 public:
  // `imageWidth` x `imageHeight`: the painter's frame, which the window shows stretched.
  InputController(voxen::Camera home, uint32_t imageWidth, uint32_t imageHeight);

  void setWindowSize(int width, int height);
  // GLFW's values: cursor in window coordinates, GLFW_MOUSE_BUTTON_*, GLFW_PRESS/RELEASE,
  // GLFW_MOD_* bits, GLFW_KEY_*.
  void onCursor(double x, double y);
  void onButton(int button, int action, int mods);
  void onScroll(double dy);
  void onKey(int key, int action, int mods);

  // This frame's stroke: while a paint or erase drag is held, one through the cursor.
  std::optional<voxen::Stroke> frameStroke() const;
  const voxen::Camera& camera() const { return camera_; }
  const BrushSettings& brush() const { return brush_; }
  bool quitRequested() const { return quit_; }
  // For the window title, e.g. "add r=6.0 #f08c3c".
  std::string brushText() const;

 private:
  enum class Drag { None, Orbit, Paint, Erase };

  voxen::Camera home_, camera_;
  uint32_t imageWidth_, imageHeight_;
  double windowWidth_, windowHeight_;
  double cursorX_ = 0.0, cursorY_ = 0.0;
  Drag drag_ = Drag::None;
  int dragButton_ = -1;
  BrushSettings brush_;
  bool quit_ = false;
};

}  // namespace voxel_painter
