#include <algorithm>
#include <cstdio>

#include "voxen/host/device.hpp"

namespace voxen {

std::string memoryReport(const Device& device) {
  auto entries = device.memoryStats().entries();
  std::sort(entries.begin(), entries.end(), [](const MemoryEntry& a, const MemoryEntry& b) { return a.bytes > b.bytes; });
  std::string text;
  char line[256];
  std::snprintf(line, sizeof line, "%-40s %12s %6s  %s\n", "buffer", "bytes", "heap", "memory type");
  text += line;
  for (const auto& e : entries) {
    const char* place = e.place.deviceLocal && e.place.hostVisible ? "device-local, host-visible"
                        : e.place.deviceLocal                       ? "device-local"
                        : e.place.hostVisible                       ? "host-visible"
                                                                    : "-";
    std::snprintf(line, sizeof line, "%-40s %12s %6u  %s\n", e.name.c_str(), formatBytes(e.bytes).c_str(), e.heap, place);
    text += line;
  }
  std::snprintf(line, sizeof line, "%-40s %12s\n", "total", formatBytes(device.memoryStats().totalBytes()).c_str());
  text += line;
  const MemoryTotals t = device.memoryStats().totals();
  text += "device-local " + formatBytes(t.deviceLocal) + " (peak " + formatBytes(t.peakDeviceLocal) + "), host-visible " +
          formatBytes(t.hostVisible) + " (peak " + formatBytes(t.peakHostVisible) + ")" +
          (t.unified ? ": unified memory, the same bytes counted in both (on a CPU driver such as lavapipe they are "
                       "host memory, resident only where touched)"
                     : "") +
          "\n";
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
