#pragma once
// Scripted input for the windowed mode (--input-script): events at frame numbers, fed
// through InputController's handlers just before that frame renders, so a test under Xvfb
// paints exactly as a user would. One event a line: "FRAME EVENT ARGS" (README.md);
// errors name file:line.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "window/input_controller.hpp"

namespace voxel_painter {

struct InputEvent {
  enum class Kind { Move, Press, Release, Scroll, Key, Resize };
  uint64_t frame = 0;
  uint32_t line = 0;
  Kind kind = Kind::Move;
  double x = 0.0, y = 0.0;  // Move: window coordinates; Scroll: y is the steps; Resize: the new size
  int button = 0;           // Press, Release: GLFW_MOUSE_BUTTON_*
  int key = 0;              // Key: GLFW_KEY_*
  int mods = 0;             // GLFW_MOD_* bits
};

struct InputScript {
  std::string file;
  std::vector<InputEvent> events;  // by frame, in file order within a frame
};

InputScript parseInputScript(const std::string& text, const std::string& fileName);
InputScript loadInputScript(const std::string& path);

// Hands each frame's events to the controller, in order; a resize goes to `resizeWindow`
// (the window's size changes as if the user dragged its border).
class InputScriptFeeder {
 public:
  explicit InputScriptFeeder(InputScript script) : script_(std::move(script)) {}
  void deliver(uint64_t frame, InputController& controller, const std::function<void(int, int)>& resizeWindow);
  bool finished() const { return next_ >= script_.events.size(); }

 private:
  InputScript script_;
  size_t next_ = 0;
};

}  // namespace voxel_painter
