#include "voxen/host/memory_stats.hpp"

#include <cstdio>

namespace voxen {

uint64_t MemoryStats::add(std::string name, uint64_t bytes, uint32_t heap) {
  std::lock_guard lock(mutex_);
  const uint64_t id = nextId_++;
  entries_[id] = MemoryEntry{std::move(name), bytes, heap};
  return id;
}

void MemoryStats::remove(uint64_t id) {
  std::lock_guard lock(mutex_);
  entries_.erase(id);
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
