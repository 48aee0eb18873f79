#pragma once
// The headless mode's stroke script: a text file, one step per line, each step lasting a
// number of frames (format: README.md in this folder). Parsing checks every line and
// throws ScriptError "file:line: problem"; ScriptPlayer turns the steps into a camera and
// an optional brush stroke per frame.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "text_parsing.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/painter.hpp"

namespace voxel_painter {

struct ScriptStep {
  enum class Kind { Idle, Orbit, Zoom, Stroke };
  // Where a stroke is placed: a ray through a pixel (pixels, or fractions of the frame),
  // or a world point.
  enum class Placement { Pixel, Screen, World };

  uint32_t line = 0;  // 1-based, for errors
  uint32_t frames = 1;
  Kind kind = Kind::Idle;
  float yawDegrees = 0.0f, pitchDegrees = 0.0f;  // Orbit: per frame
  float zoomFactor = 1.0f;                       // Zoom: per frame
  voxen::BrushMode operation = voxen::BrushMode::Add;  // Stroke
  Placement placement = Placement::Pixel;
  glm::vec3 from{0.0f}, to{0.0f};  // Stroke: first and last frame's position (x, y used for pixels)
  float radius = 6.0f;
  uint32_t color = 0xff3c8cf0u;
};

struct StrokeScript {
  std::string file;
  std::vector<ScriptStep> steps;
  uint64_t totalFrames() const;
};

StrokeScript parseStrokeScript(const std::string& text, const std::string& fileName);
StrokeScript loadStrokeScript(const std::string& path);
// Pixel placements must lie inside the frame the script is played at.
void checkScriptFitsFrame(const StrokeScript& script, uint32_t width, uint32_t height);

class ScriptPlayer {
 public:
  ScriptPlayer(const StrokeScript& script, uint32_t width, uint32_t height);
  // Moves `camera` for the next frame and gives that frame's stroke (none for camera and
  // idle steps). Returns false once every step has played.
  bool next(voxen::Camera& camera, std::optional<voxen::Stroke>& stroke);

 private:
  const StrokeScript& script_;
  uint32_t width_, height_;
  size_t step_ = 0;
  uint32_t frameInStep_ = 0;
};

}  // namespace voxel_painter
