#pragma once
// The host memory a command may use for maps and grids, stated before it starts: sizes are
// checked against it before allocating, so an input that would expand past it (a far point,
// a tiny OctoMap file whose leaves cover a billion voxels) ends with a clear error instead
// of exhausting memory.
#include <cstdint>
#include <string>

namespace voxen {

// Physical memory of this machine in bytes (0 when it cannot be read).
uint64_t physicalMemoryBytes();

// The default budget: a quarter of physical memory, at most 2 GiB (512 MiB when physical
// memory is unknown). Maps larger than that need the budget raised explicitly.
uint64_t defaultMemoryBudgetBytes();

// Throws Error("<what> needs N MiB (<detail>), more than the memory budget of M MiB: <hint>")
// when `bytes` exceeds `budget`.
void checkMemoryBudget(uint64_t bytes, uint64_t budget, const std::string& what, const std::string& hint);

// "123.4 MiB"
std::string mebibytes(uint64_t bytes);

}  // namespace voxen
