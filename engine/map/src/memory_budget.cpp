#include "voxen/map/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "voxen/host/error.hpp"

namespace voxen {

uint64_t physicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : 0;
}

uint64_t defaultMemoryBudgetBytes() {
  const uint64_t physical = physicalMemoryBytes();
  if (physical == 0) return uint64_t(512) << 20;
  return std::min<uint64_t>(physical / 4, uint64_t(2) << 30);
}

std::string mebibytes(uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.1f MiB", double(bytes) / double(1 << 20));
  return text;
}

void checkMemoryBudget(uint64_t bytes, uint64_t budget, const std::string& what, const std::string& hint) {
  if (bytes <= budget) return;
  throw Error(what + " needs " + mebibytes(bytes) + " (" + std::to_string(bytes) + " bytes), more than the memory budget of " +
              mebibytes(budget) + (hint.empty() ? "" : ": " + hint));
}

}  // namespace voxen
