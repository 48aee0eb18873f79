// `voxen bench core`: the engine core's costs on this device, each beside a CPU reference
// measured in the same run: staging bandwidth against memcpy, a streaming kernel against a
// plain C++ loop, per-dispatch overhead, first-dispatch latency and hot-reload latency.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <vector>

#include "commands.hpp"
#include "stopwatch.hpp"
#include "voxen/gpu/selftest/selftest_push.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen::cli {

namespace {

namespace fs = std::filesystem;

using gpu::FillIotaPush;
using gpu::SaxpyPush;

struct Row {
  std::string what, unit;
  double gpu = 0, cpu = 0;  // cpu 0: no CPU counterpart
};

// Best of `repeats` runs of `body`, in seconds.
double bestOf(int repeats, const std::function<void()>& body) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto start = Clock::now();
    body();
    best = std::min(best, secondsSince(start));
  }
  return best;
}

// Time from an edit of a watched shader to a readback that shows the new pipeline's result.
double hotReloadLatencyMs(Device& device) {
  const fs::path dir = fs::temp_directory_path() / ("voxen-bench-reload-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(VOXEN_SOURCE_SHADER_DIR, dir, fs::copy_options::recursive);
  ShaderLibraryOptions options;
  options.hotReloadDir = dir;
  options.log = [](const std::string&) {};
  ShaderLibrary library(device, options);
  Scheduler scheduler(device, library, SchedulerOptions{.stagingBytes = 1 << 20, .transientBytes = 1 << 16});
  Buffer out(device, "reload bench", 4);
  auto kernel = library.kernel("selftest/fill_iota.comp");
  auto run = [&] {
    scheduler.dispatch({"iota", kernel.get(), {1, 1, 1}, FillIotaPush{out.address(), 1, 1, 0}, {writes(out)}});
    return scheduler.readback<uint32_t>(out).get()[0];
  };
  run();
  const fs::path shader = dir / "selftest/fill_iota.comp";
  std::stringstream text;
  text << std::ifstream(shader).rdbuf();
  std::string source = text.str();
  source.replace(source.find("pc.offset;"), 10, "pc.offset + 7u;");
  const auto start = Clock::now();
  {
    std::ofstream(dir / "selftest/edit.tmp") << source;
    fs::rename(dir / "selftest/edit.tmp", shader);  // as editors save
  }
  uint32_t value = 0;
  for (int tries = 0; tries < 1000 && value != 7; ++tries) value = run();
  const double ms = secondsSince(start) * 1e3;
  fs::remove_all(dir);
  return value == 7 ? ms : -1.0;
}

}  // namespace

int benchCoreCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  uint32_t megabytes = 256;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--mb" && i + 1 < args.size())
      megabytes = uint32_t(std::stoul(args[++i]));
    else
      throw UsageError("unexpected argument '" + args[i] + "' (bench core [--mb N] [--json] [--profile])");
  }
  Device device(options.device);
  const auto firstStart = Clock::now();
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  const size_t bytes = size_t(megabytes) << 20;
  const uint32_t count = uint32_t(bytes / 4);
  Buffer x(device, "bench x", bytes), y(device, "bench y", bytes);
  {
    auto iota = library.kernel("selftest/fill_iota.comp");
    scheduler.dispatch({"iota", iota.get(), {1, 1, 1}, FillIotaPush{x.address(), 64, 1, 0}, {writes(x)}});
    scheduler.readback<uint32_t>(x.range(0, 4)).get();
  }
  const double firstDispatchMs = secondsSince(firstStart) * 1e3;
  std::vector<Row> rows;

  std::vector<uint32_t> host(count), hostCopy(count);
  for (uint32_t i = 0; i < count; ++i) host[i] = i * 2654435761u;
  const double uploadS = bestOf(3, [&] {
    scheduler.upload(x, host.data(), bytes);
    scheduler.finish();
  });
  const double memcpyS = bestOf(3, [&] { std::memcpy(hostCopy.data(), host.data(), bytes); });
  rows.push_back({"upload through staging ring", "GB/s", bytes / uploadS / 1e9, bytes / memcpyS / 1e9});
  const double readbackS = bestOf(3, [&] { scheduler.readback<uint32_t>(x).get(); });
  rows.push_back({"readback through staging ring", "GB/s", bytes / readbackS / 1e9, bytes / memcpyS / 1e9});

  auto saxpy = library.kernel("selftest/saxpy.comp");
  scheduler.fill(y, 0);
  const double saxpyS = bestOf(3, [&] {
    scheduler.dispatchThreads({"saxpy", saxpy.get(), {}, SaxpyPush{x.address(), y.address(), count, 2.0f},
                               {reads(x), readsWrites(y)}},
                              count);
    scheduler.finish();
  });
  std::vector<float> yHost(count, 0.0f);
  const double cpuSaxpyS = bestOf(3, [&] {
    for (uint32_t i = 0; i < count; ++i) yHost[i] = 2.0f * float(host[i]) + yHost[i];
  });
  rows.push_back({"saxpy (uint -> float)", "Melem/s", count / saxpyS / 1e6, count / cpuSaxpyS / 1e6});

  constexpr int kDispatches = 2000;
  auto iota = library.kernel("selftest/fill_iota.comp");
  const double dispatchS = bestOf(3, [&] {
    for (int i = 0; i < kDispatches; ++i)
      scheduler.dispatch({"tiny dispatch", iota.get(), {1, 1, 1}, FillIotaPush{x.address(), 64, 1, uint32_t(i)}, {writes(x)}});
    scheduler.finish();
  });
  rows.push_back({"dependent tiny dispatches", "us each", dispatchS / kDispatches * 1e6, 0});

  const double reloadMs = hotReloadLatencyMs(device);

  if (options.json) {
    std::printf("{\"device\":\"%s\",\"driver\":\"%s\",\"megabytes\":%u,\"first_dispatch_ms\":%.2f,\"hot_reload_ms\":%.2f,"
                "\"upload_gb_per_s\":%.3f,\"readback_gb_per_s\":%.3f,\"memcpy_gb_per_s\":%.3f,"
                "\"gpu_saxpy_melem_per_s\":%.1f,\"cpu_saxpy_melem_per_s\":%.1f,\"dispatch_us\":%.2f,\"profile\":%s}\n",
                device.info().name.c_str(), device.info().driverName.c_str(), megabytes, firstDispatchMs, reloadMs,
                rows[0].gpu, rows[1].gpu, rows[0].cpu, rows[2].gpu, rows[2].cpu, rows[3].gpu,
                scheduler.profile().json().c_str());
    return 0;
  }
  std::printf("voxen bench core on %s (%s), %u MiB buffers\n\n", device.info().name.c_str(),
              device.info().driverName.c_str(), megabytes);
  std::printf("%-34s %-9s %12s %14s\n", "measure", "unit", "Voxen GPU", "CPU reference");
  for (const Row& row : rows) {
    if (row.cpu > 0)
      std::printf("%-34s %-9s %12.2f %14.2f\n", row.what.c_str(), row.unit.c_str(), row.gpu, row.cpu);
    else
      std::printf("%-34s %-9s %12.2f %14s\n", row.what.c_str(), row.unit.c_str(), row.gpu, "-");
  }
  std::printf("%-34s %-9s %12.1f %14s\n", "first dispatch (library to result)", "ms", firstDispatchMs, "-");
  std::printf("%-34s %-9s %12.1f %14s\n", "hot reload (edit to new result)", "ms", reloadMs, "-");
  std::printf("(upload/readback CPU column: memcpy of the same bytes)\n");
  if (options.profile) {
    std::printf("\nGPU time per pass:\n");
    scheduler.profile().print(std::cout);
  }
  return 0;
}

static CommandRegistration registration{"bench core", "engine core: staging bandwidth, kernel throughput, dispatch and reload latency [--mb N]", &benchCoreCommand};

}  // namespace voxen::cli
