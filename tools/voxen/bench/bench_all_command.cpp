// `voxen bench all [--budget-s N] [--json FILE] [--markdown FILE]`: every benchmark on this
// device, each beside its CPU reference measured in the same run, at sizes grown for the
// device within a time budget, in one table (stdout), one JSON file and one markdown file.
//
// Each workload (bench_all_workloads.cpp) runs as a child process of this executable
// (`voxen bench <name> ... --json`), so that a crash or a lost device in one leaves the
// others' results, memory is freed between workloads, and no workload's draws disturb
// another's timestamps (lavapipe). First every workload runs at its smallest size, so every
// section is filled; then, in rounds, each grows to its next size while the time that size
// is predicted to take (fitted to its runs so far) fits its share of what is left of the
// budget (the rest divided among the workloads still growing: what one does not use goes
// to the others); a last round hands the remainder to whichever next size fits it. A child
// running past what is left of the budget plus a margin is killed (its process group) and
// reported as cut off.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <iostream>
#include <memory>

#include "bench/bench_all_report.hpp"
#include "bench/bench_all_workloads.hpp"
#include "child_process.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "stopwatch.hpp"
#include "report/device_report.hpp"
#include "report/text_output_file.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/memory_budget.hpp"

namespace voxen::cli {

namespace {

struct BenchAllArgs {
  double budgetSeconds = 300;
  std::string jsonPath, markdownPath;
  std::vector<std::string> only;  // sections or workload names to run; empty: all
};

// The device the children will choose, opened once here (and closed before they run): its
// name and driver for the report, and a clear error at once when there is none. Its words are
// voxen check's (describeDevice), but for a CPU device, which bench all's reports (and the
// headings of BENCHMARKS.md) have always called a "CPU driver".
DeviceSummary openAndDescribeDevice(const CommonOptions& options) {
  Device device(options.device);
  DeviceSummary summary;
  static_cast<DeviceDescription&>(summary) = describeDevice(device.info());
  if (device.info().type == VK_PHYSICAL_DEVICE_TYPE_CPU) summary.type = "CPU driver";
  summary.cpu = hostCpuText();
  return summary;
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

bool mentionsValidation(const std::string& line) {
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return lower.find("validation error") != std::string::npos || lower.find("validation warning") != std::string::npos ||
         lower.find("validation message") != std::string::npos;
}

// The last line of `text` that parses as JSON (the children print one summary line).
Json lastJsonLine(const std::string& text) {
  size_t end = text.size();
  while (end > 0) {
    const size_t start = text.rfind('\n', end - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    const std::string line = text.substr(from, end - from);
    if (line.find_first_not_of(" \t\r") != std::string::npos) {
      Json parsed = Json::parse(line, nullptr, false);
      return parsed.is_discarded() ? Json() : parsed;
    }
    if (start == std::string::npos) break;
    end = start;
  }
  return Json();
}

// The last few lines of a child's stderr, as a one-line message.
std::string stderrTail(const std::string& err) {
  std::string tail = err.size() > 600 ? err.substr(err.size() - 600) : err;
  while (!tail.empty() && std::isspace((unsigned char)tail.back())) tail.pop_back();
  for (char& c : tail)
    if (c == '\n') c = ' ';
  return tail;
}

class BenchAll {
 public:
  BenchAll(const CommonOptions& options, const BenchAllArgs& args, std::vector<Workload> workloads)
      : options_(options), args_(args), workloads_(std::move(workloads)) {
    // Children may use half of physical memory unless told otherwise: the largest sizes
    // (16 M transform nodes, 16 M rays) need more than the tool's default budget.
    const uint64_t physicalMb = physicalMemoryBytes() >> 20;
    memoryBudgetMb_ = options.memoryBudgetMb ? *options.memoryBudgetMb
                                             : std::clamp<uint64_t>(physicalMb / 2, 2048, uint64_t(1) << 24);
    for (const Workload& w : workloads_) {
      WorkloadState state;
      state.workload = &w;
      states_.push_back(state);
    }
  }

  BenchAllReport run(const DeviceSummary& device, const std::string& command) {
    start_ = Clock::now();
    // Every workload at its smallest size: every section filled before any grows.
    firstPass_ = true;
    for (size_t i = 0; i < states_.size(); ++i) {
      firstLeft_ = states_.size() - i;
      runNext(states_[i]);
    }
    firstPass_ = false;
    firstPassSeconds_ = elapsed();
    if (remaining() <= 0) {
      char text[160];
      std::snprintf(text, sizeof text, "bench all: the smallest sizes alone took %.1f s, more than the budget of %g s: none grows\n",
                    firstPassSeconds_, args_.budgetSeconds);
      std::cerr << text << std::flush;
    }
    // Growth: rounds of fair shares; when none fits its share, one round in which the
    // first next size that fits what is left takes it.
    bool greedy = false;
    for (;;) {
      bool grew = false;
      std::vector<WorkloadState*> growing;
      for (WorkloadState& s : states_)
        if (canGrow(s)) growing.push_back(&s);
      if (growing.empty()) break;
      for (size_t i = 0; i < growing.size(); ++i) {
        WorkloadState& s = *growing[i];
        size_t stillGrowing = 0;
        for (size_t j = i; j < growing.size(); ++j) stillGrowing += canGrow(*growing[j]);
        if (!canGrow(s)) continue;
        const double share = greedy ? remaining() : remaining() / double(std::max<size_t>(stillGrowing, 1));
        double spent = 0;
        while (canGrow(s)) {
          const double predicted = predictNext(s);
          if (predicted > share - spent || predicted > remaining()) break;
          spent += runNext(s);
          grew = true;
          if (greedy) break;
        }
      }
      if (grew) greedy = false;
      else if (!greedy) greedy = true;
      else break;
    }
    for (WorkloadState& s : states_)
      if (s.stopped.empty()) {
        if (s.status != "ok") s.stopped = s.status;
        else if (s.nextSize() >= s.workload->sizes.size()) s.stopped = "largest size";
        else if (!canGrow(s)) s.stopped = "at the size of " + s.workload->grownNoFurtherThan;
        else s.stopped = "budget (next size predicted " + formatValue(predictNext(s)) + " s)";
      }
    BenchAllReport report;
    report.device = device;
    report.command = command;
    report.date = utcNow();
    report.budgetSeconds = args_.budgetSeconds;
    report.elapsedSeconds = elapsed();
    report.firstPassSeconds = firstPassSeconds_;
    report.workloads = std::move(states_);
    return report;
  }

 private:
  double elapsed() const { return secondsSince(start_); }
  double remaining() const { return args_.budgetSeconds - elapsed(); }
  // How far past the budget a child may run before it is killed.
  double margin() const { return std::max(0.1 * args_.budgetSeconds, 5.0); }

  bool canGrow(const WorkloadState& s) const {
    if (!s.growing || s.status != "ok" || s.nextSize() >= s.workload->sizes.size()) return false;
    if (s.workload->grownNoFurtherThan.empty()) return true;
    for (const WorkloadState& other : states_)
      if (other.workload->section + " / " + other.workload->name == s.workload->grownNoFurtherThan) {
        const auto good = other.reported();
        return !good.empty() && s.nextSize() <= good.back()->size;
      }
    return true;  // the other is not run (--only)
  }

  // Seconds the next size is expected to take: the line through the last two runs (a
  // fixed cost plus a cost per unit of work), or with one run so far, that run scaled by the
  // work, less the fixed cost the cheapest first run of any workload bounds; a little more.
  double predictNext(const WorkloadState& s) const {
    const Workload& w = *s.workload;
    const double next = w.sizes[s.nextSize()].amount;
    std::vector<const SizeRun*> good;
    for (const SizeRun& run : s.runs)
      if (run.outcome == "ok") good.push_back(&run);
    if (good.empty()) return 1e30;
    const SizeRun& last = *good.back();
    const double a1 = w.sizes[last.size].amount, t1 = last.child.seconds;
    double predicted = t1 * next / a1;
    if (good.size() >= 2) {
      const SizeRun& before = *good[good.size() - 2];
      const double a0 = w.sizes[before.size].amount, t0 = before.child.seconds;
      const double perUnit = (t1 - t0) / (a1 - a0);
      if (perUnit > 0) predicted = std::max(t1, t1 + perUnit * (next - a1));
    } else {
      const double fixed = std::min(t1, 0.5 * cheapestFirstRun_);
      predicted = fixed + (t1 - fixed) * next / a1;
    }
    return 1.15 * predicted + 0.2;
  }

  std::vector<std::string> childArgs(const Workload& w, const WorkloadSize& size) const {
    std::vector<std::string> args = w.command;
    args.insert(args.end(), size.args.begin(), size.args.end());
    if (!options_.device.selector.empty()) args.insert(args.end(), {"--device", options_.device.selector});
    if (options_.device.validation) args.push_back("--validation");
    if (sizesAgainstBudget(w)) args.insert(args.end(), {"--memory-budget", std::to_string(memoryBudgetMb_)});
    args.push_back("--json");
    return args;
  }

  // Whether the workload's command sizes what it allocates against --memory-budget (the
  // others refuse the flag).
  static bool sizesAgainstBudget(const Workload& w) {
    std::string name;
    for (const std::string& word : w.command) {
      if (word.starts_with("-")) break;
      name += (name.empty() ? "" : " ") + word;
    }
    const auto found = commandRegistry().find(name);
    return found != commandRegistry().end() && uses(found->second.uses, Uses::MemoryBudget);
  }

  // Runs the workload's next size; returns its wall seconds.
  double runNext(WorkloadState& s) {
    const Workload& w = *s.workload;
    const size_t index = s.nextSize();
    const WorkloadSize& size = w.sizes[index];
    const bool first = s.runs.empty();
    // A larger size only starts when predicted to fit, and may not run past the budget's end
    // by more than the margin. A first size always runs (every section filled), even once
    // the budget is spent (a slow or busy machine): its limit only guards against a hang.
    const double limit =
        std::max(remaining(), 0.0) + (first ? std::max(margin(), std::min(60.0, args_.budgetSeconds)) : margin());
    {
      char text[512];
      const double left = firstPass_ ? std::max(remaining(), double(firstLeft_) * std::max(cheapestFirstRun_, 1.0))
                                     : std::max(remaining(), 0.0);
      std::snprintf(text, sizeof text, "bench all: [%5.1f s of %g s, about %.0f s left] %s / %s: %s%s\n", elapsed(),
                    args_.budgetSeconds, left, w.section.c_str(), w.name.c_str(), size.label.c_str(),
                    first ? "" : (" (expected " + formatValue(predictNext(s)) + " s)").c_str());
      std::cerr << text << std::flush;
    }
    SizeRun run;
    run.size = index;
    const std::string tag = "bench all: " + w.section + " / " + w.name + ": ";
    run.child = runSelf(childArgs(w, size), limit, [&](const std::string& line) {
      if (!mentionsValidation(line)) return;
      ++run.validationMessages;
      std::cerr << tag << line << "\n" << std::flush;
    });
    run.summary = lastJsonLine(run.child.out);
    const bool errorJson = run.summary.is_object() && run.summary.contains("error");
    const std::string childMessage = errorJson && run.summary["error"].is_string()
                                         ? run.summary["error"].get<std::string>()
                                         : stderrTail(run.child.err);
    if (!run.child.startError.empty()) {
      run.outcome = "failed";
      run.message = run.child.how();
    } else if (run.child.cutOff) {
      run.outcome = "cut";
      run.message = run.child.how();
    } else if (run.child.exitStatus == 0 && !run.summary.is_null() && !errorJson) {
      run.outcome = "ok";
    } else if (run.child.exitStatus == 2 && childMessage.find("--memory-budget") != std::string::npos) {
      run.outcome = "memory";
      run.message = childMessage;
    } else {
      run.outcome = "failed";
      run.message = run.child.how() + (childMessage.empty() ? "" : ": " + childMessage);
      if (run.child.exitStatus == 0) run.message += " (no JSON summary on stdout)";
    }
    if (run.outcome != "ok") run.summary = errorJson ? run.summary : Json();
    const double seconds = run.child.seconds;
    s.runs.push_back(std::move(run));
    const SizeRun& done = s.runs.back();
    if (first && done.outcome == "ok")
      cheapestFirstRun_ = cheapestFirstRun_ > 0 ? std::min(cheapestFirstRun_, seconds) : seconds;
    // What the run means for the workload.
    if (done.outcome == "memory") {
      s.growing = false;
      s.stopped = "memory budget (" + std::to_string(memoryBudgetMb_) + " MiB; --memory-budget)";
      if (first) s.status = "failed", s.message = size.label + ": " + done.message;
    } else if (done.outcome == "cut") {
      s.growing = false;
      s.stopped = "cut off";
      if (first) s.status = "cut", s.message = size.label + ": " + done.message;
    } else if (done.outcome == "failed") {
      s.growing = false;
      s.status = "failed";
      s.message = size.label + ": " + done.message;
    }
    {
      const std::string result = done.outcome == "ok"       ? "ok, " + formatValue(seconds) + " s"
                                 : done.outcome == "cut"    ? "CUT OFF, " + done.message
                                 : done.outcome == "memory" ? "refused by the memory budget, " + done.message
                                                            : "FAILED, " + done.message;
      char text[128];
      std::snprintf(text, sizeof text, "bench all: [%5.1f s of %g s] ", elapsed(), args_.budgetSeconds);
      std::cerr << text << w.section << " / " << w.name << ": " << result << "\n" << std::flush;
    }
    return seconds;
  }

  const CommonOptions& options_;
  BenchAllArgs args_;
  std::vector<Workload> workloads_;
  std::vector<WorkloadState> states_;
  uint64_t memoryBudgetMb_ = 0;
  Clock::time_point start_;
  bool firstPass_ = false;
  size_t firstLeft_ = 0;
  double cheapestFirstRun_ = 0;
  double firstPassSeconds_ = 0;
};

std::string commandLine(const BenchAllArgs& args, const CommonOptions& options) {
  char budget[32];
  std::snprintf(budget, sizeof budget, "%g", args.budgetSeconds);
  std::string line = "voxen bench all --budget-s " + std::string(budget);
  for (const std::string& name : args.only) line += " --only '" + name + "'";
  if (!args.jsonPath.empty()) line += " --json " + args.jsonPath;
  if (!args.markdownPath.empty()) line += " --markdown " + args.markdownPath;
  if (!options.device.selector.empty()) line += " --device '" + options.device.selector + "'";
  if (options.device.validation) line += " --validation";
  if (options.memoryBudgetMb) line += " --memory-budget " + std::to_string(*options.memoryBudgetMb);
  return line;
}

int benchAll(const CommonOptions& options, const BenchAllArgs& args) {
  checkOutputs({{"--json", args.jsonPath}, {"--markdown", args.markdownPath}}, {});
  std::vector<Workload> workloads;
  for (Workload& w : benchAllWorkloads()) {
    bool chosen = args.only.empty();
    for (const std::string& name : args.only) chosen |= name == w.section || name == w.section + " / " + w.name;
    if (chosen) workloads.push_back(std::move(w));
  }
  if (workloads.empty()) {
    std::string sections;
    for (const Workload& w : benchAllWorkloads())
      if (sections.find("'" + w.section + "'") == std::string::npos) sections += (sections.empty() ? "'" : ", '") + w.section + "'";
    throw UsageError("--only: no workload in that section; the sections are " + sections);
  }
  const DeviceSummary device = openAndDescribeDevice(options);
  BenchAll bench(options, args, std::move(workloads));
  const BenchAllReport report = bench.run(device, commandLine(args, options));
  std::cout << "\n" << textReport(report) << std::flush;
  // Both files are written even when a workload failed: they say which, and how.
  if (!args.jsonPath.empty())
    writeTextFile(args.jsonPath, jsonReport(report).dump(2, ' ', false, Json::error_handler_t::replace) + "\n", "--json");
  if (!args.markdownPath.empty()) writeTextFile(args.markdownPath, markdownReport(report), "--markdown");
  return report.failed() ? 1 : 0;
}

CommandRun setupBenchAll(CLI::App& command) {
  auto args = std::make_shared<BenchAllArgs>();
  command.add_option("--budget-s", args->budgetSeconds,
                     "seconds for the whole run: every workload runs at its smallest size, then grows while its share "
                     "of what is left allows")
      ->check(numberIn(0.0, 7 * 86400.0, "seconds", LowEnd::Open))
      ->capture_default_str();
  command.add_option("--json", args->jsonPath, "write the whole report as JSON (every size run, each child's summary)")
      ->type_name("FILE");
  command.add_option("--markdown", args->markdownPath, "write the tables in GitHub markdown, ready for BENCHMARKS.md")
      ->type_name("FILE");
  command.add_option("--only", args->only, "run only these sections (e.g. 'occupancy map' 'lidar frames'), repeatable")
      ->type_name("SECTION");
  return [args](const CommonOptions& options) { return benchAll(options, *args); };
}

}  // namespace

static CommandRegistration registration{
    "bench all", "every benchmark sized for this device within a time budget, GPU beside CPU: one table, JSON and markdown",
    &setupBenchAll, Uses::Device | Uses::MemoryBudget};

}  // namespace voxen::cli
