// What keeps a store run (voxen/store/store_mapping.hpp) safe to stop, copy and resume
// (issue 35, items 6 and 14): the content fingerprint of its inputs (XXH64, checked against
// the reference values of xxhash's own implementation), refused on resume when it changed;
// every checkpoint in the store's file alone (the write-ahead log folded into it), so that a
// copy of the file without its -wal holds it; and the run's recorded writer, told alive,
// gone (exited, a zombie, or its pid taken by another process) or on another host.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/store/input_fingerprint.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/store_mapping.hpp"
#include "voxen/store/writer_process.hpp"

namespace {

using namespace voxen;

uint64_t xxh64(std::span<const std::byte> bytes, size_t piece) {
  Xxh64 hash;
  for (size_t i = 0; i < bytes.size(); i += piece) hash.update(bytes.subspan(i, std::min(piece, bytes.size() - i)));
  return hash.digest();
}

std::span<const std::byte> bytesOf(const std::string& text) { return std::as_bytes(std::span<const char>(text.data(), text.size())); }

void writeFile(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("Xxh64 gives xxhash's values, fed whole or in pieces", "[store][fingerprint]") {
  std::string pattern;
  for (int copy = 0; copy < 4; ++copy)
    for (int i = 0; i < 256; ++i) pattern.push_back(char(i));
  pattern += "xyz";
  // The values libxxhash's XXH64(data, size, 0) returns.
  const std::vector<std::pair<std::string, uint64_t>> reference = {
      {"", 0xef46db3751d8e999ull}, {"a", 0xd24ec4f1a98c6e5bull}, {"abc", 0x44bc2cf5ad770999ull}, {pattern, 0xe146cb31b65bc21aull}};
  for (const auto& [text, expected] : reference)
    for (const size_t piece : {size_t(1), size_t(5), size_t(32), size_t(33), size_t(4096)}) {
      INFO(text.size() << " bytes in pieces of " << piece);
      CHECK(xxh64(bytesOf(text), piece) == expected);
    }
}

TEST_CASE("An input's fingerprint changes with any byte, also at the same size; a folder's with a renamed file", "[store][fingerprint]") {
  vt::TempDir dir("fingerprint");
  const auto file = dir / "cloud.ply";
  writeFile(file, std::string(3'000'000, 'p') + "1.2345 6.789");
  const std::string before = inputFingerprint(file);
  CHECK(before.starts_with("xxh64 "));
  CHECK(inputFingerprint(file) == before);
  writeFile(file, std::string(3'000'000, 'p') + "1.2345 6.788");  // one coordinate's last digit
  CHECK(inputFingerprint(file) != before);
  CHECK(fingerprintBytes(file) == 3'000'012);
  uint64_t lastProgress = 0;
  inputFingerprint(file, [&](uint64_t read) { lastProgress = read; });
  CHECK(lastProgress == 3'000'012);

  std::filesystem::create_directories(dir / "scans");
  writeFile(dir / "scans" / "000.pcd", "a");
  writeFile(dir / "scans" / "001.pcd", "b");
  const std::string folder = inputFingerprint(dir / "scans");
  std::filesystem::rename(dir / "scans" / "001.pcd", dir / "scans" / "002.pcd");
  CHECK(inputFingerprint(dir / "scans") != folder);
  CHECK(fingerprintBytes(dir / "scans") == 2);
  CHECK_THAT(errorOf([&] { inputFingerprint(dir / "missing.ply"); }), Catch::Contains("missing.ply") && Catch::Contains("fingerprint"));
}

TEST_CASE("A resumed run refuses an input whose content changed, naming the file", "[store][store-mapping][fingerprint]") {
  vt::TempDir dir("store-changed-input");
  const std::string path = (dir / "a.vxs").string();
  const StoreDescription description = StoreDescription::of(OccupancyMap());
  const RunSettings started = {{"--input", "/data/run.ply"}, {"--input (content)", "xxh64 00000000000000aa"},
                               {"--trajectory", "/data/run.txt"}, {"--trajectory (content)", "xxh64 00000000000000bb"}};
  StoreMapping::start(openMapStoreForWriting(path, description), started, {});
  RunSettings changed = started;
  changed[3].second = "xxh64 00000000000000cc";
  CHECK_THAT(errorOf([&] { StoreMapping::resume(openMapStoreForWriting(path, description), changed, {}); }),
             Catch::Contains("--trajectory /data/run.txt has changed since the run in store") &&
                 Catch::Contains("xxh64 00000000000000bb") && Catch::Contains("xxh64 00000000000000cc"));
  // A store started without fingerprints (an earlier Voxen) cannot vouch for its input.
  const std::string older = (dir / "older.vxs").string();
  StoreMapping::start(openMapStoreForWriting(older, description), {{"--input", "/data/run.ply"}}, {});
  CHECK_THAT(errorOf([&] { StoreMapping::resume(openMapStoreForWriting(older, description), started, {}); }),
             Catch::Contains("recorded no content fingerprint of --input /data/run.ply"));
  CHECK_NOTHROW(StoreMapping::resume(openMapStoreForWriting(path, description), started, {}));
}

TEST_CASE("Every checkpoint is in the store's file alone: a copy without its -wal holds it", "[store][store-mapping]") {
  vt::TempDir dir("store-fold");
  const std::string path = (dir / "run.vxs").string();
  const StoreDescription description = StoreDescription::of(OccupancyMap());
  auto mapping = StoreMapping::start(openMapStoreForWriting(path, description), {{"--input", "run.ply"}}, {.checkpointSeconds = 0.0},
                                     {{"arguments", "[]"}});
  OccupancyMap map;
  map.setRegionSource(mapping.get());
  for (int x = 0; x < 3; ++x) {
    map.region({x, 0, 0}).occupancy()[0] = 1.0f;
    map.markOccupancyChanged(RegionKey{x, 0, 0});
  }
  mapping->betweenChunks(map, 4096, false, [] {});
  REQUIRE(mapping->stats().checkpoints == 1);
  // The writer is still running (its store open): only the file is copied.
  std::filesystem::create_directories(dir / "copy");
  const auto copy = dir / "copy" / "run.vxs";
  std::filesystem::copy_file(path, copy);
  std::unique_ptr<MapStore> copied;
  REQUIRE_NOTHROW(copied = openMapStoreForReading(copy.string()));
  CHECK(copied->value("run.checkpoints") == "1");
  CHECK(copied->value("run.rays") == "4096");
  CHECK(copied->keys().size() == 3);
  CHECK(StoreMapping::recordedNote(*copied, "arguments") == "[]");
  map.setRegionSource(nullptr);
}

TEST_CASE("A run's recorded writer is told alive, gone (exited, a zombie, another process) or on another host", "[store][writer]") {
  const WriterProcess self = WriterProcess::self();
  CHECK(self.pid == int64_t(getpid()));
  CHECK(self.host == thisHostName());
  CHECK(writerStatus(self) == WriterStatus::Alive);
  // Another process with this pid (ours was killed, and the pid reused): another start.
  CHECK(writerStatus({self.pid, self.host, "another-boot 12345"}) == (self.started.empty() ? WriterStatus::Alive : WriterStatus::Gone));
  CHECK(writerStatus({self.pid, self.host + ".elsewhere", self.started}) == WriterStatus::OtherHost);

  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(0);
  // Exited, not yet reaped: a zombie, which writes nothing more.
  siginfo_t info{};
  REQUIRE(waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) == 0);
  CHECK(writerStatus({int64_t(child), self.host, ""}) == WriterStatus::Gone);
  REQUIRE(waitpid(child, nullptr, 0) == child);
  CHECK(writerStatus({int64_t(child), self.host, ""}) == WriterStatus::Gone);

  // The run records this process when it starts.
  vt::TempDir dir("store-writer");
  const std::string path = (dir / "a.vxs").string();
  StoreMapping::start(openMapStoreForWriting(path, StoreDescription::of(OccupancyMap())), {}, {});
  const std::optional<WriterProcess> recorded = StoreMapping::recordedWriter(*openMapStoreForReading(path));
  REQUIRE(recorded);
  CHECK(recorded->pid == self.pid);
  CHECK(recorded->host == self.host);
  CHECK(recorded->started == self.started);
}
