#pragma once
// Large host copies split over a few threads. One core's memcpy moves 8-12 GB/s; a PCIe 4/5
// bus or a GPU's copy engine delivers 25+, so a staging copy on one thread halves or thirds
// the bandwidth a transfer can reach. Small copies stay on the calling thread (starting a
// thread costs tens of microseconds, the time to copy half a megabyte).
#include <cstddef>

namespace voxen {

// Bytes below which a copy runs on the calling thread only.
inline constexpr size_t kParallelCopyMinBytes = size_t(4) << 20;

// memcpy(destination, source, bytes) on up to `threads` threads (the caller's included; 0
// means a default from the hardware, at most 4). The ranges must not overlap. Returns when
// every byte is copied; a thread the system refuses leaves its share to the caller.
void parallelCopy(std::byte* destination, const std::byte* source, size_t bytes, unsigned threads = 0);

}  // namespace voxen
