// A crew of kept threads running numbered parts (GpuIntegrator::integrate(span) prepares a
// frame's chunks with one): every part runs exactly once per run, on however many threads
// started, and run() returns only once all are done.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "voxen/host/thread_start.hpp"
#include "voxen/host/worker_crew.hpp"

TEST_CASE("A worker crew runs every part of every run exactly once, and returns when they are done",
          "[threads][worker-crew]") {
  const unsigned helpers = GENERATE(0u, 1u, 3u, 7u);
  INFO(helpers << " helpers");
  voxen::WorkerCrew crew(helpers, "test crew");
  std::vector<std::atomic<int>> runs(12);
  std::set<std::thread::id> threads;
  std::mutex threadsMutex;
  for (unsigned round = 0; round < 300; ++round) {
    const unsigned count = 1 + round % 12;
    for (auto& r : runs) r = 0;
    crew.run(count, [&](unsigned part) {
      if (part % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));  // uneven parts
      ++runs[part];
      std::lock_guard lock(threadsMutex);
      threads.insert(std::this_thread::get_id());
    });
    // Every part once, and nothing beyond the count: all of it done when run() returned.
    for (unsigned part = 0; part < runs.size(); ++part) REQUIRE(runs[part] == (part < count ? 1 : 0));
  }
  CHECK(crew.helpers() == helpers);
  CHECK(threads.size() <= helpers + 1);
  if (helpers > 0) CHECK(threads.size() > 1);  // the helpers took parts
}

TEST_CASE("A worker crew whose threads the system refuses runs every part on the caller", "[threads][worker-crew]") {
  voxen::detail::setThreadStartLimitForTesting(0u);
  {
    voxen::WorkerCrew crew(4, "refused crew");
    std::vector<int> runs(5, 0);
    std::set<std::thread::id> threads;
    crew.run(5, [&](unsigned part) {
      ++runs[part];
      threads.insert(std::this_thread::get_id());
    });
    CHECK(runs == std::vector<int>(5, 1));
    CHECK(threads == std::set<std::thread::id>{std::this_thread::get_id()});
    CHECK(crew.helpers() == 0);
  }
  voxen::detail::setThreadStartLimitForTesting(std::nullopt);
}
