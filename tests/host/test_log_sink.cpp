// The library's one log sink (voxen/host/log.hpp): a redirected sink gets every message with
// its level, setLogSink hands back the sink it replaces, the default writes "voxen: <message>"
// lines to stderr, and real library messages arrive there: a hot-reload compile error (at
// LogLevel::Error, its recovery at Info) of a ShaderLibrary without its own log callback, and
// a validation message of a Device without onValidationMessage.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/validation_probe.hpp"
#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/log.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

struct LogEntry {
  voxen::LogLevel level;
  std::string message;
};

// Captures every message while alive and puts the previous sink back when it dies, also
// when a REQUIRE ends the test case early. Messages may come from the library's threads,
// hence the lock.
class CapturedLog {
 public:
  CapturedLog()
      : previous_(voxen::setLogSink([this](voxen::LogLevel level, const std::string& message) {
          std::lock_guard lock(mutex_);
          entries_.push_back({level, message});
        })) {}
  ~CapturedLog() { voxen::setLogSink(std::move(previous_)); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::vector<LogEntry> entries() const {
    std::lock_guard lock(mutex_);
    return entries_;
  }
  // The first message that contains `text`.
  std::optional<LogEntry> find(const std::string& text) const {
    std::lock_guard lock(mutex_);
    for (const auto& entry : entries_)
      if (entry.message.find(text) != std::string::npos) return entry;
    return std::nullopt;
  }

 private:
  mutable std::mutex mutex_;  // declared before previous_: ready when the sink is installed
  std::vector<LogEntry> entries_;
  voxen::LogSink previous_;
};

// Installs `sink` and puts back whatever it replaced at the end of the scope.
class ScopedSink {
 public:
  explicit ScopedSink(voxen::LogSink sink) : previous_(voxen::setLogSink(std::move(sink))) {}
  ~ScopedSink() { voxen::setLogSink(std::move(previous_)); }
  ScopedSink(const ScopedSink&) = delete;
  ScopedSink& operator=(const ScopedSink&) = delete;

 private:
  voxen::LogSink previous_;
};

// What `write` sends to file descriptor 2, read back from a temp file. No Catch assertion
// may run inside `write`: its report would land in the file.
std::string stderrOf(const std::function<void()>& write) {
  vt::TempDir dir("log-sink-stderr");
  const auto path = dir / "stderr.txt";
  std::fflush(stderr);
  const int saved = ::dup(2);
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(saved >= 0);
  REQUIRE(file >= 0);
  ::dup2(file, 2);
  ::close(file);
  auto restore = [&] {
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
  };
  try {
    write();
  } catch (...) {
    restore();
    throw;
  }
  restore();
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A compute shader that compiles, or with `broken` a syntax error on line 3.
std::string probeShader(bool broken) {
  return std::string("#version 460\n") +                          // 1
         "layout(local_size_x = 1) in;\n" +                        // 2
         (broken ? "void main() { uint x = ; }\n" : "void main() { uint x = 1u; }\n");  // 3
}

}  // namespace

TEST_CASE("A redirected log sink receives every message with its level, and stderr none", "[log]") {
  CapturedLog log;
  const std::string written = stderrOf([] {
    voxen::logMessage(voxen::LogLevel::Info, "info probe");
    voxen::logMessage(voxen::LogLevel::Warning, "warning probe");
    voxen::logMessage(voxen::LogLevel::Error, "error probe");
  });
  CHECK(written.empty());

  const auto entries = log.entries();
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].level == voxen::LogLevel::Info);
  CHECK(entries[0].message == "info probe");
  CHECK(entries[1].level == voxen::LogLevel::Warning);
  CHECK(entries[1].message == "warning probe");
  CHECK(entries[2].level == voxen::LogLevel::Error);
  CHECK(entries[2].message == "error probe");

  CHECK(std::string(voxen::logLevelName(voxen::LogLevel::Info)) == "info");
  CHECK(std::string(voxen::logLevelName(voxen::LogLevel::Warning)) == "warning");
  CHECK(std::string(voxen::logLevelName(voxen::LogLevel::Error)) == "error");
}

TEST_CASE("setLogSink returns the sink it replaces, and setting that one again restores it", "[log]") {
  std::vector<std::string> first;
  std::vector<std::string> second;
  auto into = [](std::vector<std::string>& lines) {
    return [&lines](voxen::LogLevel, const std::string& message) { lines.push_back(message); };
  };

  ScopedSink outer(into(first));
  voxen::LogSink replaced = voxen::setLogSink(into(second));
  REQUIRE(replaced);
  replaced(voxen::LogLevel::Info, "called through the returned sink");  // it is `first`
  voxen::logMessage(voxen::LogLevel::Info, "while second is set");

  const voxen::LogSink secondBack = voxen::setLogSink(std::move(replaced));
  REQUIRE(secondBack);
  voxen::logMessage(voxen::LogLevel::Info, "after restoring first");

  CHECK(first == std::vector<std::string>{"called through the returned sink", "after restoring first"});
  CHECK(second == std::vector<std::string>{"while second is set"});
}

TEST_CASE("The default log sink writes 'voxen: <message>' lines to stderr", "[log]") {
  // An empty sink is the default. Nothing in voxen_tests leaves a sink installed, so the
  // process still has the default here; setLogSink({}) makes sure either way.
  ScopedSink defaultSink(voxen::LogSink{});
  const std::string written = stderrOf([] {
    voxen::logMessage(voxen::LogLevel::Warning, "default sink probe");
    voxen::logMessage(voxen::LogLevel::Info, "second line");
  });
  CHECK(written == "voxen: default sink probe\nvoxen: second line\n");
}

#if VOXEN_HOT_RELOAD_BUILD  // a build without hot reload has no run-time compiler to report errors
TEST_CASE("A hot-reload compile error reaches the log sink when the ShaderLibrary has no log callback",
          "[log][shaders][hotreload]") {
  auto& gpu = vt::gpu();
  vt::TempDir dir("log-sink-reload");
  dir.write("probe/log-probe.comp", probeShader(false));

  CapturedLog log;
  // No ShaderLibraryOptions::log: the library's messages go to the log sink.
  voxen::ShaderLibrary library(gpu.device, voxen::ShaderLibraryOptions{.hotReloadDir = dir.path()});
  const auto watching = log.find("hot reload on: watching");
  REQUIRE(watching);
  CHECK(watching->level == voxen::LogLevel::Info);
  const auto kernel = library.kernel("probe/log-probe.comp");
  REQUIRE(kernel);

  // inotify reports the rename at once in practice; polling for a while keeps a slow
  // machine from failing the case. Nothing was submitted, so 0 is the last submission.
  auto reloadUntilLogged = [&](const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      library.reloadChanged(0);
      auto entry = log.find(text);
      if (entry || std::chrono::steady_clock::now() > deadline) return entry;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };

  dir.saveLikeEditor("probe/log-probe.comp", probeShader(true));
  const auto failure = reloadUntilLogged("shader reload failed");
  REQUIRE(failure);
  CHECK_THAT(failure->message, Contains("probe/log-probe.comp") && Contains("log-probe.comp:3"));
  CHECK(failure->level == voxen::LogLevel::Error);  // a sink that keeps only errors still sees it
  CHECK(kernel->generation() == 0);  // the old pipeline stays

  // Fixing the file is good news, at Info.
  dir.saveLikeEditor("probe/log-probe.comp", probeShader(false));
  const auto recovered = reloadUntilLogged("compiles again");
  REQUIRE(recovered);
  CHECK(recovered->level == voxen::LogLevel::Info);
  const auto reloaded = log.find("reloaded probe/log-probe.comp");
  REQUIRE(reloaded);
  CHECK(reloaded->level == voxen::LogLevel::Info);
  CHECK(kernel->generation() == 1);
}
#endif

TEST_CASE("A validation message of a Device without onValidationMessage reaches the log sink",
          "[log][device][validation]") {
  // A device of its own: its messages go to the sink, never to the test recorder that the
  // shared device reports to, so the validation listener in main.cpp is not involved.
  CapturedLog log;  // outlives the device, whose teardown could report too
  voxen::Device device(voxen::DeviceOptions{.validation = true});
  vt::createZeroSizeBuffer(device.handle());
  CHECK(device.validationMessageCount() >= 1);

  const auto message = log.find("VUID-VkBufferCreateInfo-size-00912");
  REQUIRE(message);
  CHECK(message->level == voxen::LogLevel::Error);
  CHECK_THAT(message->message, StartsWith("validation error: "));
}
