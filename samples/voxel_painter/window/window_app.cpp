#include "window/window_app.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "gpu_context.hpp"
#include "initial_scene.hpp"
#include "window/input_controller.hpp"
#include "window/input_script.hpp"
#include "sample_window/glfw_window.hpp"
#include "sample_window/presenter.hpp"
#include "sample_window/swapchain.hpp"
#include "window/test_pattern.hpp"
#include "voxen/export/png_writer.hpp"

namespace voxel_painter {

using namespace voxen;
using namespace voxen_samples;  // the window, swapchain and presenter (samples/common)
using Clock = std::chrono::steady_clock;

namespace {

InputController& controllerOf(GLFWwindow* window) { return *static_cast<InputController*>(glfwGetWindowUserPointer(window)); }

// GLFW's callbacks go straight to the controller's handlers (as scripted input does).
void connectInput(GLFWwindow* window, InputController& controller) {
  glfwSetWindowUserPointer(window, &controller);
  glfwSetCursorPosCallback(window, [](GLFWwindow* w, double x, double y) { controllerOf(w).onCursor(x, y); });
  glfwSetMouseButtonCallback(window, [](GLFWwindow* w, int button, int action, int mods) {
    controllerOf(w).onButton(button, action, mods);
  });
  glfwSetScrollCallback(window, [](GLFWwindow* w, double, double dy) { controllerOf(w).onScroll(dy); });
  glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int, int action, int mods) {
    controllerOf(w).onKey(key, action, mods);
  });
}

// The frame source: the painter, or the synthetic test pattern (--test-pattern), which
// proves the presentation path without the painter's shaders.
class FrameSource {
 public:
  FrameSource(voxen::Scheduler& scheduler, const AppOptions& options) {
    if (options.testPattern) {
      pattern_ = std::make_unique<TestPattern>(scheduler, options.width, options.height);
    } else {
      painter_ = std::make_unique<Painter>(scheduler, painterOptions(options.width, options.height));
      loadInitialScene(*painter_);
    }
  }
  voxen::BufferRange render(const InputController& controller) {
    if (pattern_) {
      pattern_->frame();
      return pattern_->imageRange();
    }
    const std::optional<Stroke> stroke = controller.frameStroke();
    painter_->frame(controller.camera(), stroke ? &*stroke : nullptr);
    return painter_->imageRange();
  }
  // Waits for the latest frame; 0 for the test pattern.
  uint32_t triangles() { return painter_ ? painter_->readCounters().triangles : 0; }

 private:
  std::unique_ptr<Painter> painter_;
  std::unique_ptr<TestPattern> pattern_;
};

// The window title shows frames/s, triangles and the brush, twice a second (reading the
// triangle count waits for the GPU, so not every frame), and any shader compile error.
class TitleUpdater {
 public:
  void frameDone(GLFWwindow* window, FrameSource& source, const InputController& controller,
                 const voxen::ShaderLibrary& library) {
    ++frames_;
    const double seconds = std::chrono::duration<double>(Clock::now() - since_).count();
    if (seconds < 0.5) return;
    char title[256];
    std::snprintf(title, sizeof title, "voxel painter - %.1f frames/s - %u triangles - %s%s", frames_ / seconds,
                  source.triangles(), controller.brushText().c_str(),
                  library.reloadErrors().empty() ? "" : " - SHADER ERROR (see terminal)");
    glfwSetWindowTitle(window, title);
    frames_ = 0;
    since_ = Clock::now();
  }

 private:
  Clock::time_point since_ = Clock::now();
  uint32_t frames_ = 0;
};

// A resize request reaches the X server asynchronously: wait (briefly) until the window
// reports the new size, so the frame after a scripted resize sees it.
void waitForWindowSize(const GlfwWindow& window, int width, int height) {
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  int w = 0, h = 0;
  do {
    glfwWaitEventsTimeout(0.01);
    glfwGetWindowSize(window.handle(), &w, &h);
  } while ((w != width || h != height) && Clock::now() < deadline);
}

void saveScreenshot(Presenter& presenter, const std::string& path) {
  const CapturedImage image = presenter.takeCapture();
  voxen::writePng(path, image.width, image.height, image.rgba, voxen::PngFormat::Rgba8);
  std::cout << "voxel_painter: screenshot " << path << " (" << image.width << "x" << image.height << ")\n";
}

}  // namespace

int runWindow(const AppOptions& options) {
  // Check the input script before opening anything.
  std::optional<InputScriptFeeder> scripted;
  if (!options.inputScript.empty()) scripted.emplace(loadInputScript(options.inputScript));

  // Destruction runs bottom-up: presenter, swapchain and surface before the device,
  // the window after it, GLFW last.
  GlfwLibrary glfw;
  GlfwWindow window(options.width, options.height, "voxel painter");
  GpuContext gpu(options, /*hotReloadByDefault=*/true, glfw.requiredInstanceExtensions(), {VK_KHR_SWAPCHAIN_EXTENSION_NAME});
  FrameSource source(gpu.scheduler, options);
  WindowSurface surface(gpu.device, window);
  Swapchain swapchain(gpu.device, surface.handle(), window.framebufferSize(), {options.vsync, !options.screenshot.empty()});
  Presenter presenter(gpu.scheduler, swapchain, options.width, options.height);
  std::cerr << "voxel_painter: swapchain " << swapchain.extent().width << "x" << swapchain.extent().height << ", "
            << (swapchain.bgra() ? "BGRA" : "RGBA") << (swapchain.srgb() ? " sRGB" : " UNORM")
            << (swapchain.bgra() ? " (the blit swaps red and blue)" : "") << "\n";
  InputController controller(homeCamera(), options.width, options.height);
  connectInput(window.handle(), controller);
  TitleUpdater title;

  const auto start = Clock::now();
  uint64_t frame = 0;
  bool finished = false, swapchainStale = false;
  while (!glfwWindowShouldClose(window.handle()) && !finished) {
    glfwPollEvents();
    if (scripted)
      scripted->deliver(frame, controller, [&](int width, int height) {
        glfwSetWindowSize(window.handle(), width, height);
        waitForWindowSize(window, width, height);
      });
    if (controller.quitRequested()) break;
    if (!swapchain.fit(window.framebufferSize(), swapchainStale)) {  // minimised
      glfwWaitEvents();
      continue;
    }
    int windowWidth = 0, windowHeight = 0;
    glfwGetWindowSize(window.handle(), &windowWidth, &windowHeight);
    controller.setWindowSize(windowWidth, windowHeight);

    const voxen::BufferRange image = source.render(controller);
    // The last frame (--exit-after) is also read back for --screenshot.
    const bool last = options.exitAfter && frame + 1 >= options.exitAfter;
    const bool capture = last && !options.screenshot.empty();
    const Presenter::Outcome outcome = presenter.present(image, capture);
    swapchainStale = outcome.swapchainStale;  // recreated at the next frame, once the size is known
    if (outcome.submitted) {
      title.frameDone(window.handle(), source, controller, gpu.library);
      if (capture) saveScreenshot(presenter, options.screenshot);
      if (last) finished = true;  // a frame dropped by a resize is not the last one: render another
    }
    ++frame;
  }
  presenter.waitIdle();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("voxel_painter: %llu frames in %.2f s (%.1f frames/s)\n", (unsigned long long)frame, seconds,
              seconds > 0 ? double(frame) / seconds : 0.0);
  if (const uint64_t messages = gpu.validationMessages()) {
    std::cerr << "voxel_painter: " << messages << " validation message(s)\n";
    return 3;
  }
  return 0;
}

}  // namespace voxel_painter
