#pragma once
// The painter's triangle list drawn by Vulkan's graphics pipeline on the same device: what
// the software rasterizer (shaders/painter/raster.glsl) is compared with, for coverage and
// nearest-triangle agreement (tests) and for triangles per second (`voxen bench paint`).
//
// Offscreen: an R32_UINT colour attachment receives each fragment's triangle index (a flat
// per-vertex value, gl_VertexIndex / 3), a D32_SFLOAT attachment is tested LESS, a full
// viewport (minDepth 0, maxDepth 1), front face counter-clockwise, back faces culled on
// request. The vertex shader reads the Triangle records through their buffer address, so
// the painter's own list is drawn without copying.
//
// The draws are recorded through the scheduler as a command that reads the triangles, so
// the scheduler orders them after the work that wrote the triangles and before later work
// that overwrites them; the ids come back through a scheduler readback. drawIds and
// timeDraws wait for the GPU before returning.
#include <volk.h>

#include <cstdint>
#include <vector>

#include "voxen/host/buffer.hpp"

namespace voxen {
class Scheduler;

class Device;

class HardwareRasterizer {
 public:
  // Throws FeatureError when the device's queue cannot draw or lacks the formats.
  HardwareRasterizer(Scheduler& scheduler, uint32_t width, uint32_t height);
  // Records through the device's one scheduler (Scheduler::soleSchedulerOf).
  HardwareRasterizer(Device& device, uint32_t width, uint32_t height);
  ~HardwareRasterizer();
  HardwareRasterizer(const HardwareRasterizer&) = delete;
  HardwareRasterizer& operator=(const HardwareRasterizer&) = delete;

  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }

  // Draws triangles [0, count) of `triangles` (Triangle records) seen through viewProj (16
  // floats, column-major, Vulkan clip space) and returns each pixel's nearest triangle
  // index, row-major, top row first, 0xFFFFFFFF where no triangle covers it.
  std::vector<uint32_t> drawIds(const BufferRange& triangles, uint32_t count, const float* viewProj, bool cullBackFaces);

  struct Timing {
    uint32_t draws = 0;
    double seconds = 0.0;             // GPU time of all draws (timestamps; wall clock without them)
    double trianglesPerSecond = 0.0;  // draws * count / seconds
    bool gpuTimestamps = false;
  };
  // Draws the list `draws` times, each into a freshly cleared target, and times them.
  Timing timeDraws(const BufferRange& triangles, uint32_t count, const float* viewProj, bool cullBackFaces,
                   uint32_t draws);

 private:
  VkPipeline pipeline(bool cullBackFaces);
  void recordDraw(VkCommandBuffer cmd, const BufferRange& triangles, uint32_t count, const float* viewProj,
                  bool cullBackFaces);
  void checkInput(const BufferRange& triangles, uint32_t count, const float* viewProj) const;
  void createTargets();
  void createRenderPass();
  void createPipelineLayout();
  void destroy();

  Scheduler& scheduler_;
  Device& device_;
  uint32_t width_, height_;
  VkImage color_ = VK_NULL_HANDLE, depth_ = VK_NULL_HANDLE;
  VkDeviceMemory colorMemory_ = VK_NULL_HANDLE, depthMemory_ = VK_NULL_HANDLE;
  VkImageView colorView_ = VK_NULL_HANDLE, depthView_ = VK_NULL_HANDLE;
  VkRenderPass renderPass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  VkShaderModule vertex_ = VK_NULL_HANDLE, fragment_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipelines_[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};  // [cullBackFaces]
  VkQueryPool queries_ = VK_NULL_HANDLE;  // timeDraws' own pair, around all its draws
  Buffer ids_;  // the colour attachment copied out, then read back by the scheduler
};

}  // namespace voxen
