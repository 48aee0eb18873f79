// Hot reload: edits to a shader or to a file it includes swap the pipeline at the next
// batch; a broken edit keeps the old pipeline running and reports file:line; fixing it
// recovers without a restart.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"

#ifndef VOXEN_TEST_SOURCE_DIR
#error "VOXEN_TEST_SOURCE_DIR must name the repository root"
#endif

namespace {

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The probe shader; `body` is line 10.
std::string probeShader(const std::string& body) {
  return "#version 460\n"                                          // 1
         "#extension GL_GOOGLE_include_directive : require\n"      // 2
         "#include \"../common/buffers.glsl\"\n"                   // 3
         "#include \"value.glsl\"\n"                               // 4
         "\n"                                                      // 5
         "layout(local_size_x = 1) in;\n"                          // 6
         "layout(push_constant) uniform Push { UintArray dst; } pc;\n"  // 7
         "\n"                                                      // 8
         "void main() {\n"                                         // 9
         + body + "\n" +                                           // 10
         "  pc.dst.v[1] = PROBE_NONCE;\n"                          // 11
         "}\n";                                                    // 12
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

TEST_CASE("Hot reload swaps pipelines on edits and survives broken ones", "[shaders][hotreload]") {
  auto& gpu = vt::gpu();
  vt::TempDir dir("hot-reload");
  dir.write("common/buffers.glsl", readFile(std::filesystem::path(VOXEN_TEST_SOURCE_DIR) / "shaders/common/buffers.glsl"));
  // A per-run constant, so that Mesa's on-disk shader cache cannot hide the compile time
  // from the measured reload latency.
  const std::string nonce = "#define PROBE_NONCE " +
                            std::to_string(uint32_t(std::chrono::steady_clock::now().time_since_epoch().count())) + "u\n";
  auto valueFile = [&](const std::string& define) { return nonce + define; };
  dir.write("probe/value.glsl", valueFile("#define PROBE_VALUE 1u\n"));
  dir.write("probe/reload.comp", probeShader("  pc.dst.v[0] = PROBE_VALUE * 1u;"));

  std::vector<std::string> log;
  voxen::ShaderLibrary library(gpu.device, voxen::ShaderLibraryOptions{
                                               .hotReloadDir = dir.path(),
                                               .log = [&](const std::string& line) { log.push_back(line); },
                                           });
  voxen::Scheduler scheduler(gpu.device, library,
                             voxen::SchedulerOptions{.stagingBytes = 1 << 20, .transientBytes = 1 << 16, .batchesInFlight = 2});
  voxen::Buffer out(gpu.device, "hot-reload-out", 256);
  REQUIRE(library.hotReloadEnabled());
  const auto kernel = library.kernel("probe/reload.comp");
  REQUIRE(kernel);

  auto run = [&]() -> uint32_t {
    scheduler.dispatch({.name = "hot-reload-probe", .kernel = kernel.get(), .groups = {1, 1, 1},
                        .push = out.address(), .uses = {voxen::writes(out)}});
    const auto got = vt::readBack<uint32_t>(scheduler, out.range(0, 4));
    return got.at(0);
  };
  std::vector<double> latencies;
  // Saves a file, runs the probe once (one new batch) and returns its result.
  auto editAndRun = [&](const std::string& relative, const std::string& text) {
    const auto start = std::chrono::steady_clock::now();
    dir.saveLikeEditor(relative, text);
    const uint32_t value = run();
    latencies.push_back(vt::msSince(start));
    return value;
  };

  REQUIRE(run() == 1);
  const uint64_t gen0 = kernel->generation();
  CHECK(run() == 1);
  CHECK(kernel->generation() == gen0);  // nothing changed: nothing reloaded
  CHECK(library.reloadErrors().empty());

  SECTION("edits, a broken edit and its fix") {
    // 1. The shader's body changes.
    CHECK(editAndRun("probe/reload.comp", probeShader("  pc.dst.v[0] = PROBE_VALUE * 10u;")) == 10);
    CHECK(kernel->generation() == gen0 + 1);
    CHECK(library.reloadErrors().empty());

    // 2. The included file changes.
    CHECK(editAndRun("probe/value.glsl", valueFile("#define PROBE_VALUE 7u\n")) == 70);
    CHECK(kernel->generation() == gen0 + 2);

    // 3. A broken edit on line 10: the old pipeline keeps running and the error is reported.
    log.clear();
    CHECK(editAndRun("probe/reload.comp", probeShader("  pc.dst.v[0] = PROBE_VALUE * 100u +;")) == 70);
    CHECK(kernel->generation() == gen0 + 2);
    {
      const auto errors = library.reloadErrors();
      REQUIRE_FALSE(errors.empty());
      bool found = false;
      for (const auto& e : errors) {
        INFO(e.str());
        if (endsWith(e.file, "probe/reload.comp") && e.line == 10) found = true;
      }
      CHECK(found);
      bool logged = false;
      for (const auto& line : log)
        if (line.find("reload.comp:10") != std::string::npos) logged = true;
      INFO("log lines: " << log.size());
      CHECK(logged);
    }
    CHECK(run() == 70);  // still the old pipeline, batch after batch

    // 4. Fixing it recovers.
    CHECK(editAndRun("probe/reload.comp", probeShader("  pc.dst.v[0] = PROBE_VALUE * 100u;")) == 700);
    CHECK(kernel->generation() == gen0 + 3);
    CHECK(library.reloadErrors().empty());

    // 5. A broken include (line 3 of value.glsl, after the nonce), then its fix.
    CHECK(editAndRun("probe/value.glsl", valueFile("#define PROBE_VALUE 9u\nconst uint broken = ;\n")) == 700);
    {
      const auto errors = library.reloadErrors();
      REQUIRE_FALSE(errors.empty());
      bool found = false;
      for (const auto& e : errors) {
        INFO(e.str());
        if (endsWith(e.file, "probe/value.glsl") && e.line == 3) found = true;
      }
      CHECK(found);
    }
    CHECK(kernel->generation() == gen0 + 3);
    CHECK(editAndRun("probe/value.glsl", valueFile("#define PROBE_VALUE 9u\n")) == 900);
    CHECK(kernel->generation() == gen0 + 4);
    CHECK(library.reloadErrors().empty());

    scheduler.finish();
    CHECK(scheduler.stats().kernelSwaps == 4);

    std::ostringstream text;
    for (double ms : latencies) text << " " << ms;
    WARN("hot reload latency (save -> swapped pipeline's result read back), ms:" << text.str());
    std::cout << "voxen_tests: hot-reload latencies ms:" << text.str() << "\n";
  }

  SECTION("a file written in place (not renamed) is picked up too") {
    dir.write("probe/value.glsl", valueFile("#define PROBE_VALUE 3u\n"));
    CHECK(run() == 3);
    CHECK(kernel->generation() == gen0 + 1);
  }
}

TEST_CASE("Hot reload reports one line per changed file, however many variants it rebuilds", "[shaders][hotreload]") {
  auto& gpu = vt::gpu();
  vt::TempDir dir("hot-reload-variants");
  dir.write("common/buffers.glsl", readFile(std::filesystem::path(VOXEN_TEST_SOURCE_DIR) / "shaders/common/buffers.glsl"));
  dir.write("probe/value.glsl", "#define PROBE_NONCE 1u\n#define PROBE_VALUE 1u\n");
  dir.write("probe/reload.comp", probeShader("  pc.dst.v[0] = PROBE_VALUE * SCALE;"));
  dir.write("probe/other.comp", probeShader("  pc.dst.v[0] = PROBE_VALUE;"));

  std::vector<std::string> log;
  // A relative folder, as `--hot-reload=shaders` gives it: edits must still be matched.
  const std::filesystem::path relative = std::filesystem::relative(dir.path());
  REQUIRE(relative.is_relative());
  voxen::ShaderLibrary library(gpu.device, voxen::ShaderLibraryOptions{
                                               .hotReloadDir = relative,
                                               .log = [&](const std::string& line) { log.push_back(line); },
                                           });
  // Three variants of one kernel and another kernel, all including value.glsl.
  std::vector<std::shared_ptr<voxen::Kernel>> kernels;
  for (const char* scale : {"1u", "2u", "3u"})
    kernels.push_back(library.kernel("probe/reload.comp", {.defines = {{"SCALE", scale}}}));
  kernels.push_back(library.kernel("probe/other.comp"));
  log.clear();

  // Polls until every kernel has been swapped (inotify is quick, a loaded machine is not).
  auto reloadAll = [&](uint64_t generation) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    size_t swapped = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      swapped += library.reloadChanged(0);
      bool all = true;
      for (const auto& k : kernels) all = all && k->generation() == generation;
      if (all) return swapped;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return swapped;
  };
  auto linesWith = [&](const std::string& text) {
    std::vector<std::string> found;
    for (const auto& line : log)
      if (line.find(text) != std::string::npos) found.push_back(line);
    return found;
  };

  dir.saveLikeEditor("probe/value.glsl", "#define PROBE_NONCE 2u\n#define PROBE_VALUE 2u\n");
  CHECK(reloadAll(1) == 4);
  const auto reloaded = linesWith("reloaded");
  INFO("log: " << log.size() << " lines");
  REQUIRE(reloaded.size() == 1);
  CHECK(reloaded[0] == "reloaded probe/value.glsl: probe/other.comp, probe/reload.comp (4 pipelines)");

  // A broken include: one error, naming both kernels; its fix: one line per recovered shader
  // and one for the file.
  log.clear();
  dir.saveLikeEditor("probe/value.glsl", "#define PROBE_NONCE 3u\nconst uint broken = ;\n");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (linesWith("reload failed").empty() && std::chrono::steady_clock::now() < deadline) {
    library.reloadChanged(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto failed = linesWith("reload failed");
  REQUIRE(failed.size() == 1);
  CHECK_THAT(failed[0], Catch::Contains("probe/other.comp, probe/reload.comp") && Catch::Contains("value.glsl:2"));
  log.clear();
  dir.saveLikeEditor("probe/value.glsl", "#define PROBE_NONCE 4u\n#define PROBE_VALUE 4u\n");
  CHECK(reloadAll(2) == 4);
  CHECK(linesWith("reloaded").size() == 1);
  CHECK(linesWith("compiles again").size() == 2);  // probe/other.comp and probe/reload.comp, once each
}
