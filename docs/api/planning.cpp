// A planner beside a mapper: the main thread keeps integrating scans and publishes each as a
// snapshot; a planner thread asks its questions of the latest snapshot meanwhile, never
// waiting for the mapping, and overlaps a batch with its own work through a future.
#include <atomic>
#include <cstdio>
#include <future>
#include <thread>
#include <vector>

#include <voxen/voxen.hpp>

int main() {
  voxen::Context ctx;  // one Context, shared by both threads
  voxen::Mapper mapper = voxen::Mapper::load(ctx, "room.vxm");

  std::atomic<bool> mapping{true};
  std::atomic<int> plans{0}, blockedPaths{0};
  std::thread planner([&] {
    // Candidate straight-line moves from the sensor, every 10 cm along +y.
    std::vector<glm::dvec3> path;
    for (int i = 0; i <= 30; ++i) path.push_back({0.0, 0.1 * i, 1.5});
    uint64_t seen = 0;
    while (mapping || plans == 0) {
      const voxen::MapSnapshot map = mapper.latestSnapshot();  // never waits for the mapping
      if (map.version() == seen) {
        std::this_thread::yield();
        continue;
      }
      seen = map.version();
      // A batch on the query thread while this one does its own work...
      std::future<std::vector<voxen::RayHit>> ahead = map.async([](const voxen::MapSnapshot& m) {
        return m.raycast(std::vector<voxen::QueryRay>{{.origin = {0.0, 0.0, 1.5}, .direction = {0.0, 1.0, 0.0}}});
      });
      // ...and one on this thread: the first cell of the path that is not free.
      const std::vector<voxen::OccupancyAnswer> cells = map.occupancy(path);
      size_t firstBlocked = path.size();
      for (size_t i = 0; i < cells.size() && firstBlocked == path.size(); ++i)
        if (cells[i].voxelClass != voxen::VoxelClass::Free) firstBlocked = i;
      const voxen::RayHit wall = ahead.get()[0];
      std::printf("snapshot %llu: free for %.1f m along +y, wall at %.2f m\n", (unsigned long long)map.version(),
                  0.1 * double(firstBlocked), wall.hit ? wall.distance : -1.0);
      if (firstBlocked < path.size()) ++blockedPaths;
      ++plans;
    }
  });

  // The mapping thread: three more scans of the room's wall at y = 2, each published.
  for (int scan = 0; scan < 3; ++scan) {
    std::vector<glm::dvec3> origins, ends;
    for (int i = 0; i < 2000; ++i) {
      origins.push_back({0.0, 0.0, 1.5});
      ends.push_back({-1.5 + 3.0 * i / 2000.0, 2.0, 0.5 + 0.5 * scan});
    }
    mapper.integrateRays(origins, ends);
    mapper.snapshot();  // publish: the planner sees this scan from its next question on
  }
  mapping = false;
  planner.join();
  return plans > 0 && blockedPaths > 0 ? 0 : 1;
}
