#pragma once
// Book-keeping of the device memory Voxen holds: bytes per named buffer and per heap, so
// that tools can print where memory went and errors can say how full a heap was.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace voxen {

// Where a buffer's memory came from, by the property flags of the memory type it was
// allocated from. On unified memory (lavapipe, integrated GPUs) one type is both, so a
// buffer counts in both; on a discrete GPU the large pools are device-local only.
struct MemoryPlace {
  bool deviceLocal = false;
  bool hostVisible = false;
};

struct MemoryEntry {
  std::string name;
  uint64_t bytes = 0;
  uint32_t heap = 0;
  MemoryPlace place;
};

// Bytes held by place: now, and the most held at any moment since the stats began.
struct MemoryTotals {
  uint64_t deviceLocal = 0, hostVisible = 0;
  uint64_t peakDeviceLocal = 0, peakHostVisible = 0;
  // Some buffer was in memory both device-local and host-visible (unified memory): the two
  // figures count the same bytes.
  bool unified = false;
};

struct HeapReport {
  uint32_t heap = 0;
  bool deviceLocal = false;
  uint64_t size = 0;
  uint64_t usedByVoxen = 0;
  uint64_t budget = 0;     // what the driver says this process may use (0: unknown)
  uint64_t driverUsage = 0;  // what the driver says this process uses (0: unknown)
};

class MemoryStats {
 public:
  uint64_t add(std::string name, uint64_t bytes, uint32_t heap, MemoryPlace place = {});
  void remove(uint64_t id);
  std::vector<MemoryEntry> entries() const;
  uint64_t totalBytes() const;
  uint64_t heapBytes(uint32_t heap) const;
  MemoryTotals totals() const;

 private:
  mutable std::mutex mutex_;
  uint64_t nextId_ = 1;
  std::map<uint64_t, MemoryEntry> entries_;
  MemoryTotals totals_;
};

std::string formatBytes(uint64_t bytes);

}  // namespace voxen
