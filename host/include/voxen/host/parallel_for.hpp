#pragma once
// Runs body(i) for i in [0, count) on up to the machine's cores (at most 16 threads), each a
// contiguous share, and returns when all are done. For CPU references whose items are
// independent (a heightmap's columns, a TSDF frame's blocks): any split gives the same result
// when no two items write the same memory. body must not throw.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace voxen {

template <class Body>
void parallelFor(size_t count, Body&& body) {
  const size_t threads = std::min<size_t>({size_t(std::max(1u, std::thread::hardware_concurrency())), 16, count});
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::vector<std::thread> crew;
  for (size_t t = 0; t < threads; ++t)
    crew.emplace_back([&, t] {
      for (size_t i = count * t / threads; i < count * (t + 1) / threads; ++i) body(i);
    });
  for (std::thread& thread : crew) thread.join();
}

}  // namespace voxen
