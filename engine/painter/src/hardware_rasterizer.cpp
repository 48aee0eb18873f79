#include "voxen/painter/hardware_rasterizer.hpp"

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/gpu/painter/hardware_raster.h"
#include "voxen/host/device.hpp"
#include "voxen/host/embedded_shaders.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen {

namespace {

using gpu::HardwareRasterPush;

VkShaderModule createModule(VkDevice device, const std::vector<uint32_t>& spirv) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = spirv.size() * 4;
  info.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VOXEN_VK_CHECK(vkCreateShaderModule(device, &info, nullptr, &module));
  return module;
}

void requireFormat(const Device& device, VkFormat format, VkFormatFeatureFlags features, const char* what) {
  VkFormatProperties props{};
  vkGetPhysicalDeviceFormatProperties(device.physicalDevice(), format, &props);
  if ((props.optimalTilingFeatures & features) != features)
    throw FeatureError("hardware rasterizer: '" + device.info().name + "' cannot use " + what);
}

}  // namespace

HardwareRasterizer::HardwareRasterizer(Device& device, uint32_t width, uint32_t height)
    : HardwareRasterizer(Scheduler::soleSchedulerOf(device), width, height) {}

HardwareRasterizer::HardwareRasterizer(Scheduler& scheduler, uint32_t width, uint32_t height)
    : scheduler_(scheduler), device_(scheduler.device()), width_(width), height_(height) {
  Device& device = device_;
  if (width == 0 || height == 0 || width > 16384 || height > 16384)
    throw Error("hardware rasterizer: size " + std::to_string(width) + "x" + std::to_string(height) +
                " must be from 1x1 to 16384x16384");
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device.physicalDevice(), &families, nullptr);
  std::vector<VkQueueFamilyProperties> props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(device.physicalDevice(), &families, props.data());
  if (!(props.at(device.queueFamily()).queueFlags & VK_QUEUE_GRAPHICS_BIT))
    throw FeatureError("hardware rasterizer: the queue Voxen uses on '" + device.info().name + "' cannot draw");
  requireFormat(device, VK_FORMAT_R32_UINT, VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT, "R32_UINT colour attachments");
  requireFormat(device, VK_FORMAT_D32_SFLOAT, VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT, "D32_SFLOAT depth attachments");
  try {
    const VkDevice vk = device.handle();
    createTargets();
    createRenderPass();
    createPipelineLayout();
    // The two stages are built with the compute shaders (shaders/painter/hardware_raster.*).
    vertex_ = createModule(vk, detail::embeddedSpirvWords("painter/hardware_raster.vert"));
    fragment_ = createModule(vk, detail::embeddedSpirvWords("painter/hardware_raster.frag"));
    if (device.info().capabilities.timestamps) {
      VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
      queryInfo.queryCount = 2;
      VOXEN_VK_CHECK(vkCreateQueryPool(vk, &queryInfo, nullptr, &queries_));
    }
    ids_ = Buffer(device, "hardware rasterizer ids", VkDeviceSize(width) * height * 4);
  } catch (...) {
    destroy();
    throw;
  }
}

HardwareRasterizer::~HardwareRasterizer() {
  // Recorded draws name our images and pipelines: they must run before those go.
  try {
    scheduler_.finish();
  } catch (...) {
    vkDeviceWaitIdle(device_.handle());  // destruction must not throw; drain the GPU instead
  }
  destroy();
}

void HardwareRasterizer::destroy() {
  const VkDevice vk = device_.handle();
  for (VkPipeline& p : pipelines_) vkDestroyPipeline(vk, p, nullptr), p = VK_NULL_HANDLE;
  vkDestroyQueryPool(vk, queries_, nullptr);
  vkDestroyShaderModule(vk, vertex_, nullptr);
  vkDestroyShaderModule(vk, fragment_, nullptr);
  vkDestroyPipelineLayout(vk, layout_, nullptr);
  vkDestroyFramebuffer(vk, framebuffer_, nullptr);
  vkDestroyRenderPass(vk, renderPass_, nullptr);
  vkDestroyImageView(vk, colorView_, nullptr);
  vkDestroyImageView(vk, depthView_, nullptr);
  vkDestroyImage(vk, color_, nullptr);
  vkDestroyImage(vk, depth_, nullptr);
  vkFreeMemory(vk, colorMemory_, nullptr);
  vkFreeMemory(vk, depthMemory_, nullptr);
  queries_ = VK_NULL_HANDLE;
  vertex_ = fragment_ = VK_NULL_HANDLE;
  layout_ = VK_NULL_HANDLE, framebuffer_ = VK_NULL_HANDLE, renderPass_ = VK_NULL_HANDLE;
  colorView_ = depthView_ = VK_NULL_HANDLE, color_ = depth_ = VK_NULL_HANDLE, colorMemory_ = depthMemory_ = VK_NULL_HANDLE;
}

void HardwareRasterizer::createTargets() {
  const VkDevice vk = device_.handle();
  auto image = [&](VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, VkImage& img, VkDeviceMemory& memory,
                   VkImageView& view) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {width_, height_, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VOXEN_VK_CHECK(vkCreateImage(vk, &info, nullptr, &img));
    VkMemoryRequirements req{};
    vkGetImageMemoryRequirements(vk, img, &req);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = device_.findMemoryType(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (alloc.memoryTypeIndex == UINT32_MAX) throw Error("hardware rasterizer: no memory type fits its images");
    VOXEN_VK_CHECK(vkAllocateMemory(vk, &alloc, nullptr, &memory));
    VOXEN_VK_CHECK(vkBindImageMemory(vk, img, memory, 0));
    VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    viewInfo.image = img;
    viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
    viewInfo.format = format;
    viewInfo.subresourceRange = {aspect, 0, 1, 0, 1};
    VOXEN_VK_CHECK(vkCreateImageView(vk, &viewInfo, nullptr, &view));
  };
  image(VK_FORMAT_R32_UINT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_IMAGE_ASPECT_COLOR_BIT,
        color_, colorMemory_, colorView_);
  image(VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT, depth_, depthMemory_,
        depthView_);
}

void HardwareRasterizer::createRenderPass() {
  VkAttachmentDescription attachments[2]{};
  attachments[0].format = VK_FORMAT_R32_UINT;
  attachments[0].samples = VK_SAMPLE_COUNT_1_BIT;
  attachments[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  attachments[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  attachments[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  attachments[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  attachments[1] = attachments[0];
  attachments[1].format = VK_FORMAT_D32_SFLOAT;
  attachments[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  const VkAttachmentReference colorRef{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference depthRef{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &colorRef;
  subpass.pDepthStencilAttachment = &depthRef;
  // In: the previous pass's attachment writes and the previous copy's read come first. Out:
  // the copy to the readback buffer waits for the colour writes.
  VkSubpassDependency deps[2]{};
  deps[0].srcSubpass = VK_SUBPASS_EXTERNAL;
  deps[0].dstSubpass = 0;
  deps[0].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
                         VK_PIPELINE_STAGE_TRANSFER_BIT;
  deps[0].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  deps[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                         VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  deps[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                          VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  deps[1].srcSubpass = 0;
  deps[1].dstSubpass = VK_SUBPASS_EXTERNAL;
  deps[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  deps[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  deps[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  deps[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = 2;
  info.pAttachments = attachments;
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  info.dependencyCount = 2;
  info.pDependencies = deps;
  VOXEN_VK_CHECK(vkCreateRenderPass(device_.handle(), &info, nullptr, &renderPass_));
  const VkImageView views[2] = {colorView_, depthView_};
  VkFramebufferCreateInfo fbInfo{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fbInfo.renderPass = renderPass_;
  fbInfo.attachmentCount = 2;
  fbInfo.pAttachments = views;
  fbInfo.width = width_;
  fbInfo.height = height_;
  fbInfo.layers = 1;
  VOXEN_VK_CHECK(vkCreateFramebuffer(device_.handle(), &fbInfo, nullptr, &framebuffer_));
}

void HardwareRasterizer::createPipelineLayout() {
  const VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(HardwareRasterPush)};
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.pushConstantRangeCount = 1;
  info.pPushConstantRanges = &range;
  VOXEN_VK_CHECK(vkCreatePipelineLayout(device_.handle(), &info, nullptr, &layout_));
}

VkPipeline HardwareRasterizer::pipeline(bool cullBackFaces) {
  VkPipeline& slot = pipelines_[cullBackFaces ? 1 : 0];
  if (slot) return slot;
  VkPipelineShaderStageCreateInfo stages[2]{};
  stages[0] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_VERTEX_BIT, vertex_, "main", nullptr};
  stages[1] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_FRAGMENT_BIT, fragment_, "main",
               nullptr};
  VkPipelineVertexInputStateCreateInfo vertexInput{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  const VkViewport viewport{0.0f, 0.0f, float(width_), float(height_), 0.0f, 1.0f};
  const VkRect2D scissor{{0, 0}, {width_, height_}};
  VkPipelineViewportStateCreateInfo viewportState{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewportState.viewportCount = 1;
  viewportState.pViewports = &viewport;
  viewportState.scissorCount = 1;
  viewportState.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = cullBackFaces ? VK_CULL_MODE_BACK_BIT : VK_CULL_MODE_NONE;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineDepthStencilStateCreateInfo depth{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  depth.depthTestEnable = VK_TRUE;
  depth.depthWriteEnable = VK_TRUE;
  depth.depthCompareOp = VK_COMPARE_OP_LESS;
  VkPipelineColorBlendAttachmentState blendAttachment{};
  blendAttachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT;
  VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend.attachmentCount = 1;
  blend.pAttachments = &blendAttachment;
  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = &vertexInput;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewportState;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pDepthStencilState = &depth;
  info.pColorBlendState = &blend;
  info.layout = layout_;
  info.renderPass = renderPass_;
  VOXEN_VK_CHECK(vkCreateGraphicsPipelines(device_.handle(), VK_NULL_HANDLE, 1, &info, nullptr, &slot));
  return slot;
}

void HardwareRasterizer::checkInput(const BufferRange& triangles, uint32_t count, const float* viewProj) const {
  if (!viewProj) throw Error("hardware rasterizer: no viewProj");
  if (count > 0 && (!triangles.address || triangles.size < uint64_t(count) * sizeof(gpu::Triangle)))
    throw Error("hardware rasterizer: " + std::to_string(count) + " triangles do not fit the range of '" +
                std::string(triangles.name) + "' (" + std::to_string(triangles.size) + " bytes)");
  if (uint64_t(count) * 3 > UINT32_MAX) throw Error("hardware rasterizer: too many triangles for one draw");
}

void HardwareRasterizer::recordDraw(VkCommandBuffer cmd, const BufferRange& triangles, uint32_t count, const float* viewProj,
                                    bool cullBackFaces) {
  VkClearValue clears[2]{};
  clears[0].color.uint32[0] = 0xFFFFFFFFu;
  clears[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  begin.renderPass = renderPass_;
  begin.framebuffer = framebuffer_;
  begin.renderArea = {{0, 0}, {width_, height_}};
  begin.clearValueCount = 2;
  begin.pClearValues = clears;
  vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
  if (count > 0) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline(cullBackFaces));
    HardwareRasterPush push{};
    std::memcpy(push.viewProj, viewProj, sizeof(push.viewProj));  // 16 floats, column-major
    push.triangles = triangles.address;
    vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(push), &push);
    vkCmdDraw(cmd, count * 3, 1, 0, 0);
  }
  vkCmdEndRenderPass(cmd);
}

namespace {

// The triangles a draw of `count` reads (none when it draws nothing).
std::vector<BufferUse> triangleUses(const BufferRange& triangles, uint32_t count) {
  if (count == 0) return {};
  BufferRange used = triangles;
  used.size = uint64_t(count) * sizeof(gpu::Triangle);
  return {reads(used)};
}

}  // namespace

std::vector<uint32_t> HardwareRasterizer::drawIds(const BufferRange& triangles, uint32_t count, const float* viewProj,
                                                  bool cullBackFaces) {
  checkInput(triangles, count, viewProj);
  // The vertex shader reads the triangles; the copy out of the colour attachment writes ids_.
  std::vector<BufferUse> uses = triangleUses(triangles, count);
  uses.push_back(writes(ids_.range()));
  scheduler_.record({.name = "hardware raster",
                     .stages = VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                     .uses = std::move(uses),
                     .record = [&](VkCommandBuffer cmd) {
                       recordDraw(cmd, triangles, count, viewProj, cullBackFaces);
                       VkBufferImageCopy region{};
                       region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
                       region.imageExtent = {width_, height_, 1};
                       vkCmdCopyImageToBuffer(cmd, color_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, ids_.handle(), 1, &region);
                     }});
  return scheduler_.readback<uint32_t>(ids_.range()).get();
}

HardwareRasterizer::Timing HardwareRasterizer::timeDraws(const BufferRange& triangles, uint32_t count, const float* viewProj,
                                                         bool cullBackFaces, uint32_t draws) {
  checkInput(triangles, count, viewProj);
  if (draws == 0) throw Error("hardware rasterizer: timing needs at least one draw");
  pipeline(cullBackFaces);  // compiled before the clock starts
  scheduler_.finish();      // and earlier work finished, so the wall clock sees only the draws
  scheduler_.record({.name = "hardware raster timing",
                     .stages = VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
                     .uses = triangleUses(triangles, count),
                     .record = [&](VkCommandBuffer cmd) {
                       if (queries_) {
                         vkCmdResetQueryPool(cmd, queries_, 0, 2);
                         vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
                       }
                       for (uint32_t i = 0; i < draws; ++i) recordDraw(cmd, triangles, count, viewProj, cullBackFaces);
                       if (queries_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
                     }});
  const auto start = std::chrono::steady_clock::now();
  scheduler_.finish();
  Timing timing;
  timing.draws = draws;
  timing.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (queries_) {
    uint64_t stamps[2] = {0, 0};
    VOXEN_VK_CHECK(vkGetQueryPoolResults(device_.handle(), queries_, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
                                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    // Stamps out of order or equal (lavapipe after graphics work) fall back to the wall clock.
    if (stamps[1] > stamps[0]) {
      timing.seconds = double(stamps[1] - stamps[0]) * double(device_.info().timestampPeriodNs) * 1e-9;
      timing.gpuTimestamps = true;
    }
  }
  timing.trianglesPerSecond = timing.seconds > 0.0 ? double(draws) * double(count) / timing.seconds : 0.0;
  return timing;
}

}  // namespace voxen
