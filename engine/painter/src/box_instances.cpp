#include "voxen/painter/box_instances.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "voxen/gpu/painter/box_instances_shared.h"
#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

static_assert(BoxInstances::kTrianglesPerBox == gpu::kBoxTriangles);

BoxInstances::BoxInstances(Scheduler& scheduler) : scheduler_(scheduler) {
  expandKernel_ = scheduler.library().kernel("painter/box_instances.comp", KernelVariant{{}, {{0u, 0u}}});
  countKernel_ = scheduler.library().kernel("painter/box_instances.comp", KernelVariant{{}, {{0u, 1u}}});
}

BoxInstances::~BoxInstances() = default;

void BoxInstances::record(const BoxInstanceInput& in, const BufferRange& triangles, const BufferRange& triangleCount) {
  auto need = [](const BufferRange& r, const char* what, uint64_t bytes, uint64_t alignment) {
    if (!r.buffer || r.size < bytes) throw Error(std::string("box instances: ") + what + " must hold at least " + std::to_string(bytes) + " bytes");
    if (r.address % alignment) throw Error(std::string("box instances: ") + what + " must be " + std::to_string(alignment) + "-byte aligned");
  };
  need(in.worlds, "the world matrices", 64, 16);
  need(in.boxes, "the boxes", 32, 16);
  need(in.colors, "the colours", 4, 4);
  need(in.instances, "the instance list", 4, 4);
  need(in.count, "the instance count", 4, 4);
  need(in.dispatchArgs, "the dispatch command", 12, 4);
  if (in.worldSlots.buffer) need(in.worldSlots, "the world slots", 4, 4);
  need(triangles, "the triangle list", sizeof(gpu::Triangle), 16);
  need(triangleCount, "the triangle count", 8, 4);
  gpu::BoxInstancesPush push{};
  push.worlds = in.worlds.address;
  push.worldSlots = in.worldSlots.buffer ? in.worldSlots.address : 0;
  push.boxes = in.boxes.address;
  push.colors = in.colors.address;
  push.instances = in.instances.address;
  push.count = in.count.address;
  push.triangles = triangles.address;
  push.triangleCount = triangleCount.address;
  push.maxTriangles = uint32_t(std::min<uint64_t>(triangles.size / sizeof(gpu::Triangle), UINT32_MAX));
  scheduler_.dispatch({"box instances count", countKernel_.get(), {1, 1, 1}, push, {reads(in.count), writes(triangleCount)}});
  std::vector<BufferUse> uses{reads(in.worlds), reads(in.boxes), reads(in.colors), reads(in.instances), reads(in.count),
                              writes(triangles)};
  if (in.worldSlots.buffer) uses.push_back(reads(in.worldSlots));
  scheduler_.dispatchIndirect({"box instances", expandKernel_.get(), {}, push, std::move(uses)}, in.dispatchArgs);
}

}  // namespace voxen
