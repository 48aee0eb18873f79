#pragma once
// Allocations whose size comes from an input or a setting: when one fails, the error says
// what the memory was for, how much was asked and what sets that size (a flag, a file's
// field), instead of a bare std::bad_alloc that names nothing. The size is checked against
// what the address space can hold before asking, so a size that wraps or cannot exist is
// refused the same way.
#include <cstdint>
#include <cstdio>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "voxen/host/error.hpp"

namespace voxen {

// "1.5 GiB (1610612736 bytes)": the size, and the exact count for a reader to compare.
inline std::string allocationSizeText(uint64_t bytes) {
  char text[96];
  const double value = double(bytes);
  if (bytes >= (uint64_t(1) << 30)) std::snprintf(text, sizeof text, "%.1f GiB (%llu bytes)", value / double(1 << 30), (unsigned long long)bytes);
  else if (bytes >= (uint64_t(1) << 20)) std::snprintf(text, sizeof text, "%.1f MiB (%llu bytes)", value / double(1 << 20), (unsigned long long)bytes);
  else std::snprintf(text, sizeof text, "%llu bytes", (unsigned long long)bytes);
  return text;
}

// Thrown for an allocation that failed: "cannot allocate 12.0 GiB (...) for <what>: <setBy>".
class AllocationError : public Error {
 public:
  AllocationError(const std::string& what, uint64_t bytes, const std::string& setBy)
      : Error("cannot allocate " + allocationSizeText(bytes) + " for " + what +
              (setBy.empty() ? std::string() : " (" + setBy + ")")),
        bytes_(bytes) {}
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_;
};

// Runs `allocate` (which allocates about `bytes` for `what`), turning std::bad_alloc and
// std::length_error (a size past what a container holds) into an AllocationError naming
// `what`, `bytes` and `setBy`, e.g. "the points of cloud.pcd, set by its POINTS (line 9)" or
// "--nodes 8388608 (lower it, or raise the address-space limit)".
template <typename Allocate>
decltype(auto) allocating(const std::string& what, uint64_t bytes, const std::string& setBy, Allocate&& allocate) {
  try {
    return std::forward<Allocate>(allocate)();
  } catch (const std::bad_alloc&) {
    throw AllocationError(what, bytes, setBy);
  } catch (const std::length_error&) {
    throw AllocationError(what, bytes, setBy);
  }
}

// `count` elements of `elementBytes` each, in bytes; UINT64_MAX when the product does not fit
// (no allocation of that size can succeed, and the message still says how large it was).
inline uint64_t allocationBytes(uint64_t count, uint64_t elementBytes) {
  uint64_t bytes = 0;
  return __builtin_mul_overflow(count, elementBytes, &bytes) ? std::numeric_limits<uint64_t>::max() : bytes;
}

// vector.resize(count), named as above when it fails.
template <typename Vector>
void resizeFor(Vector& vector, uint64_t count, const std::string& what, const std::string& setBy) {
  const uint64_t bytes = allocationBytes(count, sizeof(typename Vector::value_type));
  allocating(what, bytes, setBy, [&] {
    if (count > uint64_t(vector.max_size())) throw std::length_error("past max_size");
    vector.resize(size_t(count));
  });
}

}  // namespace voxen
