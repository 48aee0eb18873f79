// A memory-mapped cloud is released behind the reader (MappedFile::doneWith): reading a cloud
// of tens of MB through RayReader, a chunk at a time, leaves the process's resident memory
// far below the file's size, where without the release every page read stays resident.
#include <catch2/catch.hpp>

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/input/ray_source.hpp"

namespace {

// VmRSS of this process, in bytes (0 where /proc is missing).
size_t residentBytes() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return 0;
  char line[256];
  size_t kb = 0;
  while (std::fgets(line, sizeof line, status))
    if (std::sscanf(line, "VmRSS: %zu kB", &kb) == 1) break;
  std::fclose(status);
  return kb * 1024;
}

}  // namespace

TEST_CASE("A memory-mapped cloud does not stay resident behind the reader", "[rays][memory]") {
  vt::TempDir dir("input-release");
  const auto cloud = dir / "rays.ply";
  {
    // 1,000,000 rays of 7 doubles: a 56 MB body.
    std::vector<voxen::Ray> rays(1000000);
    for (size_t i = 0; i < rays.size(); ++i) {
      const double t = double(i) * 1e-3;
      rays[i].origin = {t, 0.0, 1.0};
      rays[i].sample = {t + 1.0, 2.0, 1.5};
      rays[i].time = t;
    }
    voxen::writeRayCloud(cloud, rays);
  }
  REQUIRE(residentBytes() > 0);  // Linux: /proc/self/status
  voxen::RayReader reader(cloud, std::nullopt, {.threads = 2});
  REQUIRE(reader.mapped());
  const size_t before = residentBytes();
  size_t peak = before;
  uint64_t rays = 0;
  for (std::span<const voxen::Ray> got; !(got = reader.next()).empty();) {
    rays += got.size();
    peak = std::max(peak, residentBytes());
  }
  REQUIRE(rays == 1000000);
  const size_t grew = peak > before ? peak - before : 0;
  INFO("resident memory grew by " << grew / 1024 << " KiB while reading a 56 MB mapped body");
  // The chunks in flight (2 threads, up to 4 chunks of 16,384 rays, decoded and as rays) and
  // the pages being read: a few MB; without the release the whole body (56 MB) stays.
  CHECK(grew < 20u * 1024 * 1024);
}
