#pragma once
// A synthetic image in the painter's output format (RGBA8, row-major, top row first):
// red grows left to right, green top to bottom, blue is constant. It proves the window,
// swapchain and screenshot path on its own (--test-pattern), and its corners tell a
// red/blue swap from a correct copy.
#include <cstdint>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxel_painter {

constexpr uint32_t kTestPatternBlue = 64;

std::vector<uint32_t> testPatternPixels(uint32_t width, uint32_t height);

class TestPattern {
 public:
  TestPattern(voxen::Scheduler& scheduler, uint32_t width, uint32_t height);
  // Uploads the pattern on the first call and submits it; the image never changes after.
  void frame();
  voxen::BufferRange imageRange() const { return image_.range(); }

 private:
  voxen::Scheduler& scheduler_;
  uint32_t width_, height_;
  voxen::Buffer image_;
  bool uploaded_ = false;
};

}  // namespace voxel_painter
