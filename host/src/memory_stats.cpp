#include "voxen/host/memory_stats.hpp"

#include <algorithm>
#include <cstdio>

namespace voxen {

uint64_t MemoryStats::add(std::string name, uint64_t bytes, uint32_t heap, MemoryPlace place) {
  std::lock_guard lock(mutex_);
  const uint64_t id = nextId_++;
  entries_[id] = MemoryEntry{std::move(name), bytes, heap, place};
  if (place.deviceLocal) totals_.deviceLocal += bytes;
  if (place.hostVisible) totals_.hostVisible += bytes;
  totals_.unified = totals_.unified || (place.deviceLocal && place.hostVisible);
  totals_.peakDeviceLocal = std::max(totals_.peakDeviceLocal, totals_.deviceLocal);
  totals_.peakHostVisible = std::max(totals_.peakHostVisible, totals_.hostVisible);
  return id;
}

void MemoryStats::remove(uint64_t id) {
  std::lock_guard lock(mutex_);
  const auto found = entries_.find(id);
  if (found == entries_.end()) return;
  if (found->second.place.deviceLocal) totals_.deviceLocal -= found->second.bytes;
  if (found->second.place.hostVisible) totals_.hostVisible -= found->second.bytes;
  entries_.erase(found);
}

MemoryTotals MemoryStats::totals() const {
  std::lock_guard lock(mutex_);
  return totals_;
}

std::vector<MemoryEntry> MemoryStats::entries() const {
  std::lock_guard lock(mutex_);
  std::vector<MemoryEntry> list;
  for (const auto& [id, entry] : entries_) list.push_back(entry);
  return list;
}

uint64_t MemoryStats::totalBytes() const {
  std::lock_guard lock(mutex_);
  uint64_t total = 0;
  for (const auto& [id, entry] : entries_) total += entry.bytes;
  return total;
}

uint64_t MemoryStats::heapBytes(uint32_t heap) const {
  std::lock_guard lock(mutex_);
  uint64_t total = 0;
  for (const auto& [id, entry] : entries_)
    if (entry.heap == heap) total += entry.bytes;
  return total;
}

std::string formatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = double(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace voxen
