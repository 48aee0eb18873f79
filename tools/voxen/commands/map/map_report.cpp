// `voxen map`'s summary, profile and warnings, from a MappingRun's statistics.
#include "commands/map/map_report.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "report/host_stage_report.hpp"
#include "report/json_output.hpp"
#include "report/json_fields.hpp"
#include "report/startup_report.hpp"
#include "report/text_format.hpp"
#include "voxen/context.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen::cli {

namespace {

// The points the reader dropped and the rays the integrator rejected, by reason, every count
// that is not 0: why the rays integrated are fewer than the points read ("samples").
std::vector<std::string> droppedReasons(const RayLoadStats& load, const IntegrationStats& integrated) {
  std::vector<std::string> reasons;
  const auto add = [&](uint64_t n, const std::string& noun, const std::string& what) {
    if (n > 0) reasons.push_back(countText(n, noun) + " " + what);
  };
  add(load.skippedNonFinite, "point", "skipped for NaN/inf values");
  add(load.skippedOutsideTrajectory, "point", "skipped for times outside the poses' span");
  add(load.skippedBackwards, "point", "skipped in clouds stamped back in time");
  add(load.skippedInBox, "point", "skipped inside --exclude-box");
  add(load.skippedNearSensor, "point", "skipped nearer the sensor than --min-range");
  add(integrated.rejectedTooFar, "ray", "rejected as too far from the map's origin (a voxel coordinate beyond +-2^29)");
  add(integrated.rejectedNonFinite, "ray", "rejected for a non-finite coordinate");
  add(integrated.rejectedIntensity, "ray", "rejected for a NaN or infinite intensity (NDT-TM)");
  return reasons;
}

// The summary's line under "rays N, samples M" when the two differ, and what --max-range did:
// a clipped ray is integrated (a ray) but its end is free space, not a hit.
std::string raysAndSamplesText(const RayLoadStats& load, const IntegrationStats& integrated) {
  std::string text;
  const std::vector<std::string> reasons = droppedReasons(load, integrated);
  if (load.points != integrated.rays && !reasons.empty()) {
    text = "rays and samples differ (each point read is a sample; a ray is one integrated): ";
    for (size_t i = 0; i < reasons.size(); ++i) text += (i ? ", " : "") + reasons[i];
  }
  if (integrated.clippedRays > 0)
    text += (text.empty() ? "" : "; ") + countText(integrated.clippedRays, "ray") +
            " longer than --max-range clipped there: free space to the clip, no hit at the sample";
  return text;
}

// Why a run updated no voxel, every count that is not 0, for the error that refuses its empty


// --profile: the host thread's CPU time per ray, reading the file and (on the GPU path)
// integrating, as JSON fields (with the GPU time per pass) or as text.
double nsPerRay(double seconds, uint64_t rays) { return rays > 0 ? seconds * 1e9 / double(rays) : 0.0; }

// The input's times are CPU time summed over the threads that read (the integration thread,
// or the workers), and the integration thread's wall time waiting for them.
void addHostProfileJson(Json& out, const RayReader& reader, Mapper* gpuRun) {
  const uint64_t rays = reader.stats().rays;
  out["input_threads"] = std::max(reader.threads(), 1u);
  out["host_read_ns_per_ray"] = rounded(nsPerRay(reader.times().readSeconds, rays), 2);
  out["host_origin_ns_per_ray"] = rounded(nsPerRay(reader.times().originSeconds, rays), 2);
  out["host_input_wait_ns_per_ray"] = rounded(nsPerRay(reader.times().waitSeconds, rays), 2);
  if (!gpuRun) return;
  addHostStageJson(out, gpuRun->hostStageTimes());
  addPassTimesJson(out, gpuRun->scheduler().profile());
}

void printHostProfile(const RayReader& reader, Mapper* gpuRun) {
  const uint64_t rays = reader.stats().rays;
  const RayReadTimes& read = reader.times();
  std::printf("\nHost thread CPU time per ray (thread CPU clock: waits for the GPU do not count), %s rays:\n",
              withCommas(rays).c_str());
  const std::string readers = reader.threads() > 0 ? std::to_string(reader.threads()) + " worker threads"
                                                   : std::string("the integration thread");
  std::printf("  input (%s): file reading %.1f, origin interpolation %.1f = %.1f ns per ray\n", readers.c_str(),
              nsPerRay(read.readSeconds, rays), nsPerRay(read.originSeconds, rays),
              nsPerRay(read.readSeconds + read.originSeconds, rays));
  if (reader.threads() > 0)
    std::printf("  the integration thread waited for input %.1f ns per ray (wall time)\n", nsPerRay(read.waitSeconds, rays));
  if (!gpuRun) return;
  const HostStageTimes integration = gpuRun->hostStageTimes();
  std::printf("  integration: %s\n", hostStageLine(integration).c_str());
  std::printf("  in all: %.1f ns per ray\n",
              nsPerRay(read.readSeconds + read.originSeconds + integration.totalSeconds(), rays));
}


// The summary's lines: what was read, what the map holds, the store's checkpoints, the times.
void printSummaryText(const MapArgs& args, const MappingRunStats& s) {
  const IntegrationStats& stats = s.integration;
  std::printf("%s\n", s.inputSummary.c_str());
  std::printf("rays %s, samples %s, voxel updates %s, dropped updates %s, clipped rays %s\n", withCommas(stats.rays).c_str(),
              withCommas(s.load.points).c_str(), withCommas(stats.voxelUpdates).c_str(),
              withCommas(stats.droppedUpdates).c_str(), withCommas(stats.clippedRays).c_str());
  if (const std::string why = raysAndSamplesText(s.load, stats); !why.empty()) std::printf("%s\n", why.c_str());
  if (stats.rejectedRays > 0)
    std::printf("rejected rays %s (skipped: %s too far, %s non-finite, %s with a NaN/inf intensity; first: %s)\n",
                withCommas(stats.rejectedRays).c_str(), withCommas(stats.rejectedTooFar).c_str(),
                withCommas(stats.rejectedNonFinite).c_str(), withCommas(stats.rejectedIntensity).c_str(),
                rejectedRayText(*stats.firstRejected).c_str());
  if (stats.ndtSampleVoxels > 0)
    std::printf("NDT hit fold: %s invocations for %s distinct sample voxels (%.4f per voxel; each batch's last "
                "workgroup pads to 64)\n",
                withCommas(stats.ndtFoldInvocations).c_str(), withCommas(stats.ndtSampleVoxels).c_str(),
                double(stats.ndtFoldInvocations) / double(stats.ndtSampleVoxels));
  if (s.clearanceRange)
    std::printf("clearance within %s m (%s): %s regions in %.3f s (%.2f ms per region)\n", formatNumber(*s.clearanceRange).c_str(),
                s.gpu ? clearanceTechniqueName(args.clearance.technique) : "exact, CPU reference",
                withCommas(s.clearance.regions).c_str(), s.clearance.seconds,
                s.clearance.regions ? s.clearance.seconds * 1e3 / double(s.clearance.regions) : 0.0);
  std::printf("occupied voxels %s, free voxels %s, regions %s\n", withCommas(s.counts.occupied).c_str(),
              withCommas(s.counts.free).c_str(), withCommas(s.counts.regions).c_str());
  if (s.store) {
    const StoreMappingStats& st = s.store->mapping;
    // (s.written is the store's name without its password.)
    std::printf("store %s: %s checkpoints (%.3f s in all with their syncs, writing %.3f s; longest write %.3f s for %s "
                "regions), %s regions written, %s dropped from host memory and %s read back; host map at most %.1f MB; "
                "peak resident memory %d MB%s\n",
                s.written.c_str(), withCommas(st.checkpoints).c_str(), st.checkpointSeconds, st.writeSeconds,
                st.longestWriteSeconds, withCommas(st.longestWriteRegions).c_str(), withCommas(st.regionsWritten).c_str(),
                withCommas(st.evictions).c_str(), withCommas(st.fetches).c_str(), double(st.peakHostBytes) / double(1 << 20),
                s.peakResidentMb, s.store->resumed ? (", resumed after " + withCommas(s.store->resumedFromRays) + " rays").c_str() : "");
  }
  // --device auto says where it mapped and why: the CPU reference is a choice, not a fault.
  const std::string choice = s.backend.asked != MappingBackend::Auto ? ""
                             : std::string("; --device auto mapped on the ") + (s.backend.cpu ? "CPU reference" : "GPU") + ": " +
                                   s.backend.reason;
  std::printf("wall %.2f s (integration %.2f s), %s rays/s, %s voxel updates/s -> %s%s\n", s.wallSeconds, s.integrateSeconds,
              formatSignificant(s.raysPerSecond()).c_str(),
              formatSignificant(s.integrateSeconds > 0 ? double(stats.voxelUpdates) / s.integrateSeconds : 0.0).c_str(),
              s.written.c_str(), choice.c_str());
}

}  // namespace

std::string emptyMapReasons(const RayLoadStats& load, const IntegrationStats& integrated) {
  std::vector<std::string> reasons = droppedReasons(load, integrated);
  const auto counted = [](uint64_t n, const std::string& noun) { return countText(n, noun); };
  if (integrated.rays > 0)
    reasons.push_back(counted(integrated.rays, "ray") + " integrated without updating a voxel (--exclude-origin and "
                      "--exclude-sample leave nothing of rays shorter than a voxel)");
  std::string text = "no voxel was updated: " + counted(load.points, "point") + " read, " + counted(load.rays, "ray");
  if (reasons.empty()) return text + " (the input holds no points)";
  text += "; ";
  for (size_t i = 0; i < reasons.size(); ++i) text += (i ? ", " : "") + reasons[i];
  if (integrated.firstRejected) text += " (the first rejected: " + rejectedRayText(*integrated.firstRejected) + ")";
  return text;
}

void reportMapRun(const CommonOptions& options, const MapArgs& args, MappingRun& run, Context& context,
                  const MappingRunStats& stats) {
  Mapper* gpuRun = stats.gpu ? &run.mapper() : nullptr;
  const RunStartTimes runStart{.firstBatchSeconds = stats.firstBatchSeconds, .syncSeconds = stats.syncSeconds};
  if (options.json) {
    Json summary = jsonOf(stats.jsonFields());
    if (options.profile) addHostProfileJson(summary, run.reader(), gpuRun);
    if (options.profile && gpuRun) addStartupJson(summary, context, runStart);
    printJson(summary);
  } else {
    printSummaryText(args, stats);
  }
  // With --json, --profile's figures are fields of the summary (above): stdout stays JSON.
  if (options.profile && !options.json) printHostProfile(run.reader(), gpuRun);
  if (options.profile && !options.json && gpuRun) {
    std::printf("\nGPU time per pass:\n");
    gpuRun->scheduler().profile().print(std::cout);
    std::printf("\n%s", memoryReport(context.device()).c_str());
    std::printf("%s", startupText(context, runStart).c_str());
  }
  for (const std::string& warning : stats.inputWarnings) std::fprintf(stderr, "voxen map: warning: %s\n", warning.c_str());
  const IntegrationStats& integrated = stats.integration;
  if (integrated.rejectedRays > 0)
    std::fprintf(stderr, "voxen map: warning: %llu rays were skipped (first: %s)\n", (unsigned long long)integrated.rejectedRays,
                 rejectedRayText(*integrated.firstRejected).c_str());
  if (integrated.droppedUpdates > 0)
    std::fprintf(stderr, "voxen map: warning: %llu voxel updates were dropped after the bounded CAS retries\n",
                 (unsigned long long)integrated.droppedUpdates);
}

}  // namespace voxen::cli
