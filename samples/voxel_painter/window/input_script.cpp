#include "window/input_script.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "sample_window/glfw_include.hpp"
#include "text_parsing.hpp"

namespace voxel_painter {

namespace {

int keyNamed(const std::string& name) {
  if (name.size() == 1) {
    const char c = name[0];
    if (c >= 'a' && c <= 'z') return GLFW_KEY_A + (c - 'a');
    if (c >= 'A' && c <= 'Z') return GLFW_KEY_A + (c - 'A');
    if (c >= '0' && c <= '9') return GLFW_KEY_0 + (c - '0');
    if (c == '[') return GLFW_KEY_LEFT_BRACKET;
    if (c == ']') return GLFW_KEY_RIGHT_BRACKET;
  }
  static const std::map<std::string, int> named{{"escape", GLFW_KEY_ESCAPE}, {"space", GLFW_KEY_SPACE},
                                                {"left_bracket", GLFW_KEY_LEFT_BRACKET},
                                                {"right_bracket", GLFW_KEY_RIGHT_BRACKET}};
  const auto it = named.find(name);
  return it == named.end() ? GLFW_KEY_UNKNOWN : it->second;
}

int buttonNamed(const std::string& name) {
  if (name == "left") return GLFW_MOUSE_BUTTON_LEFT;
  if (name == "right") return GLFW_MOUSE_BUTTON_RIGHT;
  if (name == "middle") return GLFW_MOUSE_BUTTON_MIDDLE;
  return -1;
}

int modifierNamed(const std::string& name) {
  if (name == "shift") return GLFW_MOD_SHIFT;
  if (name == "ctrl" || name == "control") return GLFW_MOD_CONTROL;
  if (name == "alt") return GLFW_MOD_ALT;
  return 0;
}

}  // namespace

InputScript parseInputScript(const std::string& text, const std::string& fileName) {
  InputScript script;
  script.file = fileName;
  std::istringstream lines(text);
  uint32_t lineNumber = 0;
  for (std::string line; std::getline(lines, line);) {
    ++lineNumber;
    const auto words = scriptWords(line);
    if (words.empty()) continue;
    const std::string where = fileName + ":" + std::to_string(lineNumber) + ": ";
    auto fail = [&](const std::string& problem) { throw ScriptError(where + problem); };
    auto number = [&](size_t i, const char* what) {
      if (i >= words.size()) fail(std::string("missing ") + what);
      const auto value = parseNumber(words[i]);
      if (!value) fail(std::string(what) + " must be a number, got '" + words[i] + "'");
      return *value;
    };
    InputEvent event;
    event.line = lineNumber;
    const auto frame = parseInteger(words[0]);
    if (!frame || *frame < 0) fail("the first word must be a frame number (0 or more), got '" + words[0] + "'");
    event.frame = uint64_t(*frame);
    if (words.size() < 2) fail("missing an event (move, press, release, scroll, key, resize)");
    const std::string& kind = words[1];
    size_t used = 2;
    if (kind == "move") {
      event.kind = InputEvent::Kind::Move;
      event.x = number(2, "cursor x"), event.y = number(3, "cursor y");
      used = 4;
    } else if (kind == "press" || kind == "release") {
      event.kind = kind == "press" ? InputEvent::Kind::Press : InputEvent::Kind::Release;
      if (words.size() < 3) fail("missing a button (left, right, middle)");
      event.button = buttonNamed(words[2]);
      if (event.button < 0) fail("unknown button '" + words[2] + "' (left, right, middle)");
      for (used = 3; used < words.size(); ++used) {
        const int mod = modifierNamed(words[used]);
        if (!mod) fail("unknown modifier '" + words[used] + "' (shift, ctrl, alt)");
        event.mods |= mod;
      }
    } else if (kind == "scroll") {
      event.kind = InputEvent::Kind::Scroll;
      event.y = number(2, "scroll steps");
      used = 3;
    } else if (kind == "resize") {
      event.kind = InputEvent::Kind::Resize;
      event.x = number(2, "window width"), event.y = number(3, "window height");
      if (event.x < 16 || event.y < 16 || event.x > 8192 || event.y > 8192) fail("a window size must be from 16 to 8192");
      used = 4;
    } else if (kind == "key") {
      event.kind = InputEvent::Kind::Key;
      if (words.size() < 3) fail("missing a key name");
      event.key = keyNamed(words[2]);
      if (event.key == GLFW_KEY_UNKNOWN) fail("unknown key '" + words[2] + "' (a-z, 0-9, [, ], escape, space)");
      used = 3;
    } else {
      fail("unknown event '" + kind + "' (move, press, release, scroll, key, resize)");
    }
    if (used < words.size()) fail("unexpected '" + words[used] + "' after the " + kind + " event");
    script.events.push_back(event);
  }
  std::stable_sort(script.events.begin(), script.events.end(),
                   [](const InputEvent& a, const InputEvent& b) { return a.frame < b.frame; });
  return script;
}

InputScript loadInputScript(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScriptError(path + ": cannot open the input script");
  std::stringstream text;
  text << in.rdbuf();
  return parseInputScript(text.str(), path);
}

void InputScriptFeeder::deliver(uint64_t frame, InputController& controller,
                                const std::function<void(int, int)>& resizeWindow) {
  for (; next_ < script_.events.size() && script_.events[next_].frame <= frame; ++next_) {
    const InputEvent& e = script_.events[next_];
    switch (e.kind) {
      case InputEvent::Kind::Move: controller.onCursor(e.x, e.y); break;
      case InputEvent::Kind::Press: controller.onButton(e.button, GLFW_PRESS, e.mods); break;
      case InputEvent::Kind::Release: controller.onButton(e.button, GLFW_RELEASE, e.mods); break;
      case InputEvent::Kind::Scroll: controller.onScroll(e.y); break;
      case InputEvent::Kind::Key: controller.onKey(e.key, GLFW_PRESS, e.mods); break;
      case InputEvent::Kind::Resize: resizeWindow(int(e.x), int(e.y)); break;
    }
  }
}

}  // namespace voxel_painter
