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
#include <memory>
#include <span>
#include <sstream>
#include <vector>

#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "stopwatch.hpp"
#include "voxen/gpu/selftest/selftest_push.h"
#include "voxen/map/memory_budget.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen_apps/shader_source_dir.hpp"

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

struct ReloadLatency {
  double ms = -1;           // -1: the edit did not show in time
  std::string notMeasured;  // why it was not measured at all (no shader sources), else empty
};

// Time from an edit of a watched shader to a readback that shows the new pipeline's result,
// on a copy of the shader sources: the source tree's, or a bundle's beside the executable. A
// bundle whose shaders/ was removed has neither; the other measures still stand, so this one
// is reported as not measured rather than failing the bench.
ReloadLatency hotReloadLatency(Device& device) {
  const apps::ShaderSourceDir sources = apps::findShaderSourceDir(VOXEN_SOURCE_SHADER_DIR);
  if (!sources.dir) return {-1, "no shader source folder (looked at " + sources.looked + ")"};
  const fs::path dir = fs::temp_directory_path() / ("voxen-bench-reload-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(*sources.dir, dir, fs::copy_options::recursive);
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
  return {value == 7 ? ms : -1.0, ""};
}

// What bench core measured: the rows with a CPU counterpart or none, and the two latencies.
// The rows in the order benchCore measures them.
enum CoreRow : size_t { kUpload, kReadback, kReadbackInto, kPeakToDevice, kPeakToHost, kSaxpy, kDispatch };

struct CoreMeasures {
  const std::vector<Row>& rows;  // indexed by CoreRow
  double firstDispatchMs = 0;
  const ReloadLatency& reload;
};

void printCoreJson(const Device& device, uint32_t megabytes, const CoreMeasures& m, const Profile& profile) {
  Json passes = Json::array();
  for (const auto& [name, timing] : profile.passes())
    passes.push_back({{"pass", name}, {"calls", timing.calls}, {"total_ms", rounded(timing.totalMs, 6)}, {"timed", timing.timed}});
  const std::vector<Row>& rows = m.rows;
  printJson(benchSummary(device, {{"megabytes", megabytes},
                                  {"first_dispatch_ms", rounded(m.firstDispatchMs, 2)},
                                  // null, with the reason beside it, when there were no shader sources to edit
                                  {"hot_reload_ms", m.reload.notMeasured.empty() ? Json(rounded(m.reload.ms, 2)) : Json(nullptr)},
                                  {"hot_reload_not_measured", m.reload.notMeasured.empty() ? Json(nullptr) : Json(m.reload.notMeasured)},
                                  {"upload_gb_per_s", rounded(rows[kUpload].gpu, 3)},
                                  {"readback_gb_per_s", rounded(rows[kReadback].gpu, 3)},
                                  {"readback_into_gb_per_s", rounded(rows[kReadbackInto].gpu, 3)},
                                  {"peak_to_device_gb_per_s", rounded(rows[kPeakToDevice].gpu, 3)},
                                  {"peak_to_host_gb_per_s", rounded(rows[kPeakToHost].gpu, 3)},
                                  {"upload_fraction_of_peak", rounded(rows[kUpload].gpu / rows[kPeakToDevice].gpu, 3)},
                                  {"readback_into_fraction_of_peak", rounded(rows[kReadbackInto].gpu / rows[kPeakToHost].gpu, 3)},
                                  {"memcpy_gb_per_s", rounded(rows[kUpload].cpu, 3)},
                                  {"gpu_saxpy_melem_per_s", rounded(rows[kSaxpy].gpu, 1)},
                                  {"cpu_saxpy_melem_per_s", rounded(rows[kSaxpy].cpu, 1)},
                                  {"dispatch_us", rounded(rows[kDispatch].gpu, 2)},
                                  {"profile", passes}}));
}

// `profile`: the passes' table (--profile), or none.
void printCoreText(const Device& device, uint32_t megabytes, const CoreMeasures& m, const Profile* profile) {
  std::printf("voxen bench core on %s (%s), %u MiB buffers\n\n", device.info().name.c_str(),
              device.info().driverName.c_str(), megabytes);
  const TextTable table({{"measure", 34, Align::Left}, {"unit", 9, Align::Left}, {"Voxen GPU", 12}, {"CPU reference", 14}});
  table.printHead();
  for (const Row& row : m.rows) table.printRow({row.what, row.unit, fixed(row.gpu, 2), row.cpu > 0 ? fixed(row.cpu, 2) : "-"});
  table.printRow({"first dispatch (library to result)", "ms", fixed(m.firstDispatchMs, 1), "-"});
  if (m.reload.notMeasured.empty())
    table.printRow({"hot reload (edit to new result)", "ms", fixed(m.reload.ms, 1), "-"});
  else
    table.printRow({"hot reload (edit to new result)", "ms", "-", "-"}, "  (not measured: " + m.reload.notMeasured + ")");
  std::printf("(upload/readback CPU column: memcpy of the same bytes)\n");
  std::printf("upload through the ring: %.0f %% of the device's peak from host memory; readback into caller memory: %.0f %% "
              "of its peak to host memory\n",
              100.0 * m.rows[kUpload].gpu / m.rows[kPeakToDevice].gpu, 100.0 * m.rows[kReadbackInto].gpu / m.rows[kPeakToHost].gpu);
  if (profile) {
    std::printf("\nGPU time per pass:\n");
    profile->print(std::cout);
  }
}

int benchCore(const CommonOptions& options, uint32_t megabytes) {
  // Two device buffers, a host-visible one and two host copies of --mb each (device memory is host memory on a
  // CPU driver): sized against the budget before the device is opened.
  try {
    checkMemoryBudget(5 * (uint64_t(megabytes) << 20), options.memoryBudgetBytes(),
                      "--mb " + std::to_string(megabytes) + " (two device buffers, a host-visible one and two host copies)",
                      options.memoryBudgetHint() + " or lower --mb");
  } catch (const Error& e) {
    throw UsageError(e.what());
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
  const double readbackIntoS = bestOf(3, [&] { scheduler.readbackInto(x.range(), std::span<uint32_t>(hostCopy)).wait(); });
  rows.push_back({"readback into caller memory", "GB/s", bytes / readbackIntoS / 1e9, bytes / memcpyS / 1e9});
  // The device's peak over its bus: the GPU copying between device memory and host-visible
  // memory with no host copy on either side, what the staging paths above are measured against.
  {
    Buffer hostSide(device, "bench host-visible", bytes, MemoryKind::HostReadback);
    const double toDeviceS = bestOf(3, [&] {
      scheduler.copy(hostSide.range(), x.range());
      scheduler.finish();
    });
    const double toHostS = bestOf(3, [&] {
      scheduler.copy(x.range(), hostSide.range());
      scheduler.finish();
    });
    rows.push_back({"peak: GPU copy from host memory", "GB/s", bytes / toDeviceS / 1e9, 0});
    rows.push_back({"peak: GPU copy to host memory", "GB/s", bytes / toHostS / 1e9, 0});
  }

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

  const ReloadLatency reload = hotReloadLatency(device);

  if (options.json)
    printCoreJson(device, megabytes, {rows, firstDispatchMs, reload}, scheduler.profile());
  else
    printCoreText(device, megabytes, {rows, firstDispatchMs, reload}, options.profile ? &scheduler.profile() : nullptr);
  return 0;
}

CommandRun setupBenchCore(CLI::App& command) {
  auto megabytes = std::make_shared<uint32_t>(256);
  // 16383 MiB keeps the element count of a buffer within 32 bits.
  command.add_option("--mb", *megabytes, "size of each test buffer in MiB")->check(integerIn(1, 16383))->capture_default_str();
  return [megabytes](const CommonOptions& options) { return benchCore(options, *megabytes); };
}

}  // namespace

static CommandRegistration registration{"bench core",
                                        "engine core: staging bandwidth, kernel throughput, dispatch and reload latency",
                                        &setupBenchCore,
                                        Uses::Gpu | Uses::Profile | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli
