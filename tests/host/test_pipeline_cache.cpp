// The persistent pipeline cache (issue 26): a library writes its VkPipelineCache's data to a
// file when pipelines were made, the next library on the same device reads it back; a file
// that is corrupt, truncated, made for another key or not ours at all is ignored and
// replaced; concurrent writers leave a whole file; an unwritable folder costs only the
// saving. Pipelines are made at their first use, not when a kernel is asked for, unless the
// previous library with the same cache dispatched that kernel: then a worker thread makes it
// ahead.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/pipeline_cache_file.hpp"

namespace fs = std::filesystem;

namespace {

voxen::ShaderLibraryOptions cacheIn(const fs::path& dir) {
  voxen::ShaderLibraryOptions options;
  options.pipelineCache = dir.string();
  options.log = [](const std::string&) {};
  return options;
}

// Makes one pipeline in a library of its own and destroys it (which saves the cache).
voxen::ShaderLibraryStartup runOnce(const fs::path& dir) {
  voxen::ShaderLibrary library(vt::gpu().device, cacheIn(dir));
  REQUIRE(library.kernel("selftest/fill_iota.comp")->pipeline() != VK_NULL_HANDLE);
  return library.startup();
}

// Every file in the folder but the list of kernels used (pipelines-*.kernels).
std::vector<fs::path> cacheFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  if (fs::exists(dir))
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() != ".kernels") files.push_back(entry.path());
  return files;
}

fs::path kernelListOf(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".kernels") return entry.path();
  return {};
}

// Waits (up to 60 s: lavapipe under a loaded machine) until the library's workers have
// created `count` pipelines ahead.
bool createdAhead(const voxen::ShaderLibrary& library, size_t count) {
  for (int i = 0; i < 6000 && library.startup().pipelinesCreatedAhead < count; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return library.startup().pipelinesCreatedAhead == count;
}

std::string readAll(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeAll(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

TEST_CASE("the pipeline cache is written when pipelines were made and read by the next library", "[pipeline-cache]") {
  vt::TempDir dir("pipeline-cache");
  const voxen::ShaderLibraryStartup first = runOnce(dir.path());
  CHECK(first.cacheState == "none yet");
  CHECK(first.pipelinesCreated == 1);
  const auto files = cacheFiles(dir.path());
  REQUIRE(files.size() == 1);  // no temporary file left behind
  CHECK(fs::exists(kernelListOf(dir.path())));
  CHECK(files[0].filename().string().rfind("pipelines-", 0) == 0);
  CHECK(first.cacheFile == files[0].string());

  const voxen::ShaderLibraryStartup second = runOnce(dir.path());
  CHECK(second.cacheState == "loaded");
  CHECK(second.cacheBytesLoaded > 0);
  // Our header (magic 8, version 4, key size 4, key 68, data size 8, checksum 8), then the data.
  CHECK(fs::file_size(files[0]) == 100 + second.cacheBytesLoaded);
  CHECK(cacheFiles(dir.path()).size() == 1);
}

TEST_CASE("kernels get their pipeline at their first use, and a library that made none writes no file",
          "[pipeline-cache]") {
  vt::TempDir dir("pipeline-cache-lazy");
  {
    voxen::ShaderLibrary library(vt::gpu().device, cacheIn(dir.path()));
    const auto kernel = library.kernel("selftest/fill_iota.comp");
    CHECK(kernel->localSize().x > 0);  // known without a pipeline
    CHECK(library.startup().pipelinesCreated == 0);
  }
  CHECK(cacheFiles(dir.path()).empty());
}

TEST_CASE("a corrupt, truncated, foreign or alien pipeline cache file is ignored and replaced", "[pipeline-cache]") {
  vt::TempDir dir("pipeline-cache-bad");
  runOnce(dir.path());
  const fs::path file = cacheFiles(dir.path()).at(0);
  const std::string good = readAll(file);
  REQUIRE(good.size() > 64);

  struct Case {
    const char* name;
    std::string bytes;
    const char* problem;
  };
  std::string flipped = good;
  flipped.back() = char(flipped.back() ^ 0x5a);
  std::string foreign = good;
  foreign[8 + 8 + 3 * VK_UUID_SIZE + 12] ^= 1;  // the key's shader-set hash
  std::string longer = good + "x";
  const std::vector<Case> cases = {
      {"corrupt data", flipped, "corrupt"},
      {"truncated", good.substr(0, good.size() - 7), "truncated"},
      {"longer", longer, "truncated or has extra bytes"},
      {"another key", foreign, "another device, driver or shader set"},
      {"not ours", "garbage, not a pipeline cache", "not a Voxen pipeline cache"},
      {"empty", "", "not a Voxen pipeline cache"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      writeAll(file, c.bytes);
      const voxen::ShaderLibraryStartup ignored = runOnce(dir.path());
      CHECK_THAT(ignored.cacheState, Catch::Contains("ignored") && Catch::Contains(c.problem));
      CHECK(ignored.cacheBytesLoaded == 0);
      // Replaced by the library that ignored it, and read by the next one.
      CHECK(runOnce(dir.path()).cacheState == "loaded");
    }
  }
}

TEST_CASE("a pipeline cache folder that cannot be made costs only the saving; off means no file", "[pipeline-cache]") {
  vt::TempDir dir("pipeline-cache-ro");
  writeAll(dir / "a-file", "x");
  // A folder under a regular file cannot be created, by root either.
  const voxen::ShaderLibraryStartup unwritable = runOnce(dir / "a-file" / "cache");
  CHECK(unwritable.cacheState == "none yet");
  CHECK(unwritable.cacheBytesSaved == 0);

  voxen::ShaderLibraryOptions off = cacheIn("off");
  voxen::ShaderLibrary library(vt::gpu().device, off);
  CHECK(library.startup().cacheState == "off");
  CHECK(library.startup().cacheFile.empty());
}

TEST_CASE("the pipeline cache folder comes from VOXEN_PIPELINE_CACHE, else XDG_CACHE_HOME, else HOME", "[pipeline-cache]") {
  using voxen::detail::pipelineCacheDir;
  CHECK(pipelineCacheDir("/some/where") == fs::path("/some/where"));
  CHECK_FALSE(pipelineCacheDir("off"));
  // Restored at the end: the other cases of this process rely on the tests' cache folder.
  auto saved = [](const char* name) { return std::getenv(name) ? std::string(std::getenv(name)) : std::string(); };
  const std::string cache = saved("VOXEN_PIPELINE_CACHE"), xdg = saved("XDG_CACHE_HOME"), home = saved("HOME");
  ::setenv("VOXEN_PIPELINE_CACHE", "/env/dir", 1);
  CHECK(pipelineCacheDir("") == fs::path("/env/dir"));
  ::unsetenv("VOXEN_PIPELINE_CACHE");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  CHECK(pipelineCacheDir("") == fs::path("/xdg/voxen"));
  ::setenv("XDG_CACHE_HOME", "relative", 1);  // ignored, as the XDG spec says
  ::setenv("HOME", "/home/someone", 1);
  CHECK(pipelineCacheDir("") == fs::path("/home/someone/.cache/voxen"));
  ::setenv("VOXEN_PIPELINE_CACHE", cache.c_str(), 1);
  ::setenv("HOME", home.c_str(), 1);
  if (xdg.empty()) ::unsetenv("XDG_CACHE_HOME"); else ::setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
}

TEST_CASE("concurrent writers of a pipeline cache file leave a whole file, and a reader never sees half of one",
          "[pipeline-cache]") {
  vt::TempDir dir("pipeline-cache-race");
  voxen::detail::PipelineCacheKey key;
  key.vendorId = 0x1234;
  key.deviceId = 0x5678;
  key.pipelineCacheUuid.fill(7);
  const fs::path file = dir / key.fileName();
  // Valid driver data: Vulkan's header for this key, then a body of the writer's size.
  auto data = [&](size_t body) {
    std::vector<uint8_t> bytes(32 + body, uint8_t(body));
    const uint32_t header[4] = {32, VK_PIPELINE_CACHE_HEADER_VERSION_ONE, key.vendorId, key.deviceId};
    std::memcpy(bytes.data(), header, sizeof header);
    std::memcpy(bytes.data() + 16, key.pipelineCacheUuid.data(), VK_UUID_SIZE);
    return bytes;
  };
  std::atomic<bool> done{false};
  std::atomic<int> bad{0}, whole{0};
  std::vector<std::thread> writers;
  for (size_t w = 0; w < 3; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 200; ++i) CHECK(voxen::detail::writePipelineCacheFile(file, key, data(100000 * (w + 1))).empty());
    });
  std::thread reader([&] {
    while (!done) {
      const voxen::detail::PipelineCacheRead read = voxen::detail::readPipelineCacheFile(file, key);
      if (!read.problem.empty()) ++bad;
      if (!read.data.empty()) ++whole;
    }
  });
  for (auto& t : writers) t.join();
  done = true;
  reader.join();
  CHECK(bad == 0);
  CHECK(whole > 0);
  CHECK(voxen::detail::readPipelineCacheFile(file, key).problem.empty());
  CHECK(cacheFiles(dir.path()).size() == 1);
}

TEST_CASE("kernels the previous library dispatched are created ahead on a worker thread, once", "[pipeline-cache]") {
  vt::TempDir dir("pipeline-cache-ahead");
  runOnce(dir.path());  // dispatches fill_iota
  {
    voxen::ShaderLibrary library(vt::gpu().device, cacheIn(dir.path()));
    const auto used = library.kernel("selftest/fill_iota.comp");
    const auto other = library.kernel("selftest/saxpy.comp");  // never used before: made at its first use
    REQUIRE(createdAhead(library, 1));
    CHECK(library.startup().pipelinesCreated == 1);
    CHECK(used->pipeline() != VK_NULL_HANDLE);
    CHECK(library.startup().pipelinesCreated == 1);  // not made a second time
    CHECK(other->pipeline() != VK_NULL_HANDLE);
    CHECK(library.startup().pipelinesCreated == 2);
    CHECK(library.startup().pipelinesCreatedAhead == 1);
  }
  // Both were dispatched: the next library makes both ahead.
  {
    voxen::ShaderLibrary library(vt::gpu().device, cacheIn(dir.path()));
    library.kernel("selftest/fill_iota.comp");
    library.kernel("selftest/saxpy.comp");
    CHECK(createdAhead(library, 2));
    // Made ahead but never dispatched: they leave the list, so that a list that once held
    // too much does not keep costing pipelines nobody uses.
  }
  {
    voxen::ShaderLibrary library(vt::gpu().device, cacheIn(dir.path()));
    library.kernel("selftest/fill_iota.comp");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(library.startup().pipelinesCreatedAhead == 0);
  }
}

TEST_CASE("no worker threads, or a corrupt list of kernels, means pipelines at their first use", "[pipeline-cache]") {
  vt::TempDir dir("pipeline-cache-ahead-off");
  runOnce(dir.path());
  {
    voxen::ShaderLibraryOptions options = cacheIn(dir.path());
    options.createAheadThreads = 0;
    voxen::ShaderLibrary library(vt::gpu().device, options);
    const auto kernel = library.kernel("selftest/fill_iota.comp");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(library.startup().pipelinesCreated == 0);
    CHECK(kernel->pipeline() != VK_NULL_HANDLE);
  }
  const fs::path list = kernelListOf(dir.path());
  REQUIRE(fs::exists(list));
  std::string bytes = readAll(list);
  bytes.back() = char(bytes.back() ^ 0x5a);  // the checksum no longer matches
  writeAll(list, bytes);
  voxen::ShaderLibrary library(vt::gpu().device, cacheIn(dir.path()));
  library.kernel("selftest/fill_iota.comp");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(library.startup().pipelinesCreated == 0);
}

TEST_CASE("the first run on a device says that it compiles shaders, a run with the cache does not", "[pipeline-cache]") {
  vt::TempDir dir("pipeline-cache-first-run");
  auto notesOf = [&](std::vector<std::string>& notes) {
    voxen::ShaderLibraryOptions options = cacheIn(dir.path());
    options.log = [&](const std::string& line) { notes.push_back(line); };
    voxen::ShaderLibrary library(vt::gpu().device, options);
    REQUIRE(library.kernel("selftest/fill_iota.comp")->pipeline() != VK_NULL_HANDLE);
  };
  auto says = [](const std::vector<std::string>& notes) {
    return std::any_of(notes.begin(), notes.end(),
                       [](const std::string& n) { return n.find("compiling shaders") != std::string::npos; });
  };
  std::vector<std::string> first, second;
  notesOf(first);
  CHECK(says(first));
  notesOf(second);  // the first library saved its cache when destroyed
  CHECK_FALSE(says(second));
}
