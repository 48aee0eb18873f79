#include "commands/store_run_info.hpp"

#include "report/text_format.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/store_mapping.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen::cli {

namespace {

uint64_t count(const std::string& text) {
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return 0;
  }
}

const char* statusName(WriterStatus status) {
  switch (status) {
    case WriterStatus::Alive: return "alive";
    case WriterStatus::Gone: return "gone";
    case WriterStatus::OtherHost: return "other_host";
  }
  return "unknown";
}

}  // namespace

std::optional<StoreRunInfo> storeRunOf(const std::string& target, const std::string& session) {
  // (A server store's runs are its sessions': its fused map has none.)
  if (isPostgresTarget(target) && session.empty()) return std::nullopt;
  const std::unique_ptr<MapStore> store = openMapStoreForReading(target, {.session = session});
  const auto state = store->value("run.state");
  if (!state) return std::nullopt;
  StoreRunInfo run{*state, store->value("run.checkpoints").value_or("0"), store->value("run.rays").value_or("0"),
                   store->value("run.saved_at").value_or("?"), StoreMapping::recordedWriter(*store), std::nullopt};
  if (run.state != "complete") {
    if (run.writer) run.writerStatus = writerStatus(*run.writer);
    run.state = !run.writerStatus                             ? "unknown"
                : *run.writerStatus == WriterStatus::Gone     ? "stopped"
                : *run.writerStatus == WriterStatus::Alive    ? "running"
                                                              : "unknown";
  }
  return run;
}

std::string storeRunText(const StoreRunInfo& run, const std::string& target, const std::string& session) {
  const std::string progress = run.checkpoints + " checkpoints, the last at " + run.savedAt + " with " + withCommas(count(run.rays)) +
                               " rays of the input";
  if (run.state == "complete") return "complete: " + progress;
  const std::string resume =
      "voxen map --store " + redactedStoreName(target) + (session.empty() ? "" : " --session " + session) + " --resume continues it";
  const std::string pid = run.writer ? "pid " + std::to_string(run.writer->pid) : std::string();
  if (!run.writerStatus) return "running or stopped (its writer is not recorded): " + progress + " (if it stopped, " + resume + ")";
  switch (*run.writerStatus) {
    case WriterStatus::Alive: return "running (" + pid + " on this host): " + progress;
    case WriterStatus::Gone: return "stopped: its writer (" + pid + " on this host) is gone; " + progress + " (" + resume + ")";
    case WriterStatus::OtherHost: break;
  }
  return "running on host " + run.writer->host + " (" + pid + "), or stopped there: this host cannot tell; " + progress +
         " (if it stopped, " + resume + ")";
}

Json storeRunJson(const StoreRunInfo& run) {
  Json json = {{"state", run.state}, {"checkpoints", count(run.checkpoints)}, {"rays", count(run.rays)}, {"saved_at", run.savedAt}};
  if (run.writer)
    json["writer"] = {{"pid", run.writer->pid},
                      {"host", run.writer->host},
                      {"status", run.writerStatus ? Json(statusName(*run.writerStatus)) : Json(nullptr)}};
  return json;
}

}  // namespace voxen::cli
