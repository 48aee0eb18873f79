#include <algorithm>
#include <cstdio>

#include "voxen/host/device.hpp"

namespace voxen {

std::string memoryReport(const Device& device) {
  auto entries = device.memoryStats().entries();
  std::sort(entries.begin(), entries.end(), [](const MemoryEntry& a, const MemoryEntry& b) { return a.bytes > b.bytes; });
  std::string text;
  char line[256];
  std::snprintf(line, sizeof line, "%-40s %12s %6s\n", "buffer", "bytes", "heap");
  text += line;
  for (const auto& e : entries) {
    std::snprintf(line, sizeof line, "%-40s %12s %6u\n", e.name.c_str(), formatBytes(e.bytes).c_str(), e.heap);
    text += line;
  }
  std::snprintf(line, sizeof line, "%-40s %12s\n", "total", formatBytes(device.memoryStats().totalBytes()).c_str());
  text += line;
  for (const HeapReport& heap : device.heapReport()) {
    std::snprintf(line, sizeof line, "heap %u: %s of %s used by Voxen", heap.heap, formatBytes(heap.usedByVoxen).c_str(),
                  formatBytes(heap.size).c_str());
    text += line;
    if (heap.budget) text += ", driver budget " + formatBytes(heap.budget) + ", in use " + formatBytes(heap.driverUsage);
    text += "\n";
  }
  return text;
}

}  // namespace voxen
