#include "window_run.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "arm_forest.hpp"
#include "sample_window/glfw_window.hpp"
#include "sample_window/presenter.hpp"
#include "sample_window/swapchain.hpp"
#include "scene_renderer.hpp"
#include "scene_setup.hpp"
#include "voxen/export/png_writer.hpp"

namespace transform_scene {

using namespace voxen;
using namespace voxen_samples;
using Clock = std::chrono::steady_clock;

namespace {

// Mouse and keys: left-drag turns the orbit, scroll moves closer or further, space pauses
// the animation (the camera still turns by hand), Esc quits.
struct ViewControls {
  float angleOffset = 0.0f, distance = 0.45f;
  bool paused = false, dragging = false, quit = false;
  double lastX = 0.0;
};

ViewControls& controlsOf(GLFWwindow* window) { return *static_cast<ViewControls*>(glfwGetWindowUserPointer(window)); }

void connectInput(GLFWwindow* window, ViewControls& controls) {
  glfwSetWindowUserPointer(window, &controls);
  glfwSetMouseButtonCallback(window, [](GLFWwindow* w, int button, int action, int) {
    if (button == GLFW_MOUSE_BUTTON_LEFT) controlsOf(w).dragging = action == GLFW_PRESS;
  });
  glfwSetCursorPosCallback(window, [](GLFWwindow* w, double x, double) {
    ViewControls& c = controlsOf(w);
    if (c.dragging) c.angleOffset -= float(x - c.lastX) * 0.01f;
    c.lastX = x;
  });
  glfwSetScrollCallback(window, [](GLFWwindow* w, double, double dy) {
    ViewControls& c = controlsOf(w);
    c.distance = std::fmin(std::fmax(c.distance * std::pow(0.9f, float(dy)), 0.05f), 10.0f);
  });
  glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int, int action, int) {
    if (action != GLFW_PRESS) return;
    if (key == GLFW_KEY_ESCAPE) controlsOf(w).quit = true;
    if (key == GLFW_KEY_SPACE) controlsOf(w).paused = !controlsOf(w).paused;
  });
}

}  // namespace

int runWindow(const SceneOptions& options) {
  // Destruction runs bottom-up: presenter, swapchain and surface before the device, the
  // window after it, GLFW last.
  GlfwLibrary glfw;
  GlfwWindow window(options.width, options.height, "transform scene");
  SceneGpu gpu(options, glfw.requiredInstanceExtensions(), {VK_KHR_SWAPCHAIN_EXTENSION_NAME});
  TransformTree tree;
  ArmForest forest(tree, {options.arms, options.depth, options.fingers});
  SceneRenderer renderer(gpu.scheduler, tree, forest, {options.width, options.height, false});
  WindowSurface surface(gpu.device, window);
  Swapchain swapchain(gpu.device, surface.handle(), window.framebufferSize(), {options.vsync, !options.screenshot.empty()});
  Presenter presenter(gpu.scheduler, swapchain, options.width, options.height);
  ViewControls controls;
  controls.distance = options.distance;
  connectInput(window.handle(), controls);

  const auto start = Clock::now();
  auto titleSince = start;
  double animation = 0.0;
  auto last = start;
  uint64_t frame = 0, titleFrames = 0;
  bool swapchainStale = false;
  while (!glfwWindowShouldClose(window.handle()) && !controls.quit) {
    glfwPollEvents();
    if (!swapchain.fit(window.framebufferSize(), swapchainStale)) {  // minimised
      glfwWaitEvents();
      continue;
    }
    const auto now = Clock::now();
    if (!controls.paused) animation += std::chrono::duration<double>(now - last).count();
    last = now;
    const Camera camera = orbitCamera(forest, float(animation) * options.orbitSpeed + controls.angleOffset, controls.distance);
    forest.animate(animation);
    renderer.frame(camera);
    const bool final = options.exitAfter && frame + 1 >= options.exitAfter;
    const bool capture = final && !options.screenshot.empty();
    const Presenter::Outcome outcome = presenter.present(renderer.image(), capture);
    swapchainStale = outcome.swapchainStale;
    if (outcome.submitted) {
      ++titleFrames;
      const double seconds = std::chrono::duration<double>(Clock::now() - titleSince).count();
      if (seconds >= 0.5) {  // reading the visible count waits for the GPU: twice a second
        char title[200];
        std::snprintf(title, sizeof title, "transform scene - %.1f frames/s - %u of %zu nodes visible%s", titleFrames / seconds,
                      renderer.readVisibleCount(), tree.size(), controls.paused ? " - paused" : "");
        glfwSetWindowTitle(window.handle(), title);
        titleFrames = 0;
        titleSince = Clock::now();
      }
      if (capture) {
        const CapturedImage image = presenter.takeCapture();
        writePng(options.screenshot, image.width, image.height, image.rgba, PngFormat::Rgba8);
        std::cout << "transform_scene: screenshot " << options.screenshot << " (" << image.width << "x" << image.height << ")\n";
      }
      if (final) break;  // a frame dropped by a resize is not the last one
    }
    ++frame;
  }
  presenter.waitIdle();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("transform_scene: %llu frames in %.2f s (%.1f frames/s)\n", (unsigned long long)(frame + 1), seconds,
              seconds > 0 ? double(frame + 1) / seconds : 0.0);
  if (const uint64_t messages = gpu.validationMessages()) {
    std::cerr << "transform_scene: " << messages << " validation message(s)\n";
    return 3;
  }
  return 0;
}

}  // namespace transform_scene
