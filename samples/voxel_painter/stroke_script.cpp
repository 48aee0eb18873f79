#include "stroke_script.hpp"

#include <fstream>
#include <sstream>

namespace voxel_painter {

using voxen::Camera;
using voxen::Stroke;

namespace {

constexpr uint32_t kMaxFramesPerLine = 1000000;
constexpr float kMaxRadius = 64.0f;  // half the grid: larger strokes are surely typos

// Reads one line's words left to right, with errors that name the line.
class LineReader {
 public:
  LineReader(std::vector<std::string> words, std::string where) : words_(std::move(words)), where_(std::move(where)) {}
  [[noreturn]] void fail(const std::string& problem) const { throw ScriptError(where_ + ": " + problem); }
  bool done() const { return index_ >= words_.size(); }
  std::string word(const std::string& what) {
    if (done()) fail("missing " + what);
    return words_[index_++];
  }
  float number(const std::string& what, double lo, double hi) {
    const std::string w = word(what);
    const auto value = parseNumber(w);
    if (!value) fail(what + " must be a number, got '" + w + "'");
    if (*value < lo || *value > hi)
      fail(what + " must be from " + shortNumber(lo) + " to " + shortNumber(hi) + ", got " + w);
    return float(*value);
  }
  uint32_t count(const std::string& what, uint32_t most) {
    const std::string w = word(what);
    const auto value = parseInteger(w);
    if (!value || *value < 1 || *value > int64_t(most))
      fail(what + " must be a whole number from 1 to " + std::to_string(most) + ", got '" + w + "'");
    return uint32_t(*value);
  }

 private:
  static std::string shortNumber(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
  }
  std::vector<std::string> words_;
  std::string where_;
  size_t index_ = 0;
};

ScriptStep::Placement placementNamed(LineReader& in) {
  const std::string where = in.word("a placement (pixel, screen or world)");
  if (where == "pixel") return ScriptStep::Placement::Pixel;
  if (where == "screen") return ScriptStep::Placement::Screen;
  if (where == "world") return ScriptStep::Placement::World;
  in.fail("unknown placement '" + where + "' (expected pixel X Y, screen U V or world X Y Z)");
}

glm::vec3 position(LineReader& in, ScriptStep::Placement placement) {
  switch (placement) {
    case ScriptStep::Placement::Pixel:
      return {in.number("pixel x", 0, 16384), in.number("pixel y", 0, 16384), 0.0f};
    case ScriptStep::Placement::Screen:
      return {in.number("screen u", 0, 1), in.number("screen v", 0, 1), 0.0f};
    case ScriptStep::Placement::World:
      return {in.number("world x", -1e6, 1e6), in.number("world y", -1e6, 1e6), in.number("world z", -1e6, 1e6)};
  }
  return {};
}

// "add|erase PLACEMENT POSITION [to POSITION] [radius R] [color RRGGBB]"; radius and colour
// carry over from the previous stroke line when left out.
void parseStroke(LineReader& in, ScriptStep& step, float& radius, uint32_t& color) {
  step.placement = placementNamed(in);
  step.from = step.to = position(in, step.placement);
  bool sawTo = false;
  while (!in.done()) {
    const std::string key = in.word("an option");
    if (key == "to" && !sawTo) {
      step.to = position(in, step.placement);
      sawTo = true;
    } else if (key == "radius") {
      radius = in.number("radius", 0.5, kMaxRadius);
    } else if (key == "color" || key == "colour") {
      const std::string text = in.word("a colour (RRGGBB)");
      const auto parsed = parseHexColor(text);
      if (!parsed) in.fail("colour must be hex RRGGBB or RRGGBBAA, got '" + text + "'");
      color = *parsed;
    } else {
      in.fail("unexpected '" + key + "' (a stroke takes: to POSITION, radius R, color RRGGBB)");
    }
  }
  step.radius = radius;
  step.color = color;
}

}  // namespace

uint64_t StrokeScript::totalFrames() const {
  uint64_t frames = 0;
  for (const auto& step : steps) frames += step.frames;
  return frames;
}

StrokeScript parseStrokeScript(const std::string& text, const std::string& fileName) {
  StrokeScript script;
  script.file = fileName;
  std::istringstream lines(text);
  float radius = Stroke{}.radius;
  uint32_t color = Stroke{}.color;
  uint32_t lineNumber = 0;
  for (std::string line; std::getline(lines, line);) {
    ++lineNumber;
    auto words = scriptWords(line);
    if (words.empty()) continue;
    LineReader in(std::move(words), fileName + ":" + std::to_string(lineNumber));
    ScriptStep step;
    step.line = lineNumber;
    step.frames = in.count("the frame count (first word)", kMaxFramesPerLine);
    const std::string action = in.word("an action (idle, orbit, zoom, add, erase)");
    if (action == "idle") {
      step.kind = ScriptStep::Kind::Idle;
    } else if (action == "orbit") {
      step.kind = ScriptStep::Kind::Orbit;
      step.yawDegrees = in.number("orbit yaw (degrees per frame)", -180, 180);
      step.pitchDegrees = in.number("orbit pitch (degrees per frame)", -180, 180);
    } else if (action == "zoom") {
      step.kind = ScriptStep::Kind::Zoom;
      step.zoomFactor = in.number("zoom factor (per frame)", 0.05, 20);
    } else if (action == "add" || action == "erase") {
      step.kind = ScriptStep::Kind::Stroke;
      step.operation = action == "add" ? voxen::BrushMode::Add : voxen::BrushMode::Erase;
      parseStroke(in, step, radius, color);
    } else {
      in.fail("unknown action '" + action + "' (expected idle, orbit, zoom, add or erase)");
    }
    if (!in.done()) in.fail("unexpected '" + in.word("") + "' after the " + action + " step");
    script.steps.push_back(step);
  }
  if (script.steps.empty()) throw ScriptError(fileName + ": the script has no steps (every line is empty or a comment)");
  return script;
}

StrokeScript loadStrokeScript(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScriptError(path + ": cannot open the stroke script");
  std::stringstream text;
  text << in.rdbuf();
  return parseStrokeScript(text.str(), path);
}

void checkScriptFitsFrame(const StrokeScript& script, uint32_t width, uint32_t height) {
  for (const auto& step : script.steps) {
    if (step.kind != ScriptStep::Kind::Stroke || step.placement != ScriptStep::Placement::Pixel) continue;
    for (const glm::vec3& p : {step.from, step.to})
      if (p.x >= float(width) || p.y >= float(height))
        throw ScriptError(script.file + ":" + std::to_string(step.line) + ": pixel (" + std::to_string(int(p.x)) + ", " +
                          std::to_string(int(p.y)) + ") lies outside the " + std::to_string(width) + "x" +
                          std::to_string(height) + " frame (use 'screen U V' for positions that scale)");
  }
}

ScriptPlayer::ScriptPlayer(const StrokeScript& script, uint32_t width, uint32_t height)
    : script_(script), width_(width), height_(height) {}

bool ScriptPlayer::next(Camera& camera, std::optional<Stroke>& stroke) {
  stroke.reset();
  if (step_ >= script_.steps.size()) return false;
  const ScriptStep& step = script_.steps[step_];
  // Interpolation parameter: 0 on the step's first frame, 1 on its last.
  const float t = step.frames > 1 ? float(frameInStep_) / float(step.frames - 1) : 0.0f;
  switch (step.kind) {
    case ScriptStep::Kind::Idle:
      break;
    case ScriptStep::Kind::Orbit:
      camera.orbit(glm::radians(step.yawDegrees), glm::radians(step.pitchDegrees));
      break;
    case ScriptStep::Kind::Zoom:
      camera.zoom(step.zoomFactor);
      break;
    case ScriptStep::Kind::Stroke: {
      Stroke s;
      s.operation = step.operation;
      s.radius = step.radius;
      s.color = step.color;
      glm::vec3 p = glm::mix(step.from, step.to, t);
      if (step.placement == ScriptStep::Placement::World) {
        s.atRayHit = false;
        s.origin = p;
      } else {
        if (step.placement == ScriptStep::Placement::Screen) p = {p.x * float(width_ - 1), p.y * float(height_ - 1), 0.0f};
        const auto ray = camera.rayThroughPixel(p.x, p.y, width_, height_);
        s.atRayHit = true;
        s.origin = ray.origin;
        s.direction = ray.direction;
      }
      stroke = s;
      break;
    }
  }
  if (++frameInStep_ >= step.frames) {
    frameInStep_ = 0;
    ++step_;
  }
  return true;
}

}  // namespace voxel_painter
