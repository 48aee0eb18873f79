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
// Work goes to the device's one queue and is waited for before returning. The triangles
// must have been written by work already submitted to that queue (Scheduler::submit() or
// finish()); a barrier at the start makes those writes visible, one at the end orders
// later writes after the draws. Not thread-safe with other users of the queue.
#include <volk.h>

#include <cstdint>
#include <vector>

#include "voxen/host/buffer.hpp"

namespace voxen {

class Device;

class HardwareRasterizer {
 public:
  // Throws FeatureError when the device's queue cannot draw or lacks the formats.
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
  void recordDraw(const BufferRange& triangles, uint32_t count, const float* viewProj, bool cullBackFaces);
  void checkInput(const BufferRange& triangles, uint32_t count, const float* viewProj) const;
  void submitAndWait();
  void createTargets();
  void createRenderPass();
  void createPipelineLayout();
  void destroy();

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
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  Buffer readback_;
};

}  // namespace voxen
