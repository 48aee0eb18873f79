#include "bench/bench_all_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "bench/bench_table.hpp"
#include "report/device_report.hpp"

namespace voxen::cli {

std::vector<const SizeRun*> WorkloadState::reported() const {
  std::vector<const SizeRun*> good;
  for (const SizeRun& run : runs)
    if (run.outcome == "ok") good.push_back(&run);
  if (!workload->reportEverySize && good.size() > 1) good.erase(good.begin(), good.end() - 1);
  return good;
}

size_t WorkloadState::nextSize() const { return runs.empty() ? 0 : runs.back().size + 1; }

bool BenchAllReport::failed() const {
  return std::any_of(workloads.begin(), workloads.end(), [](const WorkloadState& w) { return w.status != "ok"; });
}

std::string formatValue(double value) {
  if (!std::isfinite(value)) return "-";
  char text[32];
  const double a = std::fabs(value);
  if (a >= 100) std::snprintf(text, sizeof text, "%.0f", value);
  else if (a >= 10) std::snprintf(text, sizeof text, "%.1f", value);
  else if (a >= 1) std::snprintf(text, sizeof text, "%.2f", value);
  else std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

namespace {

std::string speedUpText(const Figure& f) {
  const double s = f.speedUp();
  return std::isfinite(s) ? formatValue(s) + "x" : "-";
}

// One line of the tables.
struct Line {
  std::string section, workload, size, gpu, cpu, speedUp, unit;
  bool hostOnly = false;  // a workload without GPU work: listed under the host table's heads
  std::vector<std::string> cells() const { return {section, workload, size, gpu, cpu, speedUp, unit}; }
};

// The heads of the two tables: Voxen's GPU beside the CPU reference, and the workloads that do
// no GPU work (Voxen's host code beside a host reference), which must not read as GPU figures.
const Line kGpuHeader{"section", "workload", "size", "Voxen GPU", "CPU reference", "GPU/CPU", "unit"};
const Line kHostHeader{"section", "workload (no GPU work)", "size", "Voxen host", "host reference", "Voxen/reference",
                       "unit", true};

bool anyHostOnly(const std::vector<Line>& lines) {
  return std::any_of(lines.begin(), lines.end(), [](const Line& l) { return l.hostOnly; });
}

// The size a run is reported at: what its JSON names (clearance: its regions), else the
// size's label.
std::string sizeText(const WorkloadState& w, const SizeRun& run) {
  const WorkloadSize& size = w.workload->sizes[run.size];
  if (w.workload->sizeReported) {
    const std::string reported = w.workload->sizeReported(run.summary);
    if (!reported.empty()) return reported;
  }
  return size.label;
}

std::vector<Line> tableLines(const BenchAllReport& report) {
  std::vector<Line> lines;
  for (const WorkloadState& w : report.workloads) {
    const auto good = w.reported();
    if (good.empty()) {
      const std::string what = w.status == "cut" ? "CUT OFF" : "FAILED";
      lines.push_back({w.workload->section, w.workload->name, w.workload->sizes.front().label, what, "-", "-", "",
                       w.workload->hostOnly});
      continue;
    }
    for (const SizeRun* run : good)
      for (const Figure& f : w.workload->figures(run->summary))
        lines.push_back({w.workload->section, f.what, sizeText(w, *run),
                         formatValue(f.gpu), formatValue(f.cpu), speedUpText(f), f.unit, w.workload->hostOnly});
  }
  return lines;
}

// Lines under the table: what failed, what was cut off, why a workload stopped short.
std::vector<std::string> notes(const BenchAllReport& report) {
  std::vector<std::string> out;
  for (const WorkloadState& w : report.workloads) {
    const std::string name = w.workload->section + " / " + w.workload->name;
    if (w.status == "failed") out.push_back("FAILED: " + name + ": " + w.message);
    else if (w.status == "cut") out.push_back("CUT OFF: " + name + ": " + w.message);
    for (const SizeRun& run : w.runs)
      if (run.outcome == "cut" && w.status == "ok")
        out.push_back("note: " + name + ": " + w.workload->sizes[run.size].label + " " + run.message +
                      "; the smaller size is reported");
    for (const SizeRun& run : w.runs)
      if (run.validationMessages > 0)
        out.push_back("VALIDATION: " + name + ", " + w.workload->sizes[run.size].label + ": " +
                      std::to_string(run.validationMessages) + " validation messages (on stderr)");
  }
  return out;
}

// The lidar-frame workload's figures: resolution, GPU and CPU ms per frame.
const WorkloadState* lidarFrames(const BenchAllReport& report) {
  for (const WorkloadState& w : report.workloads)
    if (w.workload->lidarFrames && !w.reported().empty()) return &w;
  return nullptr;
}

std::string deviceLine(const BenchAllReport& r) {
  return r.device.name + " (" + r.device.type + "), driver " + r.device.driverName +
         (r.device.driverInfo.empty() ? "" : " (" + r.device.driverInfo + ")") + ", Vulkan " + r.device.apiVersion;
}

std::string plainNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// The columns of both tables (their heads are the GPU table's; the host table prints its own):
// two spaces apart, the names on the left, the figures on the right, the unit unpadded.
TextTable figureTable() {
  const Line& h = kGpuHeader;
  return TextTable({{h.section, 0, Align::Left, "  "},
                    {h.workload, 0, Align::Left, "  "},
                    {h.size, 0, Align::Left, "  "},
                    {h.gpu, 0, Align::Right, "  "},
                    {h.cpu, 0, Align::Right, "  "},
                    {h.speedUp, 0, Align::Right, "  "},
                    {h.unit, 0, Align::Left, "  ", false}});
}

// The lidar-frame table: resolution, GPU and CPU ms per frame.
TextTable lidarFrameTable() {
  return TextTable({{"resolution", 10, Align::Left}, {"GPU ms/frame", 12, Align::Right, "  "},
                    {"CPU ms/frame", 12, Align::Right, "  "}},
                   "  ");
}

std::vector<std::string> lidarFrameCells(const Figure& f) { return {f.what, formatValue(f.gpu), formatValue(f.cpu)}; }

// A note in markdown: its '|' escaped, as the tables' cells are.
std::string markdownCell(std::string text) {
  for (size_t at = 0; (at = text.find('|', at)) != std::string::npos; at += 2) text.replace(at, 1, "\\|");
  return text;
}

}  // namespace

std::string textReport(const BenchAllReport& report) {
  const std::vector<Line> lines = tableLines(report);
  // Both tables share their columns' widths: fitted to both heads and every line.
  TextTable table = figureTable();
  for (const Line& l : {kGpuHeader, kHostHeader}) table.fit(l.cells());
  for (const Line& l : lines) table.fit(l.cells());
  std::ostringstream out;
  out << "voxen bench all on " << deviceLine(report) << "\nCPU reference: one thread of " << report.device.cpu << "; "
      << formatValue(report.elapsedSeconds) << " s of a " << plainNumber(report.budgetSeconds) << " s budget\n\n";
  auto rows = [&](const Line& header, bool hostOnly) {
    out << table.line(header.cells()) << "\n";
    for (const Line& l : lines)
      if (l.hostOnly == hostOnly) out << table.line(l.cells()) << "\n";
  };
  rows(kGpuHeader, false);
  if (anyHostOnly(lines)) {
    out << "\n";
    rows(kHostHeader, true);
  }
  const auto noteLines = notes(report);
  if (!noteLines.empty()) out << "\n";
  for (const std::string& note : noteLines) out << note << "\n";
  if (const WorkloadState* frames = lidarFrames(report)) {
    const SizeRun& run = *frames->reported().back();
    out << "\nOccupancy per lidar frame (64 x 1024 scan, 65,536 rays; " << frames->workload->sizes[run.size].label
        << ", medians):\n";
    const TextTable frameTable = lidarFrameTable();
    out << frameTable.headLine() << "\n";
    for (const Figure& f : frames->workload->figures(run.summary)) out << frameTable.line(lidarFrameCells(f)) << "\n";
  }
  return out.str();
}

std::string markdownReport(const BenchAllReport& report) {
  std::ostringstream out;
  // As BENCHMARKS.md's headings: the device, its driver, the CPU of the CPU reference, the date.
  out << "### " << report.device.name << ", " << (report.device.driverInfo.empty() ? report.device.driverName : report.device.driverInfo)
      << ", CPU reference on " << report.device.cpu << ", " << report.date.substr(0, std::min<size_t>(10, report.date.size()))
      << "\n\n";
  out << "`" << report.command << "`: every benchmark at the largest size that fit the budget, Voxen on the GPU beside "
      << "the CPU reference measured in the same run (GPU/CPU: how many times faster the GPU is; a workload's size is "
      << "what its last run took).\n\n";
  const std::vector<Line> lines = tableLines(report);
  const TextTable figures = figureTable();
  auto table = [&](const Line& header, bool hostOnly) {
    out << figures.markdownLine(header.cells()) << "\n" << figures.markdownRule() << "\n";
    for (const Line& l : lines)
      if (l.hostOnly == hostOnly) out << figures.markdownLine(l.cells()) << "\n";
  };
  table(kGpuHeader, false);
  if (anyHostOnly(lines)) {
    out << "\nWorkloads that do no GPU work: Voxen's host code beside a host reference measured in the same run "
        << "(Voxen/reference: how many times the reference's speed Voxen reaches):\n\n";
    table(kHostHeader, true);
  }
  const auto noteLines = notes(report);
  if (!noteLines.empty()) out << "\n";
  for (const std::string& note : noteLines) out << "- " << markdownCell(note) << "\n";
  if (const WorkloadState* frames = lidarFrames(report)) {
    const SizeRun& run = *frames->reported().back();
    out << "\nOccupancy per lidar frame: one 64 x 1024 scan (65,536 rays) integrated and waited for before the next, "
        << "medians over " << frames->workload->sizes[run.size].label << " (`voxen bench frames`, sequential order):\n\n";
    const TextTable frameTable = lidarFrameTable();
    out << frameTable.markdownHead() << "\n";
    for (const Figure& f : frames->workload->figures(run.summary)) out << frameTable.markdownLine(lidarFrameCells(f)) << "\n";
  }
  out << "\nDevice: " << deviceLine(report) << "; CPU reference on one thread of " << report.device.cpu
      << ". Command: `" << report.command << "`, " << report.date << ", " << formatValue(report.elapsedSeconds) << " s of a "
      << plainNumber(report.budgetSeconds) << " s budget.\n";
  return out.str();
}

Json jsonReport(const BenchAllReport& report) {
  auto number = [](double v) { return std::isfinite(v) ? Json(rounded(v, 6)) : Json(nullptr); };
  Json out = {{"device", deviceJson(report.device)},
              {"cpu", report.device.cpu},
              {"command", report.command},
              {"date", report.date},
              {"budget_s", rounded(report.budgetSeconds, 3)},
              {"elapsed_s", rounded(report.elapsedSeconds, 3)},
              {"smallest_sizes_s", rounded(report.firstPassSeconds, 3)},
              {"status", report.failed() ? "failed" : "ok"},
              {"workloads", Json::array()}};
  for (const WorkloadState& w : report.workloads) {
    const Workload& workload = *w.workload;
    std::string command = "voxen";
    for (const std::string& word : workload.command) command += " " + word;
    Json entry = {{"section", workload.section},
                  {"name", workload.name},
                  {"gpu_work", !workload.hostOnly},
                  {"command", command + " --json"},
                  {"status", w.status},
                  {"message", w.message.empty() ? Json(nullptr) : Json(w.message)},
                  {"stopped", w.stopped},
                  {"size", nullptr},
                  {"figures", Json::array()},
                  {"runs", Json::array()}};
    const auto good = w.reported();
    if (!good.empty()) {
      const SizeRun& last = *good.back();
      const WorkloadSize& size = workload.sizes[last.size];
      entry["size"] = {{"label", sizeText(w, last)}, {"args", size.args}, {"amount", size.amount}};
    }
    for (const SizeRun* run : good)
      for (const Figure& f : workload.figures(run->summary))
        entry["figures"].push_back({{"what", f.what},
                                    {"size", sizeText(w, *run)},
                                    {"unit", f.unit},
                                    {"gpu", number(f.gpu)},
                                    {"cpu", number(f.cpu)},
                                    {"gpu_over_cpu", number(f.speedUp())},
                                    {"lower_is_better", f.lowerIsBetter}});
    for (const SizeRun& run : w.runs) {
      const WorkloadSize& size = workload.sizes[run.size];
      Json r = {{"size", size.label},
                {"args", size.args},
                {"amount", size.amount},
                {"outcome", run.outcome},
                {"seconds", rounded(run.child.seconds, 3)},
                {"how", run.child.how()},
                {"validation_messages", run.validationMessages},
                {"summary", run.summary}};
      if (run.outcome != "ok") {
        r["message"] = run.message;
        r["stderr"] = run.child.err;
      }
      entry["runs"].push_back(r);
    }
    out["workloads"].push_back(entry);
  }
  if (const WorkloadState* frames = lidarFrames(report)) {
    out["lidar_frames"] = Json::array();
    const SizeRun& run = *frames->reported().back();
    const Json& runs = run.summary.contains("runs") ? run.summary["runs"] : Json::array();
    for (const Json& r : runs)
      out["lidar_frames"].push_back({{"resolution_m", number(jsonNumber(r, "resolution"))},
                                     {"frames", number(jsonNumber(run.summary, "frames"))},
                                     {"gpu_ms_per_frame", number(jsonNumber(r, "gpu_ms_per_frame"))},
                                     {"cpu_ms_per_frame", number(jsonNumber(r, "cpu_ms_per_frame"))}});
  }
  return out;
}

}  // namespace voxen::cli
