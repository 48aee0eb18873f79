#include "voxen/host/parallel_copy.hpp"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "voxen/host/thread_start.hpp"

namespace voxen {

namespace {

unsigned defaultCopyThreads() {
  // Three or four threads saturate a host's memory bandwidth for a copy; more only contend.
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return std::min(4u, hardware);
}

}  // namespace

void parallelCopy(std::byte* destination, const std::byte* source, size_t bytes, unsigned threads) {
  if (threads == 0) threads = defaultCopyThreads();
  if (bytes < kParallelCopyMinBytes || threads <= 1) {
    std::memcpy(destination, source, bytes);
    return;
  }
  // Parts a multiple of 4 KiB, so no two threads write the same page.
  constexpr size_t kPage = 4096;
  const size_t part = ((bytes + threads - 1) / threads + kPage - 1) / kPage * kPage;
  const auto copyPart = [&](unsigned index) {
    const size_t begin = std::min(bytes, size_t(index) * part);
    const size_t end = std::min(bytes, begin + part);
    if (end > begin) std::memcpy(destination + begin, source + begin, end - begin);
  };
  std::vector<std::thread> helpers;
  const unsigned started = startThreads(helpers, threads - 1, "staging copy", [&](unsigned i) { copyPart(i + 1); });
  copyPart(0);
  for (unsigned i = started + 1; i < threads; ++i) copyPart(i);  // the parts no thread took
  for (auto& helper : helpers) helper.join();
}

}  // namespace voxen
