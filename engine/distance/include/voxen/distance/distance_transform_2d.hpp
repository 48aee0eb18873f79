#pragma once
// The exact squared Euclidean distance transform of a 2D grid: per cell, the squared distance
// (in cells, between cell centres) to the nearest obstacle cell. The CPU reference and the GPU
// passes (shaders/distance) compute integers only, so their results are equal bit for bit.
//
//   std::vector<uint8_t> obstacle(width * height);      // row-major: y * width + x; non-zero: obstacle
//   obstacle[5 * width + 7] = 1;
//   std::vector<uint64_t> d2 = squaredDistanceTransform2D(obstacle, width, height);            // CPU
//   std::vector<uint64_t> g2 = squaredDistanceTransform2DGpu(scheduler, obstacle, width, height); // GPU
//   // d2 == g2; d2[i] == kNoObstacle when the grid has no obstacle at all
//   double metres = std::sqrt(double(d2[i])) * resolution;
//
// Threads: the functions are reentrant. The GPU one records on `scheduler` and waits for its
// result, so it follows the scheduler's rule: one thread records at a time (a Context's
// scheduler belongs to the thread that uses it).
//
// On the GPU: one pass with a thread per row (the distance along the row to its nearest
// obstacle), then one with a thread per column (the lower envelope of parabolas, Felzenszwalb
// and Huttenlocher). A thread walks its whole row or column, and lavapipe stops a thread's
// loops after 65,535 iterations, so a grid with a side over gpu::kMaxDistanceLine (8,192)
// cells is computed by the CPU reference instead (DistanceTransformStats::path says which ran).
#include <cstdint>
#include <span>
#include <vector>

namespace voxen {

class Scheduler;

// A cell's squared distance when the grid has no obstacle at all.
inline constexpr uint64_t kNoObstacle = UINT64_MAX;

// The CPU reference (Felzenszwalb and Huttenlocher's two passes of 1D lower envelopes, the
// breakpoints compared exactly by cross-multiplication). `obstacle` holds width x height
// cells. Throws Error when its size is not width x height.
std::vector<uint64_t> squaredDistanceTransform2D(std::span<const uint8_t> obstacle, uint32_t width, uint32_t height);

enum class DistanceTransformPath { Gpu, CpuReference };

struct DistanceTransformStats {
  DistanceTransformPath path = DistanceTransformPath::Gpu;
  double gpuMs = 0.0;  // the two passes' GPU time (0 for the CPU reference)
};

// The same on the GPU of `scheduler` (a grid with a side over gpu::kMaxDistanceLine: the CPU
// reference). Records, submits and waits; device memory: 17 bytes per cell while it runs.
std::vector<uint64_t> squaredDistanceTransform2DGpu(Scheduler& scheduler, std::span<const uint8_t> obstacle, uint32_t width,
                                                    uint32_t height, DistanceTransformStats* stats = nullptr);

// The GPU when `scheduler` is given, else the CPU reference: for functions whose callers
// choose where it runs (voxen/export's costmap and ESDF slice).
std::vector<uint64_t> squaredDistanceTransform2D(Scheduler* scheduler, std::span<const uint8_t> obstacle, uint32_t width,
                                                 uint32_t height);

}  // namespace voxen
