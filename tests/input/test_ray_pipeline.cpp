// RayReader with worker threads (RayReaderOptions::threads): the same rays bit for bit, the
// same skip counts and the same errors for every thread count, chunk size and way of reading
// the body (memory-mapped or streamed), through read() and through next(); a reader dropped
// early, or by an exception, stops its workers instead of hanging.
#include <catch2/catch.hpp>

#include "support/test_helpers.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/ply.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

using Catch::Matchers::Contains;
using voxen::Ray;
using voxen::RayLoadStats;
using voxen::RayReader;
using voxen::RayReaderOptions;

namespace {

// The sensor moves from the origin to (16, 32, 48) over 16 seconds.
const char* kTrajectory = "time x y z\n0 0 0 0\n16 16 32 48\n";

struct ReadResult {
  std::vector<Ray> rays;
  std::vector<size_t> calls;  // what each read() returned
  RayLoadStats stats;
  std::string summary;
  std::string error;  // the Error's message, empty when none
  bool done = false;
};

// Drains a reader with `pull(reader, result)`, keeping its error, counts and summary.
template <class Pull>
ReadResult drain(const std::filesystem::path& cloud, std::optional<std::filesystem::path> trajectory,
                 RayReaderOptions options, Pull pull) {
  ReadResult r;
  RayReader reader(cloud, std::move(trajectory), options);
  try {
    pull(reader, r);
  } catch (const voxen::Error& e) {
    r.error = e.what();
  }
  r.stats = reader.stats();
  r.summary = r.error.empty() ? reader.summary() : std::string();
  r.done = reader.done();
  return r;
}

ReadResult readWith(const std::filesystem::path& cloud, std::optional<std::filesystem::path> trajectory,
                    RayReaderOptions options, size_t maxRays = 1000) {
  return drain(cloud, std::move(trajectory), options, [&](RayReader& reader, ReadResult& r) {
    while (size_t n = reader.read(r.rays, maxRays)) r.calls.push_back(n);
  });
}

// The same through next(): views of the chunks, copied here.
ReadResult nextWith(const std::filesystem::path& cloud, std::optional<std::filesystem::path> trajectory,
                    RayReaderOptions options, size_t maxRays = SIZE_MAX) {
  return drain(cloud, std::move(trajectory), options, [&](RayReader& reader, ReadResult& r) {
    for (std::span<const Ray> view; !(view = reader.next(maxRays)).empty();) {
      r.rays.insert(r.rays.end(), view.begin(), view.end());
      r.calls.push_back(view.size());
    }
  });
}

// Field by field: Ray has 4 bytes of padding, so memcmp would compare garbage. Doubles are
// compared by bits (NaN never reaches here; -0.0 must stay -0.0).
bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool sameRay(const Ray& a, const Ray& b) {
  return sameBits(a.origin.x, b.origin.x) && sameBits(a.origin.y, b.origin.y) && sameBits(a.origin.z, b.origin.z) &&
         sameBits(a.sample.x, b.sample.x) && sameBits(a.sample.y, b.sample.y) && sameBits(a.sample.z, b.sample.z) &&
         sameBits(a.time, b.time) && std::memcmp(&a.intensity, &b.intensity, sizeof a.intensity) == 0;
}

// The index of the first ray that differs, or -1 when both lists are equal.
long firstDifference(const std::vector<Ray>& a, const std::vector<Ray>& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (!sameRay(a[i], b[i])) return long(i);
  return a.size() == b.size() ? -1 : long(std::min(a.size(), b.size()));
}

void checkSameStats(const RayLoadStats& a, const RayLoadStats& b) {
  CHECK(a.points == b.points);
  CHECK(a.rays == b.rays);
  CHECK(a.skippedNonFinite == b.skippedNonFinite);
  CHECK(a.skippedOutsideTrajectory == b.skippedOutsideTrajectory);
  CHECK(a.nonFiniteIntensity == b.nonFiniteIntensity);
  CHECK(sameBits(a.timeMin, b.timeMin));
  CHECK(sameBits(a.timeMax, b.timeMax));
}

// Every way of reading a file that must give the same result.
struct Way {
  unsigned threads;
  size_t chunkPoints;
  bool mapFile;
};
const Way kWays[] = {{1, 16384, true}, {1, 64, false}, {1, 64, true},  {2, 64, true},
                     {2, 64, false},   {8, 64, true},  {8, 64, false}, {8, 100, true}, {2, 16384, true}};

std::string wayName(const Way& w) {
  return std::to_string(w.threads) + " threads, chunks of " + std::to_string(w.chunkPoints) +
         (w.mapFile ? ", mapped" : ", streamed");
}

// Runs f on a thread and reports whether it returned, without throwing, within the limit; a
// hung f is left behind (detached) so that the test fails instead of hanging.
template <typename F>
bool finishesWithin(std::chrono::seconds limit, F f) {
  struct State {
    std::atomic<bool> finished{false};
    std::atomic<bool> threw{false};
  };
  auto state = std::make_shared<State>();
  std::thread([state, f]() mutable {
    try {
      f();
    } catch (...) {
      state->threw = true;
    }
    state->finished = true;
  }).detach();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!state->finished && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return state->finished && !state->threw;
}

std::string asciiHeader(size_t n, const std::vector<std::string>& properties) {
  std::string h = "ply\nformat ascii 1.0\nelement vertex " + std::to_string(n) + "\n";
  for (const auto& p : properties) h += "property " + p + "\n";
  return h + "end_header\n";
}

}  // namespace

TEST_CASE("RayReader threads: a generated lidar run gives the same rays bit for bit for 1, 2 and 8 threads",
          "[rays][threads]") {
  vt::TempDir dir("ray-pipeline");
  const voxen::SyntheticScene scene = voxen::SyntheticScene::generate(3);
  voxen::LidarConfig lidar;
  lidar.rings = 16;
  lidar.columns = 512;
  lidar.scans = 6;  // 49,152 beams, returns only in the file
  lidar.speed = 2.0;
  voxen::writeLidarRun(scene, lidar, dir / "run.ply", dir / "run.txt");

  // Reference: one thread, streamed, the library's defaults otherwise.
  const ReadResult reference = readWith(dir / "run.ply", dir / "run.txt", {.threads = 1, .mapFile = false}, 4096);
  REQUIRE(reference.error.empty());
  REQUIRE(reference.rays.size() > 40000);
  CHECK(reference.stats.rays == reference.rays.size());
  for (const Way& way : kWays) {
    for (const unsigned threads : {1u, 2u, 8u}) {
      if (threads != way.threads) continue;
      INFO(wayName(way));
      const ReadResult r = readWith(dir / "run.ply", dir / "run.txt",
                                    {.threads = threads, .chunkPoints = way.chunkPoints, .mapFile = way.mapFile}, 4096);
      CHECK(r.error.empty());
      CHECK(firstDifference(r.rays, reference.rays) == -1);
      checkSameStats(r.stats, reference.stats);
      CHECK(r.summary == reference.summary);
      CHECK(r.calls == reference.calls);  // full batches of 4096 until the last
      CHECK(r.done);
      // Without a copy: the same rays, in views no longer than a chunk.
      const ReadResult v = nextWith(dir / "run.ply", dir / "run.txt",
                                    {.threads = threads, .chunkPoints = way.chunkPoints, .mapFile = way.mapFile});
      CHECK(v.error.empty());
      CHECK(firstDifference(v.rays, reference.rays) == -1);
      checkSameStats(v.stats, reference.stats);
      CHECK(v.done);
      CHECK(std::all_of(v.calls.begin(), v.calls.end(), [&](size_t n) { return n > 0 && n <= way.chunkPoints; }));
    }
  }
  // The binary body is mapped by default; with threads it is read by workers.
  RayReader mapped(dir / "run.ply", dir / "run.txt", {.threads = 8});
  CHECK(mapped.mapped());
  CHECK(mapped.threads() == 3);  // one worker per chunk at most: 3 chunks of 16,384
  RayReader streamed(dir / "run.ply", dir / "run.txt", {.threads = 2, .chunkPoints = 1000, .mapFile = false});
  CHECK_FALSE(streamed.mapped());
  CHECK(streamed.threads() == 2);
  CHECK(RayReader(dir / "run.ply", dir / "run.txt").threads() == 0);  // one thread: read() does the work
}

TEST_CASE("RayReader threads: bad points across chunk boundaries are skipped and counted the same way",
          "[rays][threads]") {
  vt::TempDir dir("ray-pipeline");
  dir.write("traj.txt", kTrajectory);
  // 1000 points in chunks of 64 (or 100): bad points at and around the chunk boundaries.
  const size_t n = 1000;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> rows;  // x y z time intensity
  uint64_t nonFinite = 0, outside = 0, badIntensity = 0;
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> row = {double(i) * 0.25, -double(i), 1.0 + double(i % 7), double(i % 160) * 0.1, double(i % 5)};
    const size_t m = i % 64;
    if (m == 63 || i % 100 == 0) row[0] = nan, ++nonFinite;                    // last of a 64-chunk, first of a 100-chunk
    else if (m == 0 || i % 100 == 99) row[3] = 20.0 + double(i), ++outside;    // after the trajectory's end
    else if (m == 1) row[3] = -1.0 - double(i), ++outside;                     // before its start
    else if (m == 2) row[2] = -inf, ++nonFinite;
    else if (m == 3) row[3] = inf, ++nonFinite;                                 // a non-finite time is non-finite
    if (m == 4 || m == 63) {  // a NaN intensity is counted only on points whose geometry is kept
      row[4] = nan;
      if (std::isfinite(row[0]) && std::isfinite(row[1]) && std::isfinite(row[2]) && std::isfinite(row[3])) ++badIntensity;
    }
    rows.push_back(row);
  }
  vt::Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement vertex " + std::to_string(n) +
           "\nproperty double x\nproperty double y\nproperty float z\nproperty double time\nproperty float "
           "intensity\nend_header\n";
  std::string text = asciiHeader(n, {"double x", "double y", "float z", "double time", "float intensity"});
  for (const auto& row : rows) {
    b.put<double>(row[0]).put<double>(row[1]).put<float>(float(row[2])).put<double>(row[3]).put<float>(float(row[4]));
    char line[200];
    std::snprintf(line, sizeof line, "%.17g %.17g %.9g %.17g %.9g\n", row[0], row[1], row[2], row[3], row[4]);
    text += line;
  }
  dir.write("bad.ply", b.data);
  dir.write("bad_ascii.ply", text);

  for (const char* file : {"bad.ply", "bad_ascii.ply"}) {
    INFO(file);
    const ReadResult reference = readWith(dir / file, dir / "traj.txt", {.threads = 1, .chunkPoints = 16384}, 77);
    REQUIRE(reference.error.empty());
    CHECK(reference.stats.points == n);
    CHECK(reference.stats.skippedNonFinite == nonFinite);
    CHECK(reference.stats.skippedOutsideTrajectory == outside);
    CHECK(reference.stats.nonFiniteIntensity == badIntensity);
    CHECK(reference.stats.rays == n - nonFinite - outside);
    CHECK(reference.rays.size() == reference.stats.rays);
    CHECK_THAT(reference.summary, Contains(std::to_string(nonFinite) + " skipped for NaN/inf") &&
                                      Contains(std::to_string(outside) + " skipped with times"));
    for (const Way& way : kWays) {
      INFO(wayName(way));
      const ReadResult r = readWith(dir / file, dir / "traj.txt",
                                    {.threads = way.threads, .chunkPoints = way.chunkPoints, .mapFile = way.mapFile}, 77);
      CHECK(r.error.empty());
      CHECK(firstDifference(r.rays, reference.rays) == -1);
      checkSameStats(r.stats, reference.stats);
      CHECK(r.summary == reference.summary);
      CHECK(r.calls == reference.calls);
      const ReadResult v = nextWith(dir / file, dir / "traj.txt",
                                    {.threads = way.threads, .chunkPoints = way.chunkPoints, .mapFile = way.mapFile}, 50);
      CHECK(firstDifference(v.rays, reference.rays) == -1);
      checkSameStats(v.stats, reference.stats);
      CHECK(v.summary == reference.summary);
    }
  }
}

TEST_CASE("RayReader threads: the mapped body decodes every PLY type as the stream does, after other elements",
          "[rays][threads]") {
  vt::TempDir dir("ray-pipeline");
  // Another element first (mapped: its rows are skipped by arithmetic), then vertices of every
  // scalar type, with an unused column between; an origin per point (a ray cloud).
  vt::Bytes b;
  const size_t n = 300;
  b.data = "ply\nformat binary_little_endian 1.0\nelement camera 3\nproperty double fx\nproperty uchar id\n"
           "element vertex " + std::to_string(n) +
           "\nproperty char x\nproperty short y\nproperty ushort z\nproperty float unused\nproperty int ox\n"
           "property uint oy\nproperty uchar oz\nproperty double time\nproperty float intensity\nend_header\n";
  for (int i = 0; i < 3; ++i) b.put<double>(500.0 + i).put<uint8_t>(uint8_t(i));
  for (size_t i = 0; i < n; ++i) {
    b.put<int8_t>(int8_t(int(i % 256) - 128)).put<int16_t>(int16_t(-int(i) * 100)).put<uint16_t>(uint16_t(60000 + i));
    b.put<float>(1.5f).put<int32_t>(-int32_t(i) * 1000000).put<uint32_t>(uint32_t(4000000000u + i)).put<uint8_t>(uint8_t(i));
    b.put<double>(1.7e9 + double(i) * 1e-3).put<float>(float(i) * 0.5f);
  }
  dir.write("types.ply", b.data);
  const ReadResult streamed = readWith(dir / "types.ply", std::nullopt, {.threads = 1, .mapFile = false});
  REQUIRE(streamed.error.empty());
  REQUIRE(streamed.rays.size() == n);
  CHECK(streamed.rays[5].sample == glm::dvec3(-123, -500, 60005));
  CHECK(streamed.rays[5].origin == glm::dvec3(-5000000, 4000000005.0, 5));
  CHECK(streamed.rays[5].intensity == 2.5f);
  for (const Way& way : kWays) {
    INFO(wayName(way));
    RayReader reader(dir / "types.ply", std::nullopt, {.threads = way.threads, .chunkPoints = way.chunkPoints, .mapFile = way.mapFile});
    CHECK(reader.mapped() == way.mapFile);
    std::vector<Ray> rays;
    while (reader.read(rays, 1000) > 0) {
    }
    CHECK(firstDifference(rays, streamed.rays) == -1);
    checkSameStats(reader.stats(), streamed.stats);
  }

  // A list property in the vertex element: rows vary in size, so the body streams.
  vt::Bytes l;
  l.data = "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nproperty list uchar int ids\n"
           "property float y\nproperty float z\nproperty float ox\nproperty float oy\nproperty float oz\nend_header\n";
  for (int i = 0; i < 2; ++i) {
    l.put<float>(float(i)).put<uint8_t>(uint8_t(i));
    for (int k = 0; k < i; ++k) l.put<int32_t>(k);
    l.put<float>(2).put<float>(3).put<float>(0).put<float>(0).put<float>(0);
  }
  dir.write("list.ply", l.data);
  RayReader withList(dir / "list.ply", std::nullopt, {.threads = 2, .chunkPoints = 1});
  CHECK_FALSE(withList.mapped());
  std::vector<Ray> listRays;
  while (withList.read(listRays, 10) > 0) {
  }
  REQUIRE(listRays.size() == 2);
  CHECK(listRays[1].sample == glm::dvec3(1, 2, 3));
}

TEST_CASE("RayReader threads: a malformed body gives PlyReader's error, in order, whatever the thread count",
          "[rays][threads][errors]") {
  vt::TempDir dir("ray-pipeline");
  dir.write("traj.txt", kTrajectory);
  const size_t n = 600;
  // ASCII with a bad value in the middle (row 450, chunk 7 of 64-point chunks).
  std::string text = asciiHeader(n, {"float x", "float y", "float z", "double time"});
  for (size_t i = 0; i < n; ++i) text += i == 450 ? "1 2 3 oops\n" : "1 2 3 " + std::to_string(i % 16) + "\n";
  dir.write("bad_value.ply", text);
  // ASCII with a row too many.
  std::string extra = asciiHeader(n, {"float x", "float y", "float z", "double time"});
  for (size_t i = 0; i <= n; ++i) extra += "1 2 3 4\n";
  dir.write("extra_row.ply", extra);
  // Binary cut short in row 500: the truncation is found by the stream, even when mapping.
  vt::Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement vertex " + std::to_string(n) +
           "\nproperty float x\nproperty float y\nproperty float z\nproperty double time\nend_header\n";
  for (size_t i = 0; i < 500; ++i) b.put<float>(1).put<float>(2).put<float>(3).put<double>(double(i % 16));
  b.put<float>(1).put<float>(2);
  dir.write("truncated.ply", b.data);

  // What the error must be: PlyReader's own, reading the same columns row by row, as the
  // reader without threads always reported it.
  auto plyError = [&](const std::string& file) {
    return vt::errorOf([&] {
      voxen::PlyReader ply(dir / file);
      ply.selectColumns(std::vector<std::string>{"x", "y", "z", "time"});
      std::vector<double> values;
      while (ply.read(values, 1) > 0) {
      }
    });
  };
  struct Case {
    const char* file;
    const char* contains;
    size_t raysBefore;  // rays returned before the error: every row before the bad one's chunk
  };
  for (const Case& c : {Case{"bad_value.ply", "bad_value.ply:459: vertex 450, property 'time': 'oops'", 448},
                        Case{"extra_row.ply", "data after the 600 vertex elements", 576},
                        Case{"truncated.ply", "truncated.ply: vertex 500 (byte offset", 448}}) {
    INFO(c.file);
    const std::string expected = plyError(c.file);
    CHECK_THAT(expected, Contains(c.contains));
    for (const Way& way : kWays) {
      INFO(wayName(way));
      const ReadResult r = readWith(dir / c.file, dir / "traj.txt",
                                    {.threads = way.threads, .chunkPoints = way.chunkPoints, .mapFile = way.mapFile}, 50);
      CHECK(r.error == expected);
      if (way.chunkPoints == 64) CHECK(r.rays.size() == c.raysBefore);
      const ReadResult v = nextWith(dir / c.file, dir / "traj.txt",
                                    {.threads = way.threads, .chunkPoints = way.chunkPoints, .mapFile = way.mapFile});
      CHECK(v.error == expected);
      if (way.chunkPoints == 64) CHECK(v.rays.size() == c.raysBefore);
    }
    // The error is a voxen::Error on the caller's thread, and the reader is spent after it.
    RayReader reader(dir / c.file, dir / "traj.txt", {.threads = 8, .chunkPoints = 64});
    std::vector<Ray> rays;
    CHECK_THROWS_AS([&] { while (reader.read(rays, 50) > 0) {} }(), voxen::Error);
    CHECK_THAT(vt::errorOf([&] { reader.read(rays, 50); }), Contains("cannot continue after an earlier error"));
  }

  // A time-unit mismatch (nanosecond times against a trajectory in seconds) is found once
  // every chunk has been read, with the same words.
  std::string ns = asciiHeader(n, {"float x", "float y", "float z", "double time"});
  for (size_t i = 0; i < n; ++i) ns += "1 2 3 " + std::to_string(1000000000ull + i * 10000000ull) + "\n";
  dir.write("ns.ply", ns);
  const ReadResult one = readWith(dir / "ns.ply", dir / "traj.txt", {.threads = 1});
  CHECK_THAT(one.error, Contains("look like nanoseconds") && Contains("traj.txt"));
  for (const Way& way : kWays) {
    INFO(wayName(way));
    CHECK(readWith(dir / "ns.ply", dir / "traj.txt",
                   {.threads = way.threads, .chunkPoints = way.chunkPoints, .mapFile = way.mapFile})
              .error == one.error);
  }
}

TEST_CASE("RayReader threads: a reader dropped early, or by an exception, stops its workers", "[rays][threads]") {
  vt::TempDir dir("ray-pipeline");
  dir.write("traj.txt", kTrajectory);
  const size_t n = 200000;
  vt::Bytes b;
  b.data = "ply\nformat binary_little_endian 1.0\nelement vertex " + std::to_string(n) +
           "\nproperty float x\nproperty float y\nproperty float z\nproperty double time\nend_header\n";
  for (size_t i = 0; i < n; ++i) b.put<float>(float(i)).put<float>(0).put<float>(0).put<double>(double(i % 1600) * 0.01);
  dir.write("big.ply", b.data);
  std::string text = asciiHeader(20000, {"float x", "float y", "float z", "double time"});
  for (size_t i = 0; i < 20000; ++i) text += "1 2 3 " + std::to_string(double(i % 1600) * 0.01) + "\n";
  dir.write("big_ascii.ply", text);

  for (const char* file : {"big.ply", "big_ascii.ply"}) {
    INFO(file);
    const auto cloud = dir / file, traj = dir / "traj.txt";
    // Never read: the workers fill the ring and wait for a consumer that never comes.
    CHECK(finishesWithin(std::chrono::seconds(60), [=] { RayReader reader(cloud, traj, {.threads = 8, .chunkPoints = 64}); }));
    // One batch read, then dropped with most chunks still ahead.
    CHECK(finishesWithin(std::chrono::seconds(60), [=] {
      RayReader reader(cloud, traj, {.threads = 8, .chunkPoints = 64});
      std::vector<Ray> rays;
      reader.read(rays, 1000);
    }));
    // A view taken through next(), then dropped.
    CHECK(finishesWithin(std::chrono::seconds(60), [=] {
      RayReader reader(cloud, traj, {.threads = 8, .chunkPoints = 64});
      CHECK_NOTHROW(reader.next());
    }));
    // The consumer throws (an integrator failing, say) while the workers run.
    CHECK(finishesWithin(std::chrono::seconds(60), [=] {
      try {
        RayReader reader(cloud, traj, {.threads = 4, .chunkPoints = 128});
        std::vector<Ray> rays;
        for (int i = 0; reader.read(rays, 500) > 0; ++i)
          if (i == 3) throw std::runtime_error("consumer failed");
      } catch (const std::runtime_error&) {
      }
    }));
    // Moved, then read to the end from the new owner.
    CHECK(finishesWithin(std::chrono::seconds(60), [=] {
      RayReader first(cloud, traj, {.threads = 2, .chunkPoints = 1000});
      RayReader second = std::move(first);
      std::vector<Ray> rays;
      while (second.read(rays, 4096) > 0) {
      }
    }));
  }
}
