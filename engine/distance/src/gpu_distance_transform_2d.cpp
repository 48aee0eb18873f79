// The 2D squared distance transform on the GPU: the row pass, then the column pass
// (shaders/distance/distance_shared.h), one submission, one readback straight into the result.
#include <string>

#include "voxen/distance/distance_transform_2d.hpp"
#include "voxen/gpu/distance/distance_shared.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

namespace {

double passMs(const Scheduler& scheduler, const std::string& name) {
  const auto& passes = scheduler.profile().passes();
  const auto it = passes.find(name);
  return it == passes.end() ? 0.0 : it->second.totalMs;
}

}  // namespace

std::vector<uint64_t> squaredDistanceTransform2DGpu(Scheduler& scheduler, std::span<const uint8_t> obstacle, uint32_t width,
                                                    uint32_t height, DistanceTransformStats* stats) {
  if (obstacle.size() != size_t(width) * height)
    throw Error("squaredDistanceTransform2DGpu: the grid's size is not width x height");
  if (stats) *stats = {};
  // A thread walks a whole line: past the per-invocation budget, the CPU reference.
  if (width > gpu::kMaxDistanceLine || height > gpu::kMaxDistanceLine) {
    if (stats) stats->path = DistanceTransformPath::CpuReference;
    return squaredDistanceTransform2D(obstacle, width, height);
  }
  std::vector<uint64_t> squared(obstacle.size());
  if (obstacle.empty()) return squared;
  Device& device = scheduler.device();
  const uint64_t cells = obstacle.size();
  // The shader reads the bytes as uint words: the buffer is a whole number of them.
  Buffer obstacles(device, "distance obstacles", (cells + 3) / 4 * 4);
  Buffer rowDistance(device, "distance rows", cells * 4), envelope(device, "distance envelope", cells * 4);
  Buffer result(device, "distance squared", cells * 8);
  scheduler.upload(obstacles.range(0, cells), obstacle.data(), cells);
  if (cells % 4) {
    const uint32_t zero = 0;
    scheduler.upload(obstacles.range(cells, 4 - cells % 4), &zero, 4 - cells % 4);
  }
  const auto rowsKernel = scheduler.library().kernel("distance/distance_rows.comp");
  const auto columnsKernel = scheduler.library().kernel("distance/distance_columns.comp");
  const double msBefore = passMs(scheduler, "distance rows") + passMs(scheduler, "distance columns");
  gpu::DistanceRowPush rows{};
  rows.obstacles = obstacles.address();
  rows.rowDistance = rowDistance.address();
  rows.width = width;
  rows.height = height;
  scheduler.dispatchThreads({"distance rows", rowsKernel.get(), {}, rows,
                             {reads(obstacles.range()), writes(rowDistance.range())}},
                            height);
  gpu::DistanceColumnPush columns{};
  columns.rowDistance = rowDistance.address();
  columns.envelope = envelope.address();
  columns.squared = result.address();
  columns.width = width;
  columns.height = height;
  scheduler.dispatchThreads({"distance columns", columnsKernel.get(), {}, columns,
                             {reads(rowDistance.range()), readsWrites(envelope.range()), writes(result.range())}},
                            width);
  scheduler.readbackInto(result.range(), std::span<uint64_t>(squared)).wait();
  if (stats) stats->gpuMs = passMs(scheduler, "distance rows") + passMs(scheduler, "distance columns") - msBefore;
  return squared;
}

}  // namespace voxen
